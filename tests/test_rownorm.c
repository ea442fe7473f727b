/* RMSNormFwd and LayerNormFwd against the double-precision oracle: every ISA, every dtype
 * combination, edge sizes, strided rows, in-place, NaN/Inf and extreme magnitudes; bit
 * agreement across ISAs and thread counts; every bad-input path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef enum { RMS, LN } op_t;
/* SUBNORMAL_OUT: weights of ~1e-39 make the outputs subnormal (f32 and bf16 keep them; the
 * vcvtneps2bf16 store of the AVX512-BF16 kernels must not flush them). */
typedef enum {
  PLAIN,
  WITH_NAN,
  WITH_INF,
  HUGE_VALUES,
  TINY_VALUES,
  CONSTANT_ROW,
  SUBNORMAL_OUT
} fill_t;

typedef struct {
  op_t op;
  nkl_dtype xt;
  int wt;    /* -1: no w/b */
  bool bias; /* LN only */
  int64_t m, n, xrs, yrs;
  fill_t fill;
  bool in_place;
} rn_case;

typedef struct {
  void *x, *y, *w, *b;
  float *mean, *rstd;
} rn_bufs;

static const char *op_name(op_t op) { return op == RMS ? "rmsnorm" : "layernorm"; }

static void fill_case(const rn_case *c, rn_bufs *B, uint64_t seed) {
  const size_t es = nkl_dtype_size(c->xt);
  B->x = tu_alloc((size_t)(c->m * c->xrs) * es);
  B->y = c->in_place ? B->x : tu_alloc((size_t)(c->m * c->yrs) * es);
  B->w = B->b = NULL;
  B->mean = tu_alloc((size_t)c->m * 4);
  B->rstd = tu_alloc((size_t)c->m * 4);
  memset(B->mean, 0, (size_t)c->m * 4);
  memset(B->rstd, 0, (size_t)c->m * 4);
  const double scale = c->fill == HUGE_VALUES ? 1e15 : c->fill == TINY_VALUES ? 1e-12 : 1.0;
  memset(B->x, 0x7F, (size_t)(c->m * c->xrs) * es); /* row padding: garbage (NaN-ish) */
  for (int64_t r = 0; r < c->m; r++) {
    void *row = (char *)B->x + (size_t)(r * c->xrs) * es;
    nkl_fill_normal(row, c->xt, c->n, seed + (uint64_t)r, scale);
    if (c->fill == CONSTANT_ROW)
      for (int64_t i = 0; i < c->n; i++) nkl_set(row, c->xt, i, 3.25);
    if (r == c->m / 2 && c->fill == WITH_NAN) nkl_set(row, c->xt, c->n / 2, NAN);
    if (r == c->m / 2 && c->fill == WITH_INF) nkl_set(row, c->xt, c->n - 1, -INFINITY);
  }
  if (!c->in_place) memset(B->y, 0x55, (size_t)(c->m * c->yrs) * es);
  if (c->wt >= 0) {
    B->w = tu_alloc((size_t)c->n * 4);
    nkl_fill_normal(B->w, (nkl_dtype)c->wt, c->n, seed ^ 0xABCD,
                    c->fill == SUBNORMAL_OUT ? 1e-39 : 1.0);
    if (c->bias) {
      B->b = tu_alloc((size_t)c->n * 4);
      nkl_fill_normal(B->b, (nkl_dtype)c->wt, c->n, seed ^ 0x1234, 1.0);
    }
  }
}

static void free_bufs(const rn_case *c, rn_bufs *B) {
  tu_free(B->x);
  if (!c->in_place) tu_free(B->y);
  tu_free(B->w);
  tu_free(B->b);
  tu_free(B->mean);
  tu_free(B->rstd);
}

static nkl_status call(const rn_case *c, rn_bufs *B) {
  int64_t shape[2] = {c->m, c->n};
  nkl_tensor x = nkl_tensor_make(c->xt, 2, shape, B->x), y = nkl_tensor_make(c->xt, 2, shape, B->y);
  x.strides[0] = c->xrs;
  y.strides[0] = c->in_place ? c->xrs : c->yrs;
  nkl_tensor w = nkl_tensor_make(c->wt < 0 ? c->xt : (nkl_dtype)c->wt, 1, &c->n, B->w);
  nkl_tensor b = nkl_tensor_make(w.dtype, 1, &c->n, B->b);
  nkl_tensor mean = nkl_tensor_make(NKL_F32, 1, &c->m, B->mean);
  nkl_tensor rstd = nkl_tensor_make(NKL_F32, 1, &c->m, B->rstd);
  if (c->op == RMS) return nkl_rmsnorm_fwd(&x, B->w ? &w : NULL, 1e-6f, &y, &rstd);
  return nkl_layernorm_fwd(&x, B->w ? &w : NULL, B->b ? &b : NULL, 1e-5f, &y, &mean, &rstd);
}

