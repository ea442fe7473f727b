/* L1NormFwd and L2NormFwd against the double-precision oracle: every ISA and dtype, whole
 * tensor and partial reductions around the 16-lane vector and the 4096-element block,
 * NaN/Inf/huge/tiny, bit agreement across ISAs and thread counts, bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct {
  int p;
  nkl_dtype dt;
  int rank;
  int64_t shape[4];
  int ndims;
  int dims[4];
} lc;

/* [A, B, C] of a case (B kept). */
static void abc(const lc *c, int64_t *A, int64_t *B, int64_t *C) {
  bool red[4] = {false};
  for (int i = 0; i < c->ndims; i++) red[c->dims[i] < 0 ? c->dims[i] + c->rank : c->dims[i]] = true;
  if (c->ndims == 0)
    for (int d = 0; d < c->rank; d++) red[d] = true;
  *A = *B = *C = 1;
  bool seen_kept = false;
  for (int d = 0; d < c->rank; d++) {
    if (!red[d])
      *B *= c->shape[d], seen_kept = true;
    else if (!seen_kept)
      *A *= c->shape[d];
    else
      *C *= c->shape[d];
  }
  bool any_kept = false;
  for (int d = 0; d < c->rank; d++) any_kept = any_kept || !red[d];
  if (!any_kept) *C *= *A, *A = 1;
}

static nkl_status call(const lc *c, void *x, void *y) {
  nkl_tensor tx = nkl_tensor_make(c->dt, c->rank, c->shape, x);
  int64_t ys[4];
  int yr = 0;
  bool red[4] = {false};
  for (int i = 0; i < c->ndims; i++) red[c->dims[i] < 0 ? c->dims[i] + c->rank : c->dims[i]] = true;
  for (int d = 0; d < c->rank; d++)
    if (c->ndims && !red[d]) ys[yr++] = c->shape[d];
  nkl_tensor ty = nkl_tensor_make(c->dt, yr, ys, y);
  return c->p == 1 ? nkl_l1norm_fwd(&tx, c->dims, c->ndims, &ty)
                   : nkl_l2norm_fwd(&tx, c->dims, c->ndims, &ty);
}

static int64_t g_bad;

static void run(const lc *c, int fill, uint64_t seed, bool expect_ok) {
  int64_t A, B, C;
  abc(c, &A, &B, &C);
  const int64_t n = A * B * C;
  const size_t es = nkl_dtype_size(c->dt);
  void *x = tu_alloc((size_t)n * es), *y = tu_alloc((size_t)B * es);
  nkl_fill_normal(x, c->dt, n, seed, fill == 3 ? 1e15 : fill == 4 ? 1e-12 : 1.0);
  if (fill == 1) nkl_set(x, c->dt, n / 2, NAN);
  if (fill == 2) nkl_set(x, c->dt, n - 1, -INFINITY);
  memset(y, 0x55, (size_t)B * es);
  CHECK_STATUS(call(c, x, y), NKL_OK);
  double *ref = malloc((size_t)B * 8);
  oracle_lpnorm(x, c->dt, A, B, C, c->p, ref);
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  for (int64_t b = 0; b < B; b++)
    nkl_cmp_add(&cmp, nkl_get(y, c->dt, b), ref[b], lpnorm_tolerance(c->dt, A, C, ref[b]), b);
  g_bad = cmp.bad;
  CHECK(!expect_ok || cmp.bad == 0,
        "L%d %s rank %d [%lld,%lld,%lld] fill %d: %lld of %lld wrong; worst #%lld got %.9g want "
        "%.9g tol %.3g",
        c->p, nkl_dtype_name(c->dt), c->rank, (long long)A, (long long)B, (long long)C, fill,
        (long long)cmp.bad, (long long)cmp.checked, (long long)cmp.worst, cmp.worst_got,
        cmp.worst_ref, cmp.worst_tol);
  CHECK(tu_guard_ok(y), "wrote past y");
  free(ref);
  tu_free(x), tu_free(y);
}

