/* The subnormal mode (nkl_set_denormal_mode). KEEP, the default, is what every other test
 * checks against the double-precision oracles. FLUSH must give, on every ISA and thread
 * count, exactly what KEEP gives for the input with its subnormal values replaced by zeros
 * of the same sign (denormals-are-zero), with no subnormal output (flush-to-zero); max pools
 * ignore it; the calling thread's MXCSR is the same after the call as before. The inputs
 * are chosen so that KEEP on the flushed input meets no subnormal intermediate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE__))
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

static bool is_subnormal(float v) { return v != 0.0f && fabsf(v) < 0x1p-126f; }

/* Normal values in about [-2, 2], and a subnormal instead in one of every `every`. */
static void fill(float *x, int64_t n, uint64_t seed, int every) {
  nkl_fill_normal(x, NKL_F32, n, seed, 1.0);
  uint64_t s = seed ^ 0xABCDu;
  for (int64_t i = 0; i < n; i++)
    if (nkl_rand_u64(&s) % (uint64_t)every == 0)
      x[i] = (float)((int)(nkl_rand_u64(&s) % 2000) - 1000) * 0x1p-140f; /* |x| < 2^-130 */
}

/* x with its subnormal values replaced by zeros of their sign. */
static void flushed(const float *x, float *z, int64_t n) {
  for (int64_t i = 0; i < n; i++) z[i] = is_subnormal(x[i]) ? copysignf(0.0f, x[i]) : x[i];
}

static bool same_bits(const float *a, const float *b, int64_t n, int64_t *at) {
  for (int64_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], 4) != 0) return *at = i, false;
  return true;
}

/* The default is KEEP, or what NKL_DENORMALS says (ctest runs this file again with
 * NKL_DENORMALS=flush: test_denormals_env). */
static void test_mode_api(void) {
  const char *env = getenv("NKL_DENORMALS");
  const nkl_denormal_mode start =
      env && !strcmp(env, "flush") ? NKL_DENORMALS_FLUSH : NKL_DENORMALS_KEEP;
  CHECK(nkl_get_denormal_mode() == start, "initial mode %d, NKL_DENORMALS=%s",
        nkl_get_denormal_mode(), env ? env : "(unset)");
  CHECK_STATUS(nkl_set_denormal_mode((nkl_denormal_mode)2), NKL_ERR_BAD_PARAM);
  CHECK(strstr(nkl_last_error(), "NKL_DENORMALS_KEEP") != NULL, "message: %s", nkl_last_error());
  CHECK_STATUS(nkl_set_denormal_mode((nkl_denormal_mode)-1), NKL_ERR_BAD_PARAM);
  CHECK(nkl_get_denormal_mode() == start, "a refused value changed the mode");
  CHECK_STATUS(nkl_set_denormal_mode(NKL_DENORMALS_FLUSH), NKL_OK);
  CHECK(nkl_get_denormal_mode() == NKL_DENORMALS_FLUSH, "mode not set");
  CHECK_STATUS(nkl_set_denormal_mode(NKL_DENORMALS_KEEP), NKL_OK);
  CHECK(nkl_get_denormal_mode() == NKL_DENORMALS_KEEP, "mode not restored");
}

/* One op under FLUSH on its inputs against KEEP on their flushed copies (flushes), or on
 * the inputs themselves (ops that ignore the mode), on every ISA and 1 or 2 threads. The op
 * reads nin inputs of n[i] values and writes nout outputs of m[o] values. */
typedef void (*op_fn)(float *const *in, float *const *out);