/* Compares every output and statistic with the oracle, given the inputs the call saw. */
static void compare(const rn_case *c, const rn_bufs *B, const void *x_in, const char *tag) {
  const size_t es = nkl_dtype_size(c->xt);
  const int64_t ys = c->in_place ? c->xrs : c->yrs;
  double *x = malloc((size_t)c->n * 8), *y = malloc((size_t)c->n * 8);
  double *w = malloc((size_t)c->n * 8), *b = malloc((size_t)c->n * 8);
  for (int64_t i = 0; i < c->n; i++) {
    w[i] = B->w ? nkl_get(B->w, (nkl_dtype)c->wt, i) : 1.0;
    b[i] = B->b ? nkl_get(B->b, (nkl_dtype)c->wt, i) : 0.0;
  }
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  for (int64_t r = 0; r < c->m; r++) {
    const int64_t bad_before = cmp.bad;
    const void *xrow = (const char *)x_in + (size_t)(r * c->xrs) * es;
    const void *yrow = (const char *)B->y + (size_t)(r * ys) * es;
    for (int64_t i = 0; i < c->n; i++) x[i] = nkl_get(xrow, c->xt, i);
    double mean = 0.0, rstd;
    if (c->op == RMS)
      rstd = oracle_rmsnorm_row(x, c->n, B->w ? w : NULL, 1e-6, y);
    else
      rstd = oracle_layernorm_row(x, c->n, B->w ? w : NULL, B->b ? b : NULL, 1e-5, y, &mean);
    const double std = 1.0 / rstd;
    for (int64_t i = 0; i < c->n; i++) {
      const double tol =
          rownorm_tolerance(c->xt, c->n, y[i], (fabs(x[i]) + fabs(mean)) * rstd + 1.0, w[i], b[i]);
      nkl_cmp_add(&cmp, nkl_get(yrow, c->xt, i), y[i], tol, r * c->n + i);
    }
    const double gamma = ((double)c->n / 16.0 + 12.0) * 0x1p-24;
    nkl_cmp_add(&cmp, B->rstd[r], rstd, 4 * gamma * fabs(rstd), -1);
    if (c->op == LN) nkl_cmp_add(&cmp, B->mean[r], mean, 4 * gamma * (fabs(mean) + std), -1);
    if (cmp.bad > bad_before && getenv("NKL_TEST_DEBUG"))
      fprintf(stderr, "row %lld: %lld bad, rstd %.9g vs %.9g\n", (long long)r,
              (long long)(cmp.bad - bad_before), B->rstd[r], rstd);
  }
  CHECK(cmp.bad == 0,
        "%s %s x=%s w=%s m=%lld n=%lld fill=%d: %lld of %lld wrong; worst #%lld got %.9g want "
        "%.9g tol %.3g",
        tag, op_name(c->op), nkl_dtype_name(c->xt), c->wt < 0 ? "none" : nkl_dtype_name(c->wt),
        (long long)c->m, (long long)c->n, c->fill, (long long)cmp.bad, (long long)cmp.checked,
        (long long)cmp.worst, cmp.worst_got, cmp.worst_ref, cmp.worst_tol);
  /* strided rows: the padding between rows of y must be untouched */
  if (!c->in_place && c->yrs > c->n)
    for (int64_t r = 0; r < c->m; r++) {
      const unsigned char *pad = (const unsigned char *)B->y + (size_t)(r * c->yrs + c->n) * es;
      for (size_t k = 0; k < (size_t)(c->yrs - c->n) * es; k++)
        if (pad[k] != 0x55) {
          CHECK(false, "%s wrote into the row padding of y", tag);
          break;
        }
    }
  CHECK(tu_guard_ok(B->y) && tu_guard_ok(B->rstd) && tu_guard_ok(B->mean), "%s wrote out of bounds",
        tag);
  free(x);
  free(y);
  free(w);
  free(b);
}

