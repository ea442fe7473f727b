/* SpectralNormPowerIterFwd against the double-precision oracle: every ISA and dtype, shapes
 * around the 16-lane vector and the 32 row chunks, NaN/zero matrices, in-place u, bit
 * agreement across ISAs and thread counts, bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int64_t g_bad;

/* Runs one case; fill 0 normal, 1 a NaN in w, 2 all-zero w, 3 huge, 4 tiny. perturb > 0:
 * add that many ulps to v_out[0] before comparing (the check must then fail). */
static void run(nkl_dtype dt, int64_t O, int64_t I, int fill, bool in_place, uint64_t seed,
                int perturb) {
  const size_t es = nkl_dtype_size(dt);
  void *w = tu_alloc((size_t)(O * I) * es);
  nkl_fill_normal(w, dt, O * I, seed, fill == 3 ? 1e15 : fill == 4 ? 1e-12 : 1.0);
  if (fill == 1) nkl_set(w, dt, O * I / 2, NAN);
  if (fill == 2) memset(w, 0, (size_t)(O * I) * es);
  float *u = tu_alloc((size_t)O * 4), *uo = in_place ? u : tu_alloc((size_t)O * 4);
  float *v = tu_alloc((size_t)I * 4), *sigma = tu_alloc(4);
  double *ud = malloc((size_t)O * 8), nu = 0.0;
  nkl_fill_normal(u, NKL_F32, O, seed ^ 0x77, 1.0);
  for (int64_t o = 0; o < O; o++) nu += (double)u[o] * u[o];
  for (int64_t o = 0; o < O; o++) u[o] = (float)(u[o] / sqrt(nu)), ud[o] = u[o];
  const int64_t one = 1;
  nkl_tensor tw = nkl_tensor_make(dt, 2, (int64_t[]){O, I}, w),
             tu = nkl_tensor_make(NKL_F32, 1, &O, u);
  nkl_tensor tuo = nkl_tensor_make(NKL_F32, 1, &O, uo), tv = nkl_tensor_make(NKL_F32, 1, &I, v);
  nkl_tensor ts = nkl_tensor_make(NKL_F32, 1, &one, sigma);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, 1e-12f, &tuo, &tv, &ts), NKL_OK);
  double *ru = malloc((size_t)O * 8), *rv = malloc((size_t)I * 8), *eu = malloc((size_t)O * 8),
         *ev = malloc((size_t)I * 8), esig;
  const double rs = oracle_spectral_power_iter(w, dt, O, I, ud, 1e-12, ru, rv, eu, ev, &esig);
  for (int k = 0; k < perturb; k++) v[0] = nextafterf(v[0], INFINITY);
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  for (int64_t j = 0; j < I; j++) nkl_cmp_add(&cmp, v[j], rv[j], ev[j], j);
  for (int64_t o = 0; o < O; o++) nkl_cmp_add(&cmp, uo[o], ru[o], eu[o], I + o);
  nkl_cmp_add(&cmp, *sigma, rs, esig, -1);
  g_bad = cmp.bad;
  CHECK(perturb || cmp.bad == 0,
        "%s O=%lld I=%lld fill %d%s: %lld of %lld wrong; worst #%lld got %.9g want %.9g tol %.3g",
        nkl_dtype_name(dt), (long long)O, (long long)I, fill, in_place ? " in-place" : "",
        (long long)cmp.bad, (long long)cmp.checked, (long long)cmp.worst, cmp.worst_got,
        cmp.worst_ref, cmp.worst_tol);
  CHECK(tu_guard_ok(uo) && tu_guard_ok(v) && tu_guard_ok(sigma), "wrote out of bounds");
  free(ud), free(ru), free(rv), free(eu), free(ev);
  tu_free(w), tu_free(u), tu_free(v), tu_free(sigma);
  if (!in_place) tu_free(uo);
}

static const nkl_dtype kX[] = {NKL_F32, NKL_F16, NKL_BF16};
static const int64_t kShapes[][2] = {{1, 1},   {1, 17},  {3, 33},    {5, 100},   {16, 15},
                                     {31, 64}, {33, 65}, {70, 1000}, {2, 16411}, {1, 4096}};

static void test_sweep(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; s++)
        run(kX[d], kShapes[s][0], kShapes[s][1], 0, s % 2 == 1, 20 + s, 0);
  }
}

static void test_specials(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (int fill = 1; fill <= 4; fill++) {
        if (fill == 3 && kX[d] == NKL_F16) continue; /* 1e15 is not an f16 value */
        if (fill == 3) continue; /* (1e15)^2 * I overflows f32 in ||t||: not representable */
        run(kX[d], 37, 301, fill, false, 5, 0);
      }
  }
}