static void flush_vs_zeroed(const char *what, op_fn op, float *const *in, int nin, const int64_t *n,
                            float *const *out, int nout, const int64_t *m, bool flushes) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  float *zin[4], *ref[4];
  for (int i = 0; i < nin; i++) {
    zin[i] = tu_alloc((size_t)n[i] * 4);
    flushed(in[i], zin[i], n[i]);
  }
  for (int o = 0; o < nout; o++) ref[o] = tu_alloc((size_t)m[o] * 4);
  for (int ki = 0; ki < nisa; ki++) {
    nkl_set_max_isa(isas[ki]);
    for (int t = 1; t <= 2; t++) {
      nkl_set_num_threads(t);
      nkl_set_denormal_mode(NKL_DENORMALS_KEEP);
      op(flushes ? zin : in, ref);
#ifdef HAVE_MXCSR
      const unsigned csr = _mm_getcsr();
#endif
      nkl_set_denormal_mode(NKL_DENORMALS_FLUSH);
      op(in, out);
      nkl_set_denormal_mode(NKL_DENORMALS_KEEP);
#ifdef HAVE_MXCSR
      CHECK(_mm_getcsr() == csr, "%s: MXCSR %#x after the call, %#x before", what, _mm_getcsr(),
            csr);
#endif
      for (int o = 0; o < nout; o++) {
        int64_t at = 0;
        CHECK(same_bits(out[o], ref[o], m[o], &at), "%s %s %d threads output %d [%lld]: %g vs %g",
              what, nkl_isa_name(isas[ki]), t, o, (long long)at, out[o][at], ref[o][at]);
        if (flushes)
          for (int64_t i = 0; i < m[o]; i++)
            if (is_subnormal(out[o][i])) {
              CHECK(0, "%s: subnormal output %g at %lld", what, out[o][i], (long long)i);
              break;
            }
      }
    }
  }
  nkl_set_num_threads(0);
  nkl_set_max_isa(nkl_cpu_isa());
  for (int i = 0; i < nin; i++) tu_free(zin[i]);
  for (int o = 0; o < nout; o++) tu_free(ref[o]);
}

enum { R = 6, N = 1031 };

static void rms_op(float *const *in, float *const *out) {
  int64_t s2[2] = {R, N}, s1[1] = {N}, sr[1] = {R};
  nkl_tensor x = nkl_tensor_make(NKL_F32, 2, s2, in[0]), w = nkl_tensor_make(NKL_F32, 1, s1, in[1]);
  nkl_tensor y = nkl_tensor_make(NKL_F32, 2, s2, out[0]),
             r = nkl_tensor_make(NKL_F32, 1, sr, out[1]);
  CHECK_STATUS(nkl_rmsnorm_fwd(&x, &w, 1e-6f, &y, &r), NKL_OK);
}

static void lnbwd_op(float *const *in, float *const *out) {
  int64_t s2[2] = {R, N}, s1[1] = {N}, sr[1] = {R};
  float mean[R], rstd[R];
  nkl_tensor x = nkl_tensor_make(NKL_F32, 2, s2, in[0]),
             dy = nkl_tensor_make(NKL_F32, 2, s2, in[1]);
  nkl_tensor w = nkl_tensor_make(NKL_F32, 1, s1, in[2]), b = nkl_tensor_make(NKL_F32, 1, s1, in[2]);
  nkl_tensor y = nkl_tensor_make(NKL_F32, 2, s2, out[0]),
             tm = nkl_tensor_make(NKL_F32, 1, sr, mean), tr = nkl_tensor_make(NKL_F32, 1, sr, rstd);
  CHECK_STATUS(nkl_layernorm_fwd(&x, &w, &b, 1e-5f, &y, &tm, &tr), NKL_OK);
  nkl_tensor dx = nkl_tensor_make(NKL_F32, 2, s2, out[0]),
             dw = nkl_tensor_make(NKL_F32, 1, s1, out[1]),
             db = nkl_tensor_make(NKL_F32, 1, s1, out[2]);
  CHECK_STATUS(nkl_layernorm_bwd(&x, &dy, &w, &tm, &tr, &dx, &dw, &db), NKL_OK);
}