static void run_case(const rn_case *c, uint64_t seed, const char *tag) {
  rn_bufs B;
  fill_case(c, &B, seed);
  const size_t xbytes = (size_t)(c->m * c->xrs) * nkl_dtype_size(c->xt);
  void *x_copy = malloc(xbytes);
  memcpy(x_copy, B.x, xbytes);
  CHECK_STATUS(call(c, &B), NKL_OK);
  compare(c, &B, x_copy, tag);
  free(x_copy);
  free_bufs(c, &B);
}

static const nkl_dtype kX[] = {NKL_F32, NKL_F16, NKL_BF16};

/* Edge sizes around the 16-lane vector: 1, primes, 15/16/17, 31..33, long rows. */
static const int64_t kN[] = {1,  2,  3,  5,  7,  13,  15,  16,   17,   31,
                             32, 33, 63, 64, 65, 127, 251, 1000, 4096, 16411};

static void sweep(op_t op) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (size_t j = 0; j < sizeof kN / sizeof kN[0]; j++)
        for (int wv = 0; wv < 3; wv++) {
          /* w/b absent, in x's dtype, or f32 */
          const int wt = wv == 0 ? -1 : wv == 1 ? (int)kX[d] : (int)NKL_F32;
          const int64_t n = kN[j], m = (n > 4096) ? 3 : (j % 3 == 0 ? 1 : 5);
          rn_case c = {op, kX[d], wt, op == LN && wv != 0 && j % 2 == 0, m, n, n, n, PLAIN, false};
          run_case(&c, 100 + j, nkl_isa_name(isas[k]));
        }
  }
}
static void test_rms_sweep(void) { sweep(RMS); }
static void test_ln_sweep(void) { sweep(LN); }

static void specials(op_t op) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (fill_t f = WITH_NAN; f <= SUBNORMAL_OUT; f++) {
        if (f == HUGE_VALUES && kX[d] == NKL_F16) continue;   /* 1e15 is not an f16 value */
        if (f == SUBNORMAL_OUT && kX[d] == NKL_F16) continue; /* 1e-39 is not an f16 value */
        const int64_t ns[] = {17, 1000, 4099};
        for (int j = 0; j < 3; j++) {
          rn_case c = {op, kX[d], (int)kX[d], op == LN, 4, ns[j], ns[j], ns[j], f, false};
          run_case(&c, 7 + j, nkl_isa_name(isas[k]));
        }
      }
  }
}
static void test_rms_specials(void) { specials(RMS); }
static void test_ln_specials(void) { specials(LN); }

/* NaN in one element makes that whole row NaN (and only that row), on every ISA: the
 * vector lanes and the scalar tail must agree. */
static void test_nan_row_propagates(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int op = RMS; op <= LN; op++)
      for (int64_t pos = 0; pos < 35; pos += 17) { /* in a full vector and in the tail */
        const int64_t n = 35, shape[2] = {2, n};
        float x[70], y[70];
        nkl_fill_normal(x, NKL_F32, 70, 3, 1.0);
        x[n + pos] = NAN;
        nkl_tensor tx = nkl_tensor_make(NKL_F32, 2, shape, x),
                   ty = nkl_tensor_make(NKL_F32, 2, shape, y);
        CHECK_STATUS(op == RMS ? nkl_rmsnorm_fwd(&tx, NULL, 1e-6f, &ty, NULL)
                               : nkl_layernorm_fwd(&tx, NULL, NULL, 1e-5f, &ty, NULL, NULL),
                     NKL_OK);
        for (int64_t i = 0; i < n; i++) {
          CHECK(!isnan(y[i]), "row 0 got NaN at %lld", (long long)i);
          CHECK(isnan(y[n + i]), "%s %s: row 1 element %lld not NaN (NaN at %lld)",
                nkl_isa_name(isas[k]), op_name((op_t)op), (long long)i, (long long)pos);
        }
      }
  }
}

/* A NaN in an f32 weight keeps its payload through y = (x * rstd) * w; rounding it to bf16
 * must still give a NaN. Payload 0x7FFFFF is the one whose round-to-nearest carry would
 * turn it into -0: the bf16 store may skip its NaN handling only for rows proven NaN-free,
 * which a NaN weight rules out (9 rows: enough for a thread to take that path). */
