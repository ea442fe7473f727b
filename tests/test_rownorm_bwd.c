/* RMSNormBwd and LayerNormBwd against the double-precision oracle: every ISA, dtype pair,
 * edge sizes, strided rows, in-place dx, NaN/Inf and extreme values; dx, dw and db
 * bit-identical across ISAs and 1, 2, 3 threads (fixed chunked partial sums); every
 * bad-input path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef enum { PLAIN, WITH_NAN, WITH_INF, HUGE_VALUES, TINY_VALUES } fill_t;

typedef struct {
  bool ln;
  nkl_dtype xt;
  int wt; /* -1: no w */
  int64_t m, n, rs;
  fill_t fill;
  bool in_place; /* dx = dy */
  bool grads;    /* compute dw (and db) */
} bc;

typedef struct {
  void *x, *dy, *dx, *w, *dw, *db;
  float *mean, *rstd;
} bb;

static nkl_dtype gt(const bc *c) { return c->wt < 0 ? c->xt : (nkl_dtype)c->wt; }

static void *rows(const bc *c, uint64_t seed, double scale) {
  const size_t es = nkl_dtype_size(c->xt), bytes = (size_t)(c->m * c->rs) * es;
  void *p = tu_alloc(bytes);
  memset(p, 0x7F, bytes);
  for (int64_t r = 0; r < c->m; r++)
    nkl_fill_normal((char *)p + (size_t)(r * c->rs) * es, c->xt, c->n, seed + (uint64_t)r, scale);
  return p;
}

static void fill_case(const bc *c, bb *B, uint64_t seed) {
  memset(B, 0, sizeof *B);
  const double scale = c->fill == HUGE_VALUES ? 1e15 : c->fill == TINY_VALUES ? 1e-12 : 1.0;
  B->x = rows(c, seed, scale);
  B->dy = rows(c, seed ^ 0x3333, c->fill == HUGE_VALUES || c->fill == TINY_VALUES ? scale : 1.0);
  const size_t es = nkl_dtype_size(c->xt);
  if (c->fill == WITH_NAN)
    nkl_set((char *)B->x + (size_t)(c->m / 2 * c->rs) * es, c->xt, c->n / 2, NAN);
  if (c->fill == WITH_INF)
    nkl_set((char *)B->dy + (size_t)(c->m / 2 * c->rs) * es, c->xt, c->n - 1, INFINITY);
  if (c->in_place)
    B->dx = B->dy;
  else {
    B->dx = tu_alloc((size_t)(c->m * c->rs) * es);
    memset(B->dx, 0x55, (size_t)(c->m * c->rs) * es);
  }
  if (c->wt >= 0) {
    B->w = tu_alloc((size_t)c->n * 4);
    nkl_fill_normal(B->w, (nkl_dtype)c->wt, c->n, seed ^ 0xABCD, 1.0);
  }
  B->dw = tu_alloc((size_t)c->n * 4);
  B->db = tu_alloc((size_t)c->n * 4);
  memset(B->dw, 0x55, (size_t)c->n * 4);
  memset(B->db, 0x55, (size_t)c->n * 4);
  /* statistics from a forward pass over x (double, rounded to f32), eps per the spec */
  B->mean = tu_alloc((size_t)c->m * 4);
  B->rstd = tu_alloc((size_t)c->m * 4);
  double *x = malloc((size_t)c->n * 8), *y = malloc((size_t)c->n * 8);
  for (int64_t r = 0; r < c->m; r++) {
    for (int64_t i = 0; i < c->n; i++)
      x[i] = nkl_get((char *)B->x + (size_t)(r * c->rs) * es, c->xt, i);
    double mean = 0.0;
    const double rstd = c->ln ? oracle_layernorm_row(x, c->n, NULL, NULL, 1e-5, y, &mean)
                              : oracle_rmsnorm_row(x, c->n, NULL, 1e-6, y);
    B->mean[r] = (float)mean, B->rstd[r] = (float)rstd;
  }
  free(x), free(y);
}

static void free_bufs(const bc *c, bb *B) {
  tu_free(B->x), tu_free(B->dy), tu_free(B->w), tu_free(B->dw), tu_free(B->db);
  if (!c->in_place) tu_free(B->dx);
  tu_free(B->mean), tu_free(B->rstd);
}

static nkl_tensor rows_t(const bc *c, void *p) {
  const int64_t shape[2] = {c->m, c->n};
  nkl_tensor t = nkl_tensor_make(c->xt, 2, shape, p);
  t.strides[0] = c->rs;
  return t;
}