static const nkl_dtype kX[] = {NKL_F32, NKL_F16, NKL_BF16};
static const lc kShapes[] = {
    {0, 0, 1, {1}, 0, {0}},
    {0, 0, 1, {15}, 0, {0}},
    {0, 0, 1, {17}, 0, {0}},
    {0, 0, 1, {4095}, 0, {0}},
    {0, 0, 1, {4097}, 0, {0}},
    {0, 0, 2, {37, 531}, 0, {0}},
    {0, 0, 3, {4, 13, 4096}, 2, {0, 2}},
    {0, 0, 3, {3, 7, 4100}, 2, {0, -1}},
    {0, 0, 3, {5, 6, 7}, 1, {2}},
    {0, 0, 3, {5, 6, 7}, 1, {0}},
    {0, 0, 3, {5, 6, 7}, 2, {1, 2}},
    {0, 0, 4, {2, 3, 4, 33}, 2, {0, 3}},
    {0, 0, 2, {3, 9000}, 1, {1}},
};

static void test_sweep(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int p = 1; p <= 2; p++)
      for (int d = 0; d < 3; d++)
        for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; s++) {
          lc c = kShapes[s];
          c.p = p, c.dt = kX[d];
          run(&c, 0, 10 + s, true);
        }
  }
}

static void test_specials(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int p = 1; p <= 2; p++)
      for (int d = 0; d < 3; d++)
        for (int fill = 1; fill <= 4; fill++) {
          if (fill == 3 && kX[d] == NKL_F16) continue; /* 1e15 is not an f16 value */
          const lc full = {p, kX[d], 2, {9, 1001}, 0, {0}};
          run(&full, fill, 3, true);
          const lc part = {p, kX[d], 3, {3, 5, 333}, 2, {0, 2}};
          run(&part, fill, 4, true);
        }
  }
}

/* Same bits on every ISA and with 1, 2, 3 threads (fixed blocks, fixed order). */
static void test_bitwise_agreement(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int p = 1; p <= 2; p++)
    for (int d = 0; d < 3; d++) {
      const lc cs[2] = {{p, kX[d], 2, {64, 9001}, 0, {0}}, {p, kX[d], 3, {4, 11, 9001}, 2, {0, 2}}};
      for (int j = 0; j < 2; j++) {
        const int64_t n = cs[j].shape[0] * cs[j].shape[1] * (j ? cs[j].shape[2] : 1);
        const size_t es = nkl_dtype_size(kX[d]);
        void *x = malloc((size_t)n * es);
        nkl_fill_normal(x, kX[d], n, 77, 1.0);
        unsigned char ref[64], got[64];
        nkl_set_max_isa(NKL_ISA_SCALAR);
        nkl_set_num_threads(1);
        CHECK_STATUS(call(&cs[j], x, ref), NKL_OK);
        for (int k = 0; k < nisa; k++)
          for (int t = 1; t <= 3; t++) {
            nkl_set_max_isa(isas[k]);
            nkl_set_num_threads(t);
            CHECK_STATUS(call(&cs[j], x, got), NKL_OK);
            CHECK(memcmp(got, ref, (size_t)(j ? 11 : 1) * es) == 0,
                  "L%d %s case %d %s threads=%d differs", p, nkl_dtype_name(kX[d]), j,
                  nkl_isa_name(isas[k]), t);
          }
        free(x);
      }
    }
}

/* The comparison catches an error of a few ulps in the result. */
static void test_oracle_detects_errors(void) {
  const int64_t shape[1] = {1000};
  uint16_t x[1000], y;
  nkl_fill_normal(x, NKL_BF16, 1000, 5, 1.0);
  nkl_tensor tx = nkl_tensor_make(NKL_BF16, 1, shape, x),
             ty = nkl_tensor_make(NKL_BF16, 0, NULL, &y);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, NULL, 0, &ty), NKL_OK);
  double ref;
  oracle_lpnorm(x, NKL_BF16, 1, 1, 1000, 2, &ref);
  const double tol = lpnorm_tolerance(NKL_BF16, 1, 1000, ref);
  CHECK(fabs(nkl_get(&y, NKL_BF16, 0) - ref) <= tol, "clean result wrong");
  y = (uint16_t)(y + 2);
  CHECK(fabs(nkl_get(&y, NKL_BF16, 0) - ref) > tol, "2-ulp error went unnoticed");
}