static void test_nan_payload_weight(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  enum { M = 9, N = 40, BAD = 5 };
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int op = RMS; op <= LN; op++) {
      const int64_t shape[2] = {M, N}, wshape[1] = {N};
      uint16_t x[M * N], y[M * N];
      float w[N], b[N];
      nkl_fill_normal(x, NKL_BF16, M * N, 11, 1.0);
      nkl_fill_normal(w, NKL_F32, N, 12, 1.0);
      nkl_fill_normal(b, NKL_F32, N, 13, 1.0);
      const uint32_t nan_bits = 0x7FFFFFFFu;
      memcpy(&w[BAD], &nan_bits, sizeof nan_bits);
      nkl_tensor tx = nkl_tensor_make(NKL_BF16, 2, shape, x),
                 ty = nkl_tensor_make(NKL_BF16, 2, shape, y),
                 tw = nkl_tensor_make(NKL_F32, 1, wshape, w),
                 tb = nkl_tensor_make(NKL_F32, 1, wshape, b);
      CHECK_STATUS(op == RMS ? nkl_rmsnorm_fwd(&tx, &tw, 1e-6f, &ty, NULL)
                             : nkl_layernorm_fwd(&tx, &tw, &tb, 1e-5f, &ty, NULL, NULL),
                   NKL_OK);
      for (int64_t i = 0; i < M * N; i++) {
        const int nan = isnan(nkl_get(y, NKL_BF16, i));
        CHECK(nan == (i % N == BAD), "%s %s: y[%lld] = 0x%04x", nkl_isa_name(isas[k]),
              op_name((op_t)op), (long long)i, y[i]);
      }
    }
  }
}

static void test_strided_and_in_place(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (int op = RMS; op <= LN; op++) {
        rn_case strided = {(op_t)op, kX[d], (int)kX[d], op == LN, 7, 100, 131, 117, PLAIN, false};
        run_case(&strided, 5, "strided");
        rn_case inplace = {(op_t)op, kX[d], (int)NKL_F32, op == LN, 6, 77, 80, 80, PLAIN, true};
        run_case(&inplace, 6, "in-place");
      }
  }
}

/* The same input gives bit-identical outputs and statistics on every ISA and with 1, 2 and
 * 3 threads (fixed partial-sum layout, rows independent). */
static void test_bitwise_agreement(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int op = RMS; op <= LN; op++)
    for (int d = 0; d < 6; d++) {
      const fill_t fill = d < 3 ? PLAIN : SUBNORMAL_OUT;
      if (fill == SUBNORMAL_OUT && kX[d % 3] == NKL_F16) continue;
      const int64_t m = 67, n = 1037; /* enough rows to go parallel; a tail of 13 */
      rn_case c = {(op_t)op, kX[d % 3], (int)kX[d % 3], false, m, n, n, n, fill, false};
      rn_bufs ref;
      fill_case(&c, &ref, 99);
      nkl_set_max_isa(NKL_ISA_SCALAR);
      nkl_set_num_threads(1);
      CHECK_STATUS(call(&c, &ref), NKL_OK);
      for (int k = 0; k < nisa; k++)
        for (int t = 1; t <= 3; t++) {
          rn_bufs B;
          fill_case(&c, &B, 99);
          nkl_set_max_isa(isas[k]);
          nkl_set_num_threads(t);
          CHECK_STATUS(call(&c, &B), NKL_OK);
          const size_t bytes = (size_t)(m * n) * nkl_dtype_size(c.xt);
          CHECK(memcmp(B.y, ref.y, bytes) == 0 && memcmp(B.rstd, ref.rstd, (size_t)m * 4) == 0 &&
                    memcmp(B.mean, ref.mean, (size_t)m * 4) == 0,
                "%s %s %s threads=%d differs from scalar/1 thread", op_name((op_t)op),
                nkl_dtype_name(c.xt), nkl_isa_name(isas[k]), t);
          free_bufs(&c, &B);
        }
      free_bufs(&c, &ref);
    }
}

/* From 64 rows (and rows up to 4096), 16-bit w and b are converted to f32 once per call and
 * the f32-weight kernel runs (rownorm.c, WB_F32_MAX_N): against the oracle, and bit for bit
 * the same rows as a 63-row call, which converts them per vector. */