static nkl_status call(const bc *c, bb *B) {
  nkl_tensor x = rows_t(c, B->x), dy = rows_t(c, B->dy), dx = rows_t(c, B->dx);
  nkl_tensor w = nkl_tensor_make(gt(c), 1, &c->n, B->w),
             dw = nkl_tensor_make(gt(c), 1, &c->n, B->dw);
  nkl_tensor db = nkl_tensor_make(gt(c), 1, &c->n, B->db);
  nkl_tensor mean = nkl_tensor_make(NKL_F32, 1, &c->m, B->mean),
             rstd = nkl_tensor_make(NKL_F32, 1, &c->m, B->rstd);
  const nkl_tensor *pw = c->wt >= 0 ? &w : NULL;
  if (c->ln)
    return nkl_layernorm_bwd(&x, &dy, pw, &mean, &rstd, &dx, c->grads ? &dw : NULL,
                             c->grads ? &db : NULL);
  return nkl_rmsnorm_bwd(&x, &dy, pw, &rstd, &dx, c->grads ? &dw : NULL);
}

static int64_t g_last_bad;
static bool g_expect_bad;

static void compare(const bc *c, const bb *B, const void *x_in, const void *dy_in,
                    const char *tag) {
  const int64_t n = c->n;
  const size_t es = nkl_dtype_size(c->xt);
  double *x = malloc((size_t)n * 8), *dy = malloc((size_t)n * 8), *w = malloc((size_t)n * 8);
  double *dx = malloc((size_t)n * 8), *ts = malloc((size_t)n * 8);
  double *dw = calloc((size_t)n, 8), *db = calloc((size_t)n, 8), *adw = calloc((size_t)n, 8),
         *adb = calloc((size_t)n, 8);
  for (int64_t i = 0; i < n; i++) w[i] = c->wt >= 0 ? nkl_get(B->w, gt(c), i) : 1.0;
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  for (int64_t r = 0; r < c->m; r++) {
    for (int64_t i = 0; i < n; i++) {
      x[i] = nkl_get((const char *)x_in + (size_t)(r * c->rs) * es, c->xt, i);
      dy[i] = nkl_get((const char *)dy_in + (size_t)(r * c->rs) * es, c->xt, i);
    }
    const double mean = c->ln ? B->mean[r] : 0.0, rstd = B->rstd[r];
    oracle_rownorm_bwd_row(x, dy, c->wt >= 0 ? w : NULL, n, mean, rstd, c->ln, dx, dw, db, ts);
    for (int64_t i = 0; i < n; i++) {
      adw[i] += fabs(dy[i] * (x[i] - mean) * rstd), adb[i] += fabs(dy[i]);
      const double tol =
          nkl_unit_roundoff(c->xt) * fabs(dx[i]) + nkl_denorm_min(c->xt) + 4 * gamma * ts[i];
      nkl_cmp_add(&cmp, nkl_get((const char *)B->dx + (size_t)(r * c->rs) * es, c->xt, i), dx[i],
                  tol, r * n + i);
    }
  }
  if (c->grads) {
    /* m sequential f32 adds per column (chunk partials, then chunks in order) */
    const double gm = ((double)c->m + 8.0) * 0x1p-24 + 8 * 0x1p-24;
    for (int64_t i = 0; i < n; i++) {
      nkl_cmp_add(&cmp, nkl_get(B->dw, gt(c), i), dw[i],
                  nkl_unit_roundoff(gt(c)) * fabs(dw[i]) + nkl_denorm_min(gt(c)) + 2 * gm * adw[i],
                  -2);
      if (c->ln)
        nkl_cmp_add(
            &cmp, nkl_get(B->db, gt(c), i), db[i],
            nkl_unit_roundoff(gt(c)) * fabs(db[i]) + nkl_denorm_min(gt(c)) + 2 * gm * adb[i], -3);
    }
  }
  g_last_bad = cmp.bad;
  CHECK(cmp.bad == 0 || g_expect_bad,
        "%s %s x=%s w=%s m=%lld n=%lld fill=%d: %lld of %lld wrong; worst #%lld got %.9g want %.9g "
        "tol %.3g",
        tag, c->ln ? "ln_bwd" : "rms_bwd", nkl_dtype_name(c->xt),
        c->wt < 0 ? "none" : nkl_dtype_name(gt(c)), (long long)c->m, (long long)n, c->fill,
        (long long)cmp.bad, (long long)cmp.checked, (long long)cmp.worst, cmp.worst_got,
        cmp.worst_ref, cmp.worst_tol);
  if (!c->in_place && c->rs > n)
    for (int64_t r = 0; r < c->m; r++) {
      const unsigned char *pad = (const unsigned char *)B->dx + (size_t)(r * c->rs + n) * es;
      bool ok = true;
      for (size_t k = 0; k < (size_t)(c->rs - n) * es; k++) ok = ok && pad[k] == 0x55;
      CHECK(ok, "%s wrote into the row padding of dx", tag);
    }
  CHECK(tu_guard_ok(B->dx) && tu_guard_ok(B->dw) && tu_guard_ok(B->db), "%s wrote out of bounds",
        tag);
  if (!c->grads || !c->ln)
    for (int64_t i = 0; i < n; i++)
      CHECK(
          ((unsigned char *)B->db)[i] == 0x55 && (c->grads || ((unsigned char *)B->dw)[i] == 0x55),
          "%s wrote a gradient that was not asked for", tag);
  free(x), free(dy), free(w), free(dx), free(ts), free(dw), free(db), free(adw), free(adb);
}