/* 3x3 windows, stride 2, padding 1 over [1, PC, PH, PW]: outputs [1, PC, 19, 21]. */
enum { PC = 5, PH = 37, PW = 41 };
typedef nkl_status (*pool_fn)(const nkl_tensor *, const nkl_pool_params *, nkl_tensor *);
static void pool_op(pool_fn f, float *const *in, float *const *out) {
  int64_t xs[4] = {1, PC, PH, PW}, ys[4] = {1, PC, 19, 21};
  nkl_pool_params p;
  memset(&p, 0, sizeof p);
  for (int i = 0; i < 2; i++) p.kernel_size[i] = 3, p.stride[i] = 2, p.padding[i] = 1;
  p.dilation[0] = p.dilation[1] = 1;
  nkl_tensor x = nkl_tensor_make(NKL_F32, 4, xs, in[0]),
             y = nkl_tensor_make(NKL_F32, 4, ys, out[0]);
  CHECK_STATUS(f(&x, &p, &y), NKL_OK);
}
static void avgpool_op(float *const *in, float *const *out) { pool_op(nkl_avgpool2d_fwd, in, out); }
static void maxpool_op(float *const *in, float *const *out) { pool_op(nkl_maxpool2d_fwd, in, out); }

static void test_rmsnorm(void) {
  float *x = tu_alloc(R * N * 4), *w = tu_alloc(N * 4), *y = tu_alloc(R * N * 4),
        *r = tu_alloc(R * 4);
  fill(x, R * N, 11, 10);
  for (int64_t i = 0; i < N; i++) x[2 * N + i] = (float)(i % 7 - 3) * 0x1p-135f; /* a tiny row */
  fill(w, N, 12, 1 << 30);                                                       /* normal */
  float *in[2] = {x, w}, *out[2] = {y, r};
  const int64_t n[2] = {R * N, N}, m[2] = {R * N, R};
  flush_vs_zeroed("rmsnorm", rms_op, in, 2, n, out, 2, m, true);
  tu_free(x), tu_free(w), tu_free(y), tu_free(r);
}

static void test_layernorm_bwd(void) {
  float *x = tu_alloc(R * N * 4), *dy = tu_alloc(R * N * 4), *w = tu_alloc(N * 4);
  float *dx = tu_alloc(R * N * 4), *dw = tu_alloc(N * 4), *db = tu_alloc(N * 4);
  fill(x, R * N, 21, 1 << 30); /* x normal: its statistics are the same in both modes */
  fill(dy, R * N, 22, 8);
  /* a row whose dy is all subnormal: dx is subnormal there unless flushed (elsewhere the
   * subnormal terms vanish in the rounding of normal ones, so both modes agree) */
  for (int64_t i = 0; i < N; i++) dy[3 * N + i] = (float)(i % 9 - 4) * 0x1p-138f;
  fill(w, N, 23, 1 << 30);
  float *in[3] = {x, dy, w}, *out[3] = {dx, dw, db};
  const int64_t n[3] = {R * N, R * N, N}, m[3] = {R * N, N, N};
  flush_vs_zeroed("layernorm_bwd", lnbwd_op, in, 3, n, out, 3, m, true);
  tu_free(x), tu_free(dy), tu_free(w), tu_free(dx), tu_free(dw), tu_free(db);
}

static void test_pools(void) {
  const int64_t n = PC * PH * PW, m = PC * 19 * 21;
  float *x = tu_alloc((size_t)n * 4), *y = tu_alloc((size_t)m * 4);
  fill(x, n, 31, 3);
  for (int64_t i = 0; i < PH * PW; i++) x[i] = -(float)(i % 5 + 1) * 0x1p-140f; /* plane 0 */
  float *in[1] = {x}, *out[1] = {y};
  flush_vs_zeroed("avgpool2d", avgpool_op, in, 1, &n, out, 1, &m, true);
  /* max pools return an input exactly in both modes: plane 0's maxima are subnormal */
  flush_vs_zeroed("maxpool2d", maxpool_op, in, 1, &n, out, 1, &m, false);
  int subnormal = 0;
  for (int64_t i = 0; i < 19 * 21; i++) subnormal += is_subnormal(y[i]);
  CHECK(subnormal == 19 * 21, "maxpool2d plane 0: %d of %d outputs subnormal", subnormal, 19 * 21);
  tu_free(x), tu_free(y);
}

int main(void) {
  tu_run("mode_api", test_mode_api);
  tu_run("rmsnorm_flush_equals_zeroed_input", test_rmsnorm);
  tu_run("layernorm_bwd_flush_equals_zeroed_dy", test_layernorm_bwd);
  tu_run("avgpool_flushes_maxpool_exact", test_pools);
  return tu_summary();
}