/* A result beyond the output dtype's range is inf (f16 L1 of 100000 ones), as in PyTorch;
 * the f32 accumulation itself does not overflow. */
static void test_f16_overflow_to_inf(void) {
  const int64_t n = 100000;
  uint16_t *x = malloc((size_t)n * 2), y = 0;
  for (int64_t i = 0; i < n; i++) x[i] = 0x3C00; /* 1.0 */
  nkl_tensor tx = nkl_tensor_make(NKL_F16, 1, &n, x), ty = nkl_tensor_make(NKL_F16, 0, NULL, &y);
  CHECK_STATUS(nkl_l1norm_fwd(&tx, NULL, 0, &ty), NKL_OK);
  CHECK(y == 0x7C00, "f16 L1 of 1e5 ones gave %04x, want +inf", y);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, NULL, 0, &ty), NKL_OK);
  CHECK(fabs(nkl_get(&y, NKL_F16, 0) - sqrt(1e5)) < 0.2, "f16 L2 of 1e5 ones gave %g",
        nkl_get(&y, NKL_F16, 0));
  free(x);
}

static void test_bad_input(void) {
  int64_t s3[3] = {2, 3, 4}, s1[1] = {3}, s2[1] = {2};
  float x[24], y[4];
  uint16_t h[4];
  nkl_fill_normal(x, NKL_F32, 24, 1, 1.0);
  for (int i = 0; i < 4; i++) y[i] = 777.0f;
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 3, s3, x), ty = nkl_tensor_make(NKL_F32, 1, s1, y);
  nkl_tensor t;
  const int d02[2] = {0, 2}, d1[1] = {1}, d00[2] = {0, 0}, d5[1] = {5};
  CHECK_STATUS(nkl_l1norm_fwd(NULL, d02, 2, &ty), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_l1norm_fwd(&tx, d02, 2, NULL), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_l1norm_fwd(&tx, NULL, 2, &ty), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_l1norm_fwd(&tx, d00, 2, &ty), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, d5, 1, &ty), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, d02, -1, &ty), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, d1, 1, &ty), NKL_ERR_UNSUPPORTED); /* kept dims 0 and 2 */
  t = nkl_tensor_make(NKL_BF16, 1, s1, h);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, d02, 2, &t), NKL_ERR_BAD_DTYPE);
  t = tx, t.dtype = NKL_I8;
  CHECK_STATUS(nkl_l2norm_fwd(&t, d02, 2, &ty), NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 1, s2, y);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, d02, 2, &t), NKL_ERR_BAD_SHAPE);
  CHECK_STATUS(nkl_l2norm_fwd(&tx, NULL, 0, &ty), NKL_ERR_BAD_RANK);
  t = tx, t.strides[0] = 13;
  CHECK_STATUS(nkl_l1norm_fwd(&t, d02, 2, &ty), NKL_ERR_BAD_STRIDE);
  t = nkl_tensor_make(NKL_F32, 1, s1, x + 2);
  CHECK_STATUS(nkl_l1norm_fwd(&tx, d02, 2, &t), NKL_ERR_ALIAS);
  for (int i = 0; i < 4; i++) CHECK(y[i] == 777.0f, "y[%d] touched by a failed call", i);
  CHECK_STATUS(nkl_l1norm_fwd(&tx, d02, 2, &ty), NKL_OK);
  CHECK(strstr(nkl_last_kernel(), "l1norm_fwd") != NULL, "kernel: %s", nkl_last_kernel());
}

int main(void) {
  tu_run("sweep_isas_dtypes_shapes_dims", test_sweep);
  tu_run("nan_inf_huge_tiny", test_specials);
  tu_run("bitwise_agreement_isas_threads", test_bitwise_agreement);
  tu_run("oracle_detects_errors", test_oracle_detects_errors);
  tu_run("f16_overflow_to_inf", test_f16_overflow_to_inf);
  tu_run("bad_input", test_bad_input);
  return tu_summary();
}