static void run_case(const bc *c, uint64_t seed, const char *tag) {
  bb B;
  fill_case(c, &B, seed);
  const size_t bytes = (size_t)(c->m * c->rs) * nkl_dtype_size(c->xt);
  void *x = malloc(bytes), *dy = malloc(bytes);
  memcpy(x, B.x, bytes), memcpy(dy, B.dy, bytes);
  CHECK_STATUS(call(c, &B), NKL_OK);
  compare(c, &B, x, dy, tag);
  free(x), free(dy);
  free_bufs(c, &B);
}

static const nkl_dtype kX[] = {NKL_F32, NKL_F16, NKL_BF16};
static const int64_t kN[] = {1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 65, 127, 251, 1000, 4096, 16411};

static void sweep(bool ln) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (size_t j = 0; j < sizeof kN / sizeof kN[0]; j++)
        for (int wv = 0; wv < 3; wv++) {
          const int wt = wv == 0 ? -1 : wv == 1 ? (int)kX[d] : (int)NKL_F32;
          const int64_t n = kN[j], m = n > 4096 ? 3 : (j % 3 == 0 ? 1 : j % 3 == 1 ? 7 : 45);
          const bc c = {ln, kX[d], wt, m, n, n, PLAIN, false, wv != 2 || j % 2 == 0};
          run_case(&c, 100 + j, nkl_isa_name(isas[k]));
        }
  }
}
static void test_rms_sweep(void) { sweep(false); }
static void test_ln_sweep(void) { sweep(true); }

static void specials(bool ln) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (fill_t f = WITH_NAN; f <= TINY_VALUES; f++) {
        if (f == HUGE_VALUES && kX[d] == NKL_F16) continue; /* 1e15 is not an f16 value */
        const int64_t ns[] = {17, 1000};
        for (int j = 0; j < 2; j++) {
          const bc c = {ln, kX[d], (int)kX[d], 6, ns[j], ns[j], f, false, true};
          run_case(&c, 7 + j, nkl_isa_name(isas[k]));
        }
        const bc s = {ln, kX[d], (int)kX[d], 7, 100, 131, f, false, true};
        run_case(&s, 5, "strided");
        const bc ip = {ln, kX[d], (int)NKL_F32, 6, 77, 80, f, true, true};
        run_case(&ip, 6, "in-place");
      }
  }
}
static void test_rms_specials(void) { specials(false); }
static void test_ln_specials(void) { specials(true); }

/* dx, dw, db bit-identical on every ISA and with 1, 2, 3 threads; m = 75 puts several rows
 * in each of the 32 chunks. */
/* An f32 weight NaN whose payload (0x7FFFFF) would round to -0 in bf16 makes every dx of
 * its rows NaN (through mean(g * z)): the bf16 store may skip its NaN handling only for
 * rows with finite sums. */