static void test_wb_f32_path(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int op = RMS; op <= LN; op++)
      for (int d = 1; d < 3; d++)
        for (int64_t n = 4095; n <= 4097; n++) { /* 4097: past the limit */
          rn_case c = {(op_t)op, kX[d], (int)kX[d], op == LN, 64, n, n, n, WITH_NAN, false};
          run_case(&c, 7, "wb-f32");
          rn_bufs A, B;
          fill_case(&c, &A, 8);
          fill_case(&c, &B, 8);
          CHECK_STATUS(call(&c, &A), NKL_OK);
          c.m = 63;
          CHECK_STATUS(call(&c, &B), NKL_OK);
          const size_t bytes = (size_t)(63 * n) * nkl_dtype_size(c.xt);
          CHECK(memcmp(A.y, B.y, bytes) == 0 && memcmp(A.rstd, B.rstd, 63 * 4) == 0,
                "%s %s %s n=%lld: 64 rows differ from 63", op_name((op_t)op), nkl_dtype_name(c.xt),
                nkl_isa_name(isas[k]), (long long)n);
          c.m = 64;
          free_bufs(&c, &A);
          free_bufs(&c, &B);
        }
  }
}

/* The comparison itself must be able to fail: a one-ulp error in one output is caught. */
static void test_oracle_detects_errors(void) {
  rn_case c = {RMS, NKL_BF16, NKL_BF16, false, 3, 64, 64, 64, PLAIN, false};
  rn_bufs B;
  fill_case(&c, &B, 11);
  CHECK_STATUS(call(&c, &B), NKL_OK);
  uint16_t *y = B.y;
  const double before = nkl_get(y, NKL_BF16, 70);
  y[70] = (uint16_t)(y[70] + 2); /* two bf16 ulps */
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  double x[64], yr[64], w[64];
  for (int i = 0; i < 64; i++)
    x[i] = nkl_get(B.x, NKL_BF16, 64 + i), w[i] = nkl_get(B.w, NKL_BF16, i);
  oracle_rmsnorm_row(x, 64, w, 1e-6, yr);
  const double tol =
      rownorm_tolerance(NKL_BF16, 64, yr[6], (fabs(x[6]) + 1.0 / B.rstd[1]) * B.rstd[1], w[6], 0);
  CHECK(!nkl_cmp_add(&cmp, nkl_get(y, NKL_BF16, 70), yr[6], tol, 70),
        "2-ulp error went unnoticed (%g -> %g, ref %g, tol %g)", before, nkl_get(y, NKL_BF16, 70),
        yr[6], tol);
  free_bufs(&c, &B);
}

/* Every invalid argument returns its specific status, names the problem, and leaves the
 * output untouched. */