static void test_bitwise_agreement(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int d = 0; d < 3; d++) {
    const int64_t O = 75, I = 1037, one = 1;
    const size_t es = nkl_dtype_size(kX[d]);
    void *w = malloc((size_t)(O * I) * es);
    nkl_fill_normal(w, kX[d], O * I, 3, 1.0);
    float u[75], ref[75 + 1037 + 1], got[75 + 1037 + 1];
    nkl_fill_normal(u, NKL_F32, O, 4, 0.1);
    nkl_tensor tw = nkl_tensor_make(kX[d], 2, (int64_t[]){O, I}, w),
               tu = nkl_tensor_make(NKL_F32, 1, &O, u);
    for (int pass = 0; pass <= nisa * 3; pass++) {
      float *out = pass ? got : ref;
      nkl_set_max_isa(pass ? isas[(pass - 1) / 3] : NKL_ISA_SCALAR);
      nkl_set_num_threads(pass ? (pass - 1) % 3 + 1 : 1);
      nkl_tensor tuo = nkl_tensor_make(NKL_F32, 1, &O, out),
                 tv = nkl_tensor_make(NKL_F32, 1, &I, out + O);
      nkl_tensor ts = nkl_tensor_make(NKL_F32, 1, &one, out + O + I);
      CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, 1e-12f, &tuo, &tv, &ts), NKL_OK);
      if (pass)
        CHECK(memcmp(got, ref, sizeof ref) == 0, "%s %s threads=%d differs from scalar/1 thread",
              nkl_dtype_name(kX[d]), nkl_isa_name(isas[(pass - 1) / 3]), (pass - 1) % 3 + 1);
    }
    free(w);
  }
}

static void test_oracle_detects_errors(void) {
  run(NKL_BF16, 9, 100, 0, false, 1, 1000);
  CHECK(g_bad == 1, "1000-ulp (1e-4 relative) error in v_out[0] gave %lld mismatches, want 1",
        (long long)g_bad);
}

static void test_bad_input(void) {
  int64_t O = 4, I = 8, one = 1, three = 3;
  float w[32], u[4], uo[4], v[8], sg[1];
  uint16_t h[32] = {0};
  nkl_fill_normal(w, NKL_F32, 32, 1, 1.0);
  nkl_fill_normal(u, NKL_F32, 4, 2, 1.0);
  for (int i = 0; i < 4; i++) uo[i] = 777.0f;
  for (int i = 0; i < 8; i++) v[i] = 777.0f;
  sg[0] = 777.0f;
  nkl_tensor tw = nkl_tensor_make(NKL_F32, 2, (int64_t[]){O, I}, w),
             tu = nkl_tensor_make(NKL_F32, 1, &O, u);
  nkl_tensor tuo = nkl_tensor_make(NKL_F32, 1, &O, uo), tv = nkl_tensor_make(NKL_F32, 1, &I, v);
  nkl_tensor ts = nkl_tensor_make(NKL_F32, 1, &one, sg), t;
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(NULL, &tu, 1e-12f, &tuo, &tv, &ts),
               NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, NULL, 1e-12f, &tuo, &tv, &ts),
               NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, 1e-12f, &tuo, &tv, NULL),
               NKL_ERR_NULL_POINTER);
  t = nkl_tensor_make(NKL_F32, 1, &three, u);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &t, 1e-12f, &tuo, &tv, &ts),
               NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_F32, 1, &O, v);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, 1e-12f, &tuo, &t, &ts),
               NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_BF16, 1, &O, h);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &t, 1e-12f, &tuo, &tv, &ts),
               NKL_ERR_BAD_DTYPE);
  t = tw, t.dtype = NKL_I32;
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&t, &tu, 1e-12f, &tuo, &tv, &ts),
               NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 1, &I, w);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&t, &tu, 1e-12f, &tuo, &tv, &ts), NKL_ERR_BAD_RANK);
  t = tw, t.strides[0] = 9, t.shape[0] = 3;
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&t, &tu, 1e-12f, &tuo, &tv, &ts),
               NKL_ERR_BAD_STRIDE);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, -1.0f, &tuo, &tv, &ts),
               NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, NAN, &tuo, &tv, &ts), NKL_ERR_BAD_PARAM);
  CHECK(strncmp(nkl_last_error(), "bad parameter: spectral_norm_power_iter_fwd: eps ", 49) == 0,
        "message names the entry point: %s", nkl_last_error());
  t = nkl_tensor_make(NKL_F32, 1, &I, w); /* v_out is w */
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, 1e-12f, &tuo, &t, &ts), NKL_ERR_ALIAS);
  t = nkl_tensor_make(NKL_F32, 1, &one, v + 3); /* sigma inside v_out */
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, 1e-12f, &tuo, &tv, &t), NKL_ERR_ALIAS);
  for (int i = 0; i < 4; i++) CHECK(uo[i] == 777.0f, "u_out[%d] touched", i);
  for (int i = 0; i < 8; i++) CHECK(v[i] == 777.0f, "v_out[%d] touched", i);
  CHECK(sg[0] == 777.0f, "sigma touched");
  CHECK_STATUS(nkl_spectral_norm_power_iter_fwd(&tw, &tu, 1e-12f, &tu, &tv, &ts), NKL_OK);
}

int main(void) {
  tu_run("sweep_isas_dtypes_shapes", test_sweep);
  tu_run("nan_zero_tiny", test_specials);
  tu_run("bitwise_agreement_isas_threads", test_bitwise_agreement);
  tu_run("oracle_detects_errors", test_oracle_detects_errors);
  tu_run("bad_input", test_bad_input);
  return tu_summary();
}