static void test_nan_payload_weight(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  enum { M = 6, N = 40 };
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    const int64_t shape[2] = {M, N}, wshape[1] = {N}, rshape[1] = {M};
    uint16_t x[M * N], dy[M * N], dx[M * N];
    float w[N], rstd[M];
    nkl_fill_normal(x, NKL_BF16, M * N, 21, 1.0);
    nkl_fill_normal(dy, NKL_BF16, M * N, 22, 1.0);
    nkl_fill_normal(w, NKL_F32, N, 23, 1.0);
    for (int r = 0; r < M; r++) rstd[r] = 0.75f;
    const uint32_t nan_bits = 0x7FFFFFFFu;
    memcpy(&w[7], &nan_bits, sizeof nan_bits);
    nkl_tensor tx = nkl_tensor_make(NKL_BF16, 2, shape, x),
               tdy = nkl_tensor_make(NKL_BF16, 2, shape, dy),
               tdx = nkl_tensor_make(NKL_BF16, 2, shape, dx),
               tw = nkl_tensor_make(NKL_F32, 1, wshape, w),
               tr = nkl_tensor_make(NKL_F32, 1, rshape, rstd);
    CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &tw, &tr, &tdx, NULL), NKL_OK);
    for (int64_t i = 0; i < M * N; i++)
      CHECK(isnan(nkl_get(dx, NKL_BF16, i)), "%s: dx[%lld] = 0x%04x, want NaN",
            nkl_isa_name(isas[k]), (long long)i, dx[i]);
  }
}

static void test_bitwise_agreement(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int ln = 0; ln < 2; ln++)
    for (int d = 0; d < 3; d++) {
      const bc c = {ln, kX[d], (int)kX[d], 75, 1037, 1037, PLAIN, false, true};
      bb ref;
      fill_case(&c, &ref, 99);
      nkl_set_max_isa(NKL_ISA_SCALAR);
      nkl_set_num_threads(1);
      CHECK_STATUS(call(&c, &ref), NKL_OK);
      const size_t es = nkl_dtype_size(c.xt);
      for (int k = 0; k < nisa; k++)
        for (int t = 1; t <= 3; t++) {
          bb B;
          fill_case(&c, &B, 99);
          nkl_set_max_isa(isas[k]);
          nkl_set_num_threads(t);
          CHECK_STATUS(call(&c, &B), NKL_OK);
          CHECK(memcmp(B.dx, ref.dx, (size_t)(c.m * c.n) * es) == 0 &&
                    memcmp(B.dw, ref.dw, (size_t)c.n * es) == 0 &&
                    memcmp(B.db, ref.db, (size_t)c.n * es) == 0,
                "%s %s %s threads=%d differs from scalar/1 thread", ln ? "ln" : "rms",
                nkl_dtype_name(c.xt), nkl_isa_name(isas[k]), t);
          free_bufs(&c, &B);
        }
      free_bufs(&c, &ref);
    }
}

static void test_oracle_detects_errors(void) {
  const bc c = {true, NKL_BF16, NKL_BF16, 5, 64, 64, PLAIN, false, true};
  bb B;
  fill_case(&c, &B, 11);
  const size_t bytes = (size_t)(c.m * c.rs) * 2;
  void *x = malloc(bytes), *dy = malloc(bytes);
  memcpy(x, B.x, bytes), memcpy(dy, B.dy, bytes);
  CHECK_STATUS(call(&c, &B), NKL_OK);
  g_expect_bad = true;
  for (int which = 0; which < 3; which++) {
    uint16_t *p = which == 0   ? (uint16_t *)B.dx + 70
                  : which == 1 ? (uint16_t *)B.dw + 5
                               : (uint16_t *)B.db + 9;
    const uint16_t keep = *p;
    *p = (uint16_t)(*p + 2); /* two bf16 ulps */
    compare(&c, &B, x, dy, "perturbed");
    CHECK(g_last_bad == 1, "perturbed output %d gave %lld mismatches, want 1", which,
          (long long)g_last_bad);
    *p = keep;
  }
  g_expect_bad = false;
  free(x), free(dy);
  free_bufs(&c, &B);
}