static void test_bad_input(void) {
  int64_t shape[2] = {4, 8}, n8 = 8, n7 = 7, m4 = 4;
  float x[32], y[32], w[8], stat[4];
  uint16_t w16[8] = {0};
  nkl_fill_normal(x, NKL_F32, 32, 1, 1.0);
  nkl_fill_normal(w, NKL_F32, 8, 2, 1.0);
  for (int i = 0; i < 32; i++) y[i] = 12345.0f;
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 2, shape, x), ty = nkl_tensor_make(NKL_F32, 2, shape, y);
  nkl_tensor tw = nkl_tensor_make(NKL_F32, 1, &n8, w), ts = nkl_tensor_make(NKL_F32, 1, &m4, stat);
  nkl_tensor t;

  CHECK_STATUS(nkl_rmsnorm_fwd(NULL, &tw, 1e-6f, &ty, NULL), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &tw, 1e-6f, NULL, NULL), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_layernorm_fwd(NULL, NULL, NULL, 1e-5f, &ty, NULL, NULL), NKL_ERR_NULL_POINTER);
  t = tx, t.data = NULL;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_NULL_POINTER);
  t = tx, t.dtype = NKL_I32;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_DTYPE);
  t = tx, t.dtype = (nkl_dtype)77;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_DTYPE);
  t = ty, t.dtype = NKL_BF16;
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &tw, 1e-6f, &t, NULL), NKL_ERR_BAD_DTYPE);
  t = tx, t.rank = 0;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_SHAPE);
  t = tx, t.rank = 9;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_RANK);
  t = tx, t.shape[0] = 0;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_SHAPE);
  t = tx, t.shape[1] = -3;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_SHAPE);
  t = ty, t.shape[0] = 3;
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &tw, 1e-6f, &t, NULL), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_F32, 1, &n7, w);
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &t, 1e-6f, &ty, NULL), NKL_ERR_BAD_SHAPE);
  CHECK(strstr(nkl_last_error(), "w has 7 elements") != NULL, "message: %s", nkl_last_error());
  t = nkl_tensor_make(NKL_F16, 1, &n8, w16);
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &t, 1e-6f, &ty, NULL), NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 2, shape, w);
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &t, 1e-6f, &ty, NULL), NKL_ERR_BAD_RANK);
  t = tx, t.strides[1] = 2;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_STRIDE);
  /* a message from a shared check names the entry point, that of this call (not the last) */
  CHECK(strncmp(nkl_last_error(), "bad stride: rmsnorm_fwd: x ", 27) == 0, "message: %s",
        nkl_last_error());
  CHECK_STATUS(nkl_layernorm_fwd(&t, &tw, NULL, 1e-5f, &ty, NULL, NULL), NKL_ERR_BAD_STRIDE);
  CHECK(strncmp(nkl_last_error(), "bad stride: layernorm_fwd: x ", 29) == 0, "message: %s",
        nkl_last_error());
  t = tx, t.strides[0] = 4; /* rows overlap each other */
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_STRIDE);
  t = tx, t.strides[0] = -8;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_STRIDE);
  t = tx, t.shape[0] = INT64_MAX / 2, t.strides[0] = 8;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t, &tw, 1e-6f, &ty, NULL), NKL_ERR_OVERFLOW);
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &tw, -1.0f, &ty, NULL), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &tw, NAN, &ty, NULL), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_layernorm_fwd(&tx, &tw, NULL, INFINITY, &ty, NULL, NULL), NKL_ERR_BAD_PARAM);
  t = nkl_tensor_make(NKL_F32, 1, &n7, stat);
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &tw, 1e-6f, &ty, &t), NKL_ERR_BAD_SHAPE);
  t = ts, t.dtype = NKL_BF16;
  CHECK_STATUS(nkl_layernorm_fwd(&tx, &tw, NULL, 1e-5f, &ty, &t, NULL), NKL_ERR_BAD_DTYPE);
  /* partial overlap of y with x is rejected; exact in-place is fine */
  t = tx, t.data = x + 1, t.shape[0] = 3;
  nkl_tensor t2 = tx;
  t2.shape[0] = 3;
  CHECK_STATUS(nkl_rmsnorm_fwd(&t2, &tw, 1e-6f, &t, NULL), NKL_ERR_ALIAS);
  t = nkl_tensor_make(NKL_F32, 1, &n8, y + 8); /* b inside y */
  CHECK_STATUS(nkl_layernorm_fwd(&tx, &tw, &t, 1e-5f, &ty, NULL, NULL), NKL_ERR_ALIAS);
  /* after all the failures above, y must still hold the sentinel */
  t = ty, t.shape[0] = 5;
  CHECK_STATUS(nkl_layernorm_fwd(&tx, &tw, NULL, 1e-5f, &t, NULL, NULL), NKL_ERR_BAD_SHAPE);
  for (int i = 0; i < 32; i++) CHECK(y[i] == 12345.0f, "y[%d] touched by a failed call", i);
  CHECK(strlen(nkl_last_error()) > 10, "no message");
  /* success clears the message */
  CHECK_STATUS(nkl_rmsnorm_fwd(&tx, &tw, 1e-6f, &ty, NULL), NKL_OK);
  CHECK(nkl_last_error()[0] == '\0', "stale message after success: %s", nkl_last_error());
  CHECK(strstr(nkl_last_kernel(), "rmsnorm_fwd") != NULL, "kernel name: %s", nkl_last_kernel());
}

int main(void) {
  tu_run("rms_sweep_isas_dtypes_sizes", test_rms_sweep);
  tu_run("ln_sweep_isas_dtypes_sizes", test_ln_sweep);
  tu_run("rms_nan_inf_huge_tiny_constant", test_rms_specials);
  tu_run("ln_nan_inf_huge_tiny_constant", test_ln_specials);
  tu_run("nan_row_propagates_every_lane", test_nan_row_propagates);
  tu_run("nan_payload_in_f32_weight", test_nan_payload_weight);
  tu_run("strided_rows_and_in_place", test_strided_and_in_place);
  tu_run("bitwise_agreement_isas_threads", test_bitwise_agreement);
  tu_run("wb_f32_path", test_wb_f32_path);
  tu_run("oracle_detects_errors", test_oracle_detects_errors);
  tu_run("bad_input", test_bad_input);
  return tu_summary();
}