static void test_bad_input(void) {
  int64_t shape[2] = {4, 8}, s38[2] = {3, 8}, n8 = 8, n7 = 7, m4 = 4, m3 = 3;
  float x[32], dy[32], dx[32], w[8], dw[8], db[8], mean[4], rstd[4];
  uint16_t h[32] = {0};
  nkl_fill_normal(x, NKL_F32, 32, 1, 1.0);
  nkl_fill_normal(dy, NKL_F32, 32, 2, 1.0);
  nkl_fill_normal(w, NKL_F32, 8, 3, 1.0);
  for (int i = 0; i < 4; i++) mean[i] = 0.1f, rstd[i] = 1.2f;
  for (int i = 0; i < 32; i++) dx[i] = 12345.0f;
  for (int i = 0; i < 8; i++) dw[i] = db[i] = 777.0f;
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 2, shape, x),
             tdy = nkl_tensor_make(NKL_F32, 2, shape, dy);
  nkl_tensor tdx = nkl_tensor_make(NKL_F32, 2, shape, dx), tw = nkl_tensor_make(NKL_F32, 1, &n8, w);
  nkl_tensor tdw = nkl_tensor_make(NKL_F32, 1, &n8, dw), tdb = nkl_tensor_make(NKL_F32, 1, &n8, db);
  nkl_tensor tm = nkl_tensor_make(NKL_F32, 1, &m4, mean),
             tr = nkl_tensor_make(NKL_F32, 1, &m4, rstd);
  nkl_tensor t;
  CHECK_STATUS(nkl_rmsnorm_bwd(NULL, &tdy, &tw, &tr, &tdx, &tdw), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, NULL, &tw, &tr, &tdx, &tdw), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &tw, NULL, &tdx, &tdw), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_layernorm_bwd(&tx, &tdy, &tw, NULL, &tr, &tdx, &tdw, &tdb),
               NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &tw, &tr, NULL, &tdw), NKL_ERR_NULL_POINTER);
  t = nkl_tensor_make(NKL_BF16, 2, shape, h);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &t, &tw, &tr, &tdx, &tdw), NKL_ERR_BAD_DTYPE);
  t = tx, t.dtype = NKL_I32;
  CHECK_STATUS(nkl_rmsnorm_bwd(&t, &tdy, &tw, &tr, &tdx, &tdw), NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 2, s38, dy);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &t, &tw, &tr, &tdx, &tdw), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_F32, 1, &n7, w);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &t, &tr, &tdx, &tdw), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_F32, 1, &m3, rstd);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &tw, &t, &tdx, &tdw), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_BF16, 1, &n8, h);
  CHECK_STATUS(nkl_layernorm_bwd(&tx, &tdy, &tw, &tm, &tr, &tdx, &tdw, &t), NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 2, shape, w);
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &t, &tr, &tdx, &tdw), NKL_ERR_BAD_RANK);
  t = tdx, t.strides[1] = 2;
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &tw, &tr, &t, &tdw), NKL_ERR_BAD_STRIDE);
  t = tdx, t.data = dy + 1, t.shape[0] = 3;
  nkl_tensor t2 = tx, t3 = tdy;
  t2.shape[0] = t3.shape[0] = 3;
  nkl_tensor tr3 = nkl_tensor_make(NKL_F32, 1, &m3, rstd);
  CHECK_STATUS(nkl_rmsnorm_bwd(&t2, &t3, &tw, &tr3, &t, &tdw), NKL_ERR_ALIAS);
  t = nkl_tensor_make(NKL_F32, 1, &n8, dx + 8); /* dw inside dx */
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &tw, &tr, &tdx, &t), NKL_ERR_ALIAS);
  t = nkl_tensor_make(NKL_F32, 1, &n8, w); /* dw is w */
  CHECK_STATUS(nkl_rmsnorm_bwd(&tx, &tdy, &tw, &tr, &tdx, &t), NKL_ERR_ALIAS);
  CHECK_STATUS(nkl_layernorm_bwd(&tx, &tdy, &tw, &tm, &tr, &tdx, &tdw, &tdw), NKL_ERR_ALIAS);
  for (int i = 0; i < 32; i++) CHECK(dx[i] == 12345.0f, "dx[%d] touched by a failed call", i);
  for (int i = 0; i < 8; i++) CHECK(dw[i] == 777.0f && db[i] == 777.0f, "dw/db[%d] touched", i);
  CHECK(strlen(nkl_last_error()) > 10, "no message");
  CHECK_STATUS(nkl_layernorm_bwd(&tx, &tdy, &tw, &tm, &tr, &tdy, &tdw, &tdb), NKL_OK); /* dx = dy */
  CHECK(strstr(nkl_last_kernel(), "layernorm_bwd") != NULL, "kernel: %s", nkl_last_kernel());
}

int main(void) {
  tu_run("rms_bwd_sweep_isas_dtypes_sizes", test_rms_sweep);
  tu_run("ln_bwd_sweep_isas_dtypes_sizes", test_ln_sweep);
  tu_run("rms_bwd_nan_inf_huge_tiny_strided_in_place", test_rms_specials);
  tu_run("ln_bwd_nan_inf_huge_tiny_strided_in_place", test_ln_specials);
  tu_run("nan_payload_in_f32_weight", test_nan_payload_weight);
  tu_run("bitwise_agreement_isas_threads", test_bitwise_agreement);
  tu_run("oracle_detects_errors", test_oracle_detects_errors);
  tu_run("bad_input", test_bad_input);
  return tu_summary();
}
