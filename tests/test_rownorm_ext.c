/* The row-norm variants (GemmaRMSNorm, FusedAdd{RMS,Layer}Norm, AdaLayerNorm, QKNorm,
 * GroupRMSNorm, {RMS,Layer}NormQuant, WeightNorm) against the double-precision oracle:
 * every ISA, dtype pair, edge sizes, strided rows, in-place, NaN/Inf and extreme values;
 * bit agreement across ISAs and thread counts; every bad-input path. The fp8 encoders
 * alone are in test_fp8.c. */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef enum { GEMMA, FADD_RMS, FADD_LN, ADALN, QK, GROUP, RMSQ, LNQ, WN, NOPS } op_t;
static const char *const kOp[] = {"gemma", "fadd_rms", "fadd_ln", "adaln", "qk",
                                  "group", "rmsq",     "lnq",     "wn"};
/* OFFSET_ROWS: row r is shifted by 0.4 r (the last row by 100), so the rows' mean^2 / var
 * runs from 0 through LayerNormQuant's one-pass threshold (1) to 10^4. */
typedef enum {
  PLAIN,
  WITH_NAN,
  WITH_INF,
  HUGE_VALUES,
  TINY_VALUES,
  CONSTANT_ROW,
  OFFSET_ROWS
} fill_t;

enum { kGroups = 3 }; /* GROUP: x is [m / 3, 3, n] when m % 3 == 0, else [m, 1, n] */

typedef struct {
  op_t op;
  nkl_dtype xt, wt;
  int64_t m, n, rs; /* rows, row length, row stride of x, y, residual, residual_out, k */
  fill_t fill;
  bool in_place; /* fused: residual_out = residual; else y = x */
} ec;

typedef struct {
  void *x, *res, *w, *b, *g, *y, *ro, *k, *kw, *ky;
  float *mean, *rstd, *scale;
} eb;

static bool is_quant(op_t op) { return op == RMSQ || op == LNQ; }
static bool is_fused(op_t op) { return op == FADD_RMS || op == FADD_LN; }
static bool is_ln(op_t op) { return op == FADD_LN || op == ADALN || op == LNQ; }
static int64_t groups(const ec *c) { return c->m % kGroups == 0 ? kGroups : 1; }
static nkl_dtype yt(const ec *c) { return is_quant(c->op) ? NKL_FP8_E4M3 : c->xt; }
static double eps_of(op_t op) { return is_ln(op) ? 1e-5 : 1e-6; }
/* elements of w (and b): one row, G rows, or one per row of x */
static int64_t wlen(const ec *c) {
  return c->op == ADALN ? c->m * c->n : c->op == GROUP ? groups(c) * c->n : c->n;
}

static void *rows_alloc(const ec *c, nkl_dtype dt, uint64_t seed, double scale) {
  const size_t es = nkl_dtype_size(dt);
  void *p = tu_alloc((size_t)(c->m * c->rs) * es);
  memset(p, 0x7F, (size_t)(c->m * c->rs) * es); /* row padding: garbage */
  for (int64_t r = 0; r < c->m; r++) {
    void *row = (char *)p + (size_t)(r * c->rs) * es;
    nkl_fill_normal(row, dt, c->n, seed + (uint64_t)r, scale);
    if (c->fill == CONSTANT_ROW)
      for (int64_t i = 0; i < c->n; i++) nkl_set(row, dt, i, 3.25);
    if (c->fill == OFFSET_ROWS)
      for (int64_t i = 0; i < c->n; i++)
        nkl_set(row, dt, i, nkl_get(row, dt, i) + (r == c->m - 1 ? 100.0 : 0.4 * (double)r));
    if (r == c->m / 2 && c->fill == WITH_NAN) nkl_set(row, dt, c->n / 2, NAN);
    if (r == c->m / 2 && c->fill == WITH_INF) nkl_set(row, dt, c->n - 1, -INFINITY);
  }
  return p;
}

static void *out_alloc(const ec *c, nkl_dtype dt) {
  const size_t bytes = (size_t)(c->m * c->rs) * nkl_dtype_size(dt);
  void *p = tu_alloc(bytes);
  memset(p, 0x55, bytes);
  return p;
}

static float *stat_alloc(int64_t m) {
  float *p = tu_alloc((size_t)m * 4);
  memset(p, 0, (size_t)m * 4);
  return p;
}

static void fill_case(const ec *c, eb *B, uint64_t seed) {
  memset(B, 0, sizeof *B);
  const double scale = c->fill == HUGE_VALUES ? 1e15 : c->fill == TINY_VALUES ? 1e-12 : 1.0;
  B->x = rows_alloc(c, c->xt, seed, scale);
  if (is_fused(c->op)) {
    B->res = rows_alloc(c, c->xt, seed ^ 0x5555, scale);
    B->ro = c->in_place ? B->res : out_alloc(c, c->xt);
  }
  if (c->op == QK) {
    B->k = rows_alloc(c, c->xt, seed ^ 0x7777, scale);
    B->ky = out_alloc(c, c->xt);
    B->kw = tu_alloc((size_t)c->n * 4);
    nkl_fill_normal(B->kw, c->wt, c->n, seed ^ 0x999, 1.0);
  }
  B->y = c->in_place && !is_fused(c->op) ? B->x : out_alloc(c, yt(c));
  if (c->op == WN) {
    B->g = tu_alloc((size_t)c->m * 4);
    nkl_fill_normal(B->g, c->wt, c->m, seed ^ 0xABC, 1.0);
  } else {
    B->w = tu_alloc((size_t)wlen(c) * 4);
    nkl_fill_normal(B->w, c->wt, wlen(c), seed ^ 0xABCD, c->op == GEMMA ? 0.5 : 1.0);
    if (is_ln(c->op)) {
      B->b = tu_alloc((size_t)wlen(c) * 4);
      nkl_fill_normal(B->b, c->wt, wlen(c), seed ^ 0x1234, 1.0);
    }
  }
  B->mean = stat_alloc(c->m);
  B->rstd = stat_alloc(c->m);
  B->scale = stat_alloc(c->m);
}

static void free_bufs(const ec *c, eb *B) {
  tu_free(B->x);
  tu_free(B->res);
  if (!(is_fused(c->op) && c->in_place)) tu_free(B->ro);
  if (!(c->in_place && !is_fused(c->op))) tu_free(B->y);
  tu_free(B->k);
  tu_free(B->kw);
  tu_free(B->ky);
  tu_free(B->w);
  tu_free(B->b);
  tu_free(B->g);
  tu_free(B->mean);
  tu_free(B->rstd);
  tu_free(B->scale);
}

/* x-like tensor: [m, n] with row stride rs, or [m / G, G, n] for group RMSNorm. */
static nkl_tensor rows_tensor(const ec *c, nkl_dtype dt, void *p) {
  if (c->op == GROUP) {
    const int64_t G = groups(c), shape[3] = {c->m / G, G, c->n};
    nkl_tensor t = nkl_tensor_make(dt, 3, shape, p);
    t.strides[0] = G * c->rs, t.strides[1] = c->rs;
    return t;
  }
  const int64_t shape[2] = {c->m, c->n};
  nkl_tensor t = nkl_tensor_make(dt, 2, shape, p);
  t.strides[0] = c->rs;
  return t;
}

static nkl_status call(const ec *c, eb *B) {
  nkl_tensor x = rows_tensor(c, c->xt, B->x), y = rows_tensor(c, yt(c), B->y);
  nkl_tensor res = rows_tensor(c, c->xt, B->res), ro = rows_tensor(c, c->xt, B->ro);
  nkl_tensor k = rows_tensor(c, c->xt, B->k), ky = rows_tensor(c, c->xt, B->ky);
  nkl_tensor w = nkl_tensor_make(c->wt, 1, &c->n, B->w), b = nkl_tensor_make(c->wt, 1, &c->n, B->b);
  nkl_tensor kw = nkl_tensor_make(c->wt, 1, &c->n, B->kw),
             g = nkl_tensor_make(c->wt, 1, &c->m, B->g);
  nkl_tensor mean = nkl_tensor_make(NKL_F32, 1, &c->m, B->mean);
  nkl_tensor rstd = nkl_tensor_make(NKL_F32, 1, &c->m, B->rstd);
  nkl_tensor scale = nkl_tensor_make(NKL_F32, 1, &c->m, B->scale);
  const float eps = (float)eps_of(c->op);
  switch (c->op) {
    case GEMMA: return nkl_gemma_rmsnorm_fwd(&x, &w, eps, &y, &rstd);
    case FADD_RMS: return nkl_fused_add_rmsnorm_fwd(&x, &res, &w, eps, &y, &ro, &rstd);
    case FADD_LN: return nkl_fused_add_layernorm_fwd(&x, &res, &w, &b, eps, &y, &ro, &mean, &rstd);
    case ADALN: {
      const int64_t shape[2] = {c->m, c->n};
      nkl_tensor sc = nkl_tensor_make(c->wt, 2, shape, B->w),
                 sh = nkl_tensor_make(c->wt, 2, shape, B->b);
      return nkl_adalayernorm_fwd(&x, &sc, &sh, eps, &y, &mean, &rstd);
    }
    case QK: return nkl_qknorm_fwd(&x, &k, &w, &kw, eps, &y, &ky);
    case GROUP: {
      const int64_t shape[2] = {groups(c), c->n};
      nkl_tensor gw = nkl_tensor_make(c->wt, 2, shape, B->w);
      return nkl_group_rmsnorm_fwd(&x, &gw, eps, &y, &rstd);
    }
    case RMSQ: return nkl_rmsnorm_quant_fwd(&x, &w, eps, 1e-12f, &y, &scale);
    case LNQ: return nkl_layernorm_quant_fwd(&x, &w, &b, eps, 1e-12f, &y, &scale);
    case WN: return nkl_weightnorm_fwd(&x, &g, &y, &rstd);
    default: return NKL_ERR_INTERNAL;
  }
}

/* Row r of a strided rows buffer as doubles. */
static void get_row(const ec *c, const void *p, nkl_dtype dt, int64_t r, double *out) {
  const void *row = (const char *)p + (size_t)(r * c->rs) * nkl_dtype_size(dt);
  for (int64_t i = 0; i < c->n; i++) out[i] = nkl_get(row, dt, i);
}

static bool g_expect_bad; /* test_oracle_detects_errors: a mismatch is the expected result */
static int64_t g_last_bad;

/* One normalized row (y, or the rows of q and k) against the oracle. */
static void check_norm_row(const ec *c, nkl_cmp *cmp, const double *x, const double *w,
                           const double *b, const void *yrow, const float *stats, int64_t r,
                           double *yref) {
  const int64_t n = c->n;
  double mean = 0.0, rstd;
  const double eps = eps_of(c->op);
  const bool gemma = c->op == GEMMA;
  if (c->op == WN)
    rstd = 1.0 / oracle_weightnorm_row(x, n, w[0], yref);
  else if (gemma)
    rstd = oracle_gemma_rmsnorm_row(x, n, w, eps, yref);
  else if (is_ln(c->op))
    rstd = oracle_layernorm_row(x, n, w, b, eps, yref, &mean);
  else
    rstd = oracle_rmsnorm_row(x, n, w, eps, yref);
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  double amax_tol = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double wi = c->op == WN ? w[0] : gemma ? 1.0 + w[i] : w[i], bi = b ? b[i] : 0.0;
    const double xs = (fabs(x[i]) + fabs(mean)) * rstd + 1.0;
    if (is_quant(c->op)) {
      const double t = rownorm_tolerance(NKL_F32, n, yref[i], xs, wi, bi);
      if (t > amax_tol) amax_tol = t;
      continue;
    }
    nkl_cmp_add(cmp, nkl_get(yrow, c->xt, i), yref[i],
                rownorm_tolerance(c->xt, n, yref[i], xs, wi, bi), r * n + i);
  }
  if (is_quant(c->op)) {
    oracle_check_quant_row(cmp, yref, n, amax_tol, 1e-12, yrow, stats[r], r * n);
    return;
  }
  if (!stats) return;
  if (c->op == WN)
    nkl_cmp_add(cmp, stats[r], 1.0 / rstd, 4 * gamma / rstd, -1);
  else
    nkl_cmp_add(cmp, stats[r], rstd, 4 * gamma * fabs(rstd), -1);
}

static void compare(const ec *c, const eb *B, const eb *in, const char *tag) {
  const int64_t n = c->n;
  const size_t yes = nkl_dtype_size(yt(c));
  double *x = malloc((size_t)n * 8), *res = malloc((size_t)n * 8), *w = malloc((size_t)n * 8);
  double *b = malloc((size_t)n * 8), *yref = malloc((size_t)n * 8), *r = malloc((size_t)n * 8);
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  for (int64_t row = 0; row < c->m; row++) {
    const int64_t wrow = c->op == ADALN ? row : c->op == GROUP ? row % groups(c) : 0;
    for (int64_t i = 0; i < n; i++) {
      w[i] = B->w ? nkl_get(B->w, c->wt, wrow * n + i) : 0.0;
      b[i] = B->b ? nkl_get(B->b, c->wt, wrow * n + i) : 0.0;
    }
    if (c->op == WN) w[0] = nkl_get(B->g, c->wt, row);
    get_row(c, in->x, c->xt, row, x);
    const void *yrow = (const char *)B->y + (size_t)(row * c->rs) * yes;
    if (is_fused(c->op)) {
      get_row(c, in->res, c->xt, row, res);
      oracle_fused_add_row(x, res, n, c->xt, r);
      double *got = yref;
      get_row(c, B->ro, c->xt, row, got);
      for (int64_t i = 0; i < n; i++) nkl_cmp_add(&cmp, got[i], r[i], 0.0, row * n + i);
      memcpy(x, r, (size_t)n * 8);
    }
    check_norm_row(c, &cmp, x, w, is_ln(c->op) ? b : NULL, yrow,
                   is_quant(c->op) ? B->scale
                   : c->op == QK   ? NULL
                                   : B->rstd,
                   row, yref);
    if (is_ln(c->op) && !is_quant(c->op)) {
      double m = 0.0, ss = 0.0;
      for (int64_t i = 0; i < n; i++) m += x[i];
      m /= (double)n;
      for (int64_t i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
      nkl_cmp_add(&cmp, B->mean[row], m, 4 * gamma * (fabs(m) + sqrt(ss / (double)n + 1e-5)), -1);
    }
    if (c->op == QK) {
      get_row(c, in->k, c->xt, row, x);
      for (int64_t i = 0; i < n; i++) w[i] = nkl_get(B->kw, c->wt, i);
      check_norm_row(c, &cmp, x, w, NULL, (const char *)B->ky + (size_t)(row * c->rs) * yes, NULL,
                     row, yref);
    }
  }
  g_last_bad = cmp.bad;
  CHECK(cmp.bad == 0 || g_expect_bad,
        "%s %s x=%s w=%s m=%lld n=%lld rs=%lld fill=%d%s: %lld of %lld wrong; worst #%lld got "
        "%.9g want %.9g tol %.3g",
        tag, kOp[c->op], nkl_dtype_name(c->xt), nkl_dtype_name(c->wt), (long long)c->m,
        (long long)n, (long long)c->rs, c->fill, c->in_place ? " in-place" : "", (long long)cmp.bad,
        (long long)cmp.checked, (long long)cmp.worst, cmp.worst_got, cmp.worst_ref, cmp.worst_tol);
  /* strided rows: the padding between output rows must be untouched */
  void *outs[3] = {c->in_place && !is_fused(c->op) ? NULL : B->y,
                   is_fused(c->op) && !c->in_place ? B->ro : NULL, B->ky};
  for (int o = 0; o < 3; o++) {
    if (!outs[o]) continue;
    const size_t es = o == 0 ? yes : nkl_dtype_size(c->xt);
    for (int64_t row = 0; row < c->m && c->rs > n; row++) {
      const unsigned char *pad = (const unsigned char *)outs[o] + (size_t)(row * c->rs + n) * es;
      bool ok = true;
      for (size_t k = 0; k < (size_t)(c->rs - n) * es; k++) ok = ok && pad[k] == 0x55;
      CHECK(ok, "%s %s wrote into the row padding of output %d", tag, kOp[c->op], o);
    }
    CHECK(tu_guard_ok(outs[o]), "%s %s wrote past output %d", tag, kOp[c->op], o);
  }
  CHECK(tu_guard_ok(B->mean) && tu_guard_ok(B->rstd) && tu_guard_ok(B->scale),
        "%s %s wrote past a statistics output", tag, kOp[c->op]);
  free(x), free(res), free(w), free(b), free(yref), free(r);
}

static void *dup_rows(const ec *c, const void *p) {
  if (!p) return NULL;
  const size_t bytes = (size_t)(c->m * c->rs) * nkl_dtype_size(c->xt);
  void *q = malloc(bytes);
  memcpy(q, p, bytes);
  return q;
}

static void run_case(const ec *c, uint64_t seed, const char *tag) {
  eb B, in;
  fill_case(c, &B, seed);
  memset(&in, 0, sizeof in);
  in.x = dup_rows(c, B.x), in.res = dup_rows(c, B.res), in.k = dup_rows(c, B.k);
  CHECK_STATUS(call(c, &B), NKL_OK);
  compare(c, &B, &in, tag);
  free(in.x), free(in.res), free(in.k);
  free_bufs(c, &B);
}

static const nkl_dtype kX[] = {NKL_F32, NKL_F16, NKL_BF16};
static const int64_t kN[] = {1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 65, 127, 251, 1000, 4096, 16411};

static void sweep(op_t op) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (size_t j = 0; j < sizeof kN / sizeof kN[0]; j++)
        for (int wv = 0; wv < 2; wv++) {
          const int64_t n = kN[j], m = n > 4096 ? 3 : (j % 3 == 0 ? 1 : 6);
          const ec c = {op, kX[d], wv ? NKL_F32 : kX[d], m, n, n, PLAIN, false};
          run_case(&c, 100 + j, nkl_isa_name(isas[k]));
        }
  }
}

static void specials(op_t op) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (fill_t f = WITH_NAN; f <= OFFSET_ROWS; f++) {
        if (f == HUGE_VALUES && kX[d] == NKL_F16) continue; /* 1e15 is not an f16 value */
        const int64_t ns[] = {17, 1000};
        for (int j = 0; j < 2; j++) {
          const ec c = {op, kX[d], kX[d], 6, ns[j], ns[j], f, false};
          run_case(&c, 7 + j, nkl_isa_name(isas[k]));
        }
      }
  }
}

static void strided_and_in_place(op_t op) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++) {
      const ec strided = {op, kX[d], kX[d], 6, 100, 131, PLAIN, false};
      run_case(&strided, 5, "strided");
      if (op == QK || is_quant(op)) continue; /* no in-place form */
      const ec inplace = {op, kX[d], NKL_F32, 6, 77, 80, PLAIN, true};
      run_case(&inplace, 6, "in-place");
    }
  }
}

/* Bit-identical outputs and statistics on every ISA and with 1, 2 and 3 threads. The
 * shapes: n = 1037 (16 groups of 64 and a tail), 1069 (two full vectors after the groups)
 * with w and b in x's dtype (the quantized norms' f32 copies, QUANT_WF32_MAX_N) and 4133
 * with f32 w and b (read as given): every way the quantized norms load w and b, in order or
 * lane-swapped (vf_load_ls). */
static void bitwise(op_t op) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  const int64_t ns[] = {1037, 1069, 4133};
  for (int d = 0; d < 3; d++)
    for (int j = 0; j < 3; j++) {
      const ec c = {op, kX[d], j == 2 ? NKL_F32 : kX[d], 69, ns[j], ns[j], PLAIN, false};
      eb ref;
      fill_case(&c, &ref, 99);
      nkl_set_max_isa(NKL_ISA_SCALAR);
      nkl_set_num_threads(1);
      CHECK_STATUS(call(&c, &ref), NKL_OK);
      const size_t yb = (size_t)(c.m * c.n) * nkl_dtype_size(yt(&c)),
                   xb = (size_t)(c.m * c.n) * nkl_dtype_size(c.xt);
      for (int k = 0; k < nisa; k++)
        for (int t = 1; t <= 3; t++) {
          eb B;
          fill_case(&c, &B, 99);
          nkl_set_max_isa(isas[k]);
          nkl_set_num_threads(t);
          CHECK_STATUS(call(&c, &B), NKL_OK);
          bool same = memcmp(B.y, ref.y, yb) == 0 &&
                      memcmp(B.rstd, ref.rstd, (size_t)c.m * 4) == 0 &&
                      memcmp(B.mean, ref.mean, (size_t)c.m * 4) == 0 &&
                      memcmp(B.scale, ref.scale, (size_t)c.m * 4) == 0;
          if (B.ro) same = same && memcmp(B.ro, ref.ro, xb) == 0;
          if (B.ky) same = same && memcmp(B.ky, ref.ky, xb) == 0;
          CHECK(same, "%s %s n=%lld %s threads=%d differs from scalar/1 thread", kOp[op],
                nkl_dtype_name(c.xt), (long long)c.n, nkl_isa_name(isas[k]), t);
          free_bufs(&c, &B);
        }
      free_bufs(&c, &ref);
    }
}

/* Quantized norms: a thread with a single row recomputes y for its code pass instead of
 * reading it back from its row buffer (rownorm_kernels.inc, quant_src; LN above 8192
 * columns). A one-row call must give row 0 of a two-row call (which keeps the buffer) bit
 * for bit, on every ISA. */
static void single_row_recompute(op_t op) {
  if (!is_quant(op)) return;
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  const int64_t ns[] = {8209, 16411};
  const fill_t fills[] = {PLAIN, TINY_VALUES, CONSTANT_ROW};
  nkl_set_num_threads(1);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (int j = 0; j < 2; j++)
        for (int f = 0; f < 3; f++) {
          const ec two = {op, kX[d], kX[d], 2, ns[j], ns[j], fills[f], false};
          const ec one = {op, kX[d], kX[d], 1, ns[j], ns[j], fills[f], false};
          eb B2, B1;
          fill_case(&two, &B2, 31 + (uint64_t)j);
          fill_case(&one, &B1, 31 + (uint64_t)j);
          CHECK_STATUS(call(&two, &B2), NKL_OK);
          CHECK_STATUS(call(&one, &B1), NKL_OK);
          const bool same = memcmp(B1.y, B2.y, (size_t)ns[j]) == 0 &&
                            memcmp(B1.scale, B2.scale, sizeof(float)) == 0;
          CHECK(same, "%s %s %s n=%lld fill %d: one-row call differs from row 0 of two", kOp[op],
                nkl_dtype_name(kX[d]), nkl_isa_name(isas[k]), (long long)ns[j], (int)fills[f]);
          free_bufs(&two, &B2);
          free_bufs(&one, &B1);
        }
  }
  nkl_set_num_threads(0);
}

#define OP_TEST(op)             \
  static void test_##op(void) { \
    sweep(op);                  \
    specials(op);               \
    strided_and_in_place(op);   \
    bitwise(op);                \
    single_row_recompute(op);   \
  }
OP_TEST(GEMMA)
OP_TEST(FADD_RMS)
OP_TEST(FADD_LN)
OP_TEST(ADALN)
OP_TEST(QK)
OP_TEST(GROUP)
OP_TEST(RMSQ)
OP_TEST(LNQ)
OP_TEST(WN)

/* A NaN anywhere in a row makes that row's scale and every code NaN (and only that row's),
 * on every ISA, whether the NaN sits in a full vector or in the tail. */
static void test_quant_nan_row(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int64_t pos = 0; pos < 35; pos += 17) {
      const int64_t n = 35, shape[2] = {2, n}, m = 2;
      float x[70], scale[2];
      uint8_t q[70];
      nkl_fill_normal(x, NKL_F32, 70, 3, 1.0);
      x[n + pos] = NAN;
      nkl_tensor tx = nkl_tensor_make(NKL_F32, 2, shape, x),
                 tq = nkl_tensor_make(NKL_FP8_E4M3, 2, shape, q);
      nkl_tensor ts = nkl_tensor_make(NKL_F32, 1, &m, scale);
      CHECK_STATUS(nkl_rmsnorm_quant_fwd(&tx, NULL, 1e-6f, 1e-12f, &tq, &ts), NKL_OK);
      CHECK(!isnan(scale[0]) && isnan(scale[1]), "%s: scales %g %g", nkl_isa_name(isas[k]),
            scale[0], scale[1]);
      for (int64_t i = 0; i < n; i++)
        CHECK((q[i] & 0x7F) != 0x7F && (q[n + i] & 0x7F) == 0x7F, "%s: codes %02x %02x at %lld",
              nkl_isa_name(isas[k]), q[i], q[n + i], (long long)i);
    }
  }
}

/* Fused add in bf16 with NaNs: residual_out keeps each NaN's payload, made quiet, on every
 * ISA (AVX2 stores it without the NaN handling of the bf16 rounding, which is exact for sums
 * of bf16 values: see fused_add_r), and inf + -inf gives the default NaN. Row 0 holds all
 * 254 bf16 NaN patterns in x, then in residual, and again in x across the 5-element tail;
 * row 1 none, so its y must stay finite. */
static void test_fused_add_nan_payloads(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  enum { N = 517, NP = 254 };
  uint16_t nanp[NP];
  for (int i = 0; i < NP / 2; i++)
    nanp[i] = (uint16_t)(0x7F81 + i), nanp[NP / 2 + i] = (uint16_t)(0xFF81 + i);
  static uint16_t x[2 * N], res[2 * N], y[2 * N], ro[2 * N], want[N];
  float w[N], b[N];
  nkl_fill_normal(x, NKL_BF16, 2 * N, 21, 1.0);
  nkl_fill_normal(res, NKL_BF16, 2 * N, 22, 1.0);
  nkl_fill_normal(w, NKL_F32, N, 23, 1.0);
  nkl_fill_normal(b, NKL_F32, N, 24, 1.0);
  for (int i = 0; i < N; i++) want[i] = 0;
  for (int i = 0; i < NP; i++) x[i] = nanp[i], want[i] = (uint16_t)(nanp[i] | 0x40);
  x[NP] = 0x7F80, res[NP] = 0xFF80, want[NP] = 0xFFC0; /* inf + -inf */
  for (int i = 0; i < NP; i++)
    res[NP + 1 + i] = nanp[i], want[NP + 1 + i] = (uint16_t)(nanp[i] | 0x40);
  for (int i = 2 * NP + 1; i < N; i++)
    x[i] = nanp[i % NP], want[i] = (uint16_t)(nanp[i % NP] | 0x40);
  const int64_t shape[2] = {2, N}, wshape[1] = {N};
  nkl_tensor tx = nkl_tensor_make(NKL_BF16, 2, shape, x),
             tr = nkl_tensor_make(NKL_BF16, 2, shape, res),
             ty = nkl_tensor_make(NKL_BF16, 2, shape, y),
             tro = nkl_tensor_make(NKL_BF16, 2, shape, ro),
             tw = nkl_tensor_make(NKL_F32, 1, wshape, w),
             tb = nkl_tensor_make(NKL_F32, 1, wshape, b);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int ln = 0; ln < 2; ln++) {
      CHECK_STATUS(
          ln ? nkl_fused_add_layernorm_fwd(&tx, &tr, &tw, &tb, 1e-5f, &ty, &tro, NULL, NULL)
             : nkl_fused_add_rmsnorm_fwd(&tx, &tr, &tw, 1e-6f, &ty, &tro, NULL),
          NKL_OK);
      int bad = 0; /* every element of row 0 has a NaN sum; report the first few misses */
      for (int i = 0; i < N && bad < 3; i++)
        if (ro[i] != want[i]) {
          bad++;
          CHECK(0, "%s %s: residual_out[%d] = 0x%04x, want 0x%04x (x 0x%04x, res 0x%04x)",
                nkl_isa_name(isas[k]), ln ? "LN" : "RMS", i, ro[i], want[i], x[i], res[i]);
        }
      int y_ok = 1;
      for (int i = 0; i < N; i++)
        y_ok &= isnan(nkl_get(y, NKL_BF16, i)) && !isnan(nkl_get(y, NKL_BF16, N + i));
      CHECK(y_ok, "%s %s: y not NaN in row 0 only", nkl_isa_name(isas[k]), ln ? "LN" : "RMS");
    }
  }
}

/* The comparisons can fail: a one-step error in one fp8 code, and a one-ulp error in one
 * residual_out element, are both caught. */
static void test_oracle_detects_errors(void) {
  for (int variant = 0; variant < 2; variant++) {
    const ec c = {variant ? FADD_RMS : RMSQ, NKL_BF16, NKL_BF16, 3, 64, 64, PLAIN, false};
    eb B, in;
    fill_case(&c, &B, 11);
    memset(&in, 0, sizeof in);
    in.x = dup_rows(&c, B.x), in.res = dup_rows(&c, B.res);
    CHECK_STATUS(call(&c, &B), NKL_OK);
    g_expect_bad = true;
    compare(&c, &B, &in, "clean");
    CHECK(g_last_bad == 0, "clean case already wrong");
    if (variant)
      ((uint16_t *)B.ro)[70] ^= 1; /* one bf16 ulp */
    else
      ((uint8_t *)B.y)[70] = (uint8_t)(((uint8_t *)B.y)[70] + 1); /* one e4m3 step */
    compare(&c, &B, &in, "perturbed");
    g_expect_bad = false;
    CHECK(g_last_bad == 1, "%s: perturbed output gave %lld mismatches, want 1", kOp[c.op],
          (long long)g_last_bad);
    free(in.x), free(in.res);
    free_bufs(&c, &B);
  }
}

/* Every invalid argument returns its specific status and leaves every output untouched. */
static void test_bad_input(void) {
  int64_t shape[2] = {4, 8}, s48[2] = {4, 7}, s38[2] = {3, 8}, s28[2] = {2, 8};
  int64_t n8 = 8, n7 = 7, m4 = 4, m3 = 3;
  float x[32], r[32], y[32], ro[32], w[8], st[4], g[4];
  uint8_t q[32];
  uint16_t h[32] = {0};
  nkl_fill_normal(x, NKL_F32, 32, 1, 1.0);
  nkl_fill_normal(r, NKL_F32, 32, 2, 1.0);
  nkl_fill_normal(w, NKL_F32, 8, 3, 1.0);
  nkl_fill_normal(g, NKL_F32, 4, 4, 1.0);
  for (int i = 0; i < 32; i++) y[i] = ro[i] = 12345.0f, q[i] = 0x33;
  for (int i = 0; i < 4; i++) st[i] = 777.0f;
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 2, shape, x), tr = nkl_tensor_make(NKL_F32, 2, shape, r);
  nkl_tensor ty = nkl_tensor_make(NKL_F32, 2, shape, y),
             tro = nkl_tensor_make(NKL_F32, 2, shape, ro);
  nkl_tensor tw = nkl_tensor_make(NKL_F32, 1, &n8, w), ts = nkl_tensor_make(NKL_F32, 1, &m4, st);
  nkl_tensor tq = nkl_tensor_make(NKL_FP8_E4M3, 2, shape, q),
             tg = nkl_tensor_make(NKL_F32, 1, &m4, g);
  nkl_tensor t, t2;
  /* fused add */
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&tx, NULL, &tw, 1e-6f, &ty, &tro, NULL),
               NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&tx, &tr, &tw, 1e-6f, &ty, NULL, NULL),
               NKL_ERR_NULL_POINTER);
  t = nkl_tensor_make(NKL_BF16, 2, shape, h);
  CHECK_STATUS(nkl_fused_add_layernorm_fwd(&tx, &t, &tw, NULL, 1e-5f, &ty, &tro, NULL, NULL),
               NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 2, s38, r);
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&tx, &t, &tw, 1e-6f, &ty, &tro, NULL), NKL_ERR_BAD_SHAPE);
  t = tro, t.data = x + 1, t2 = tx, t.shape[0] = t2.shape[0] = 3, t.strides[0] = 8;
  nkl_tensor t3 = tr, t4 = ty;
  t3.shape[0] = t4.shape[0] = 3;
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&t2, &t3, &tw, 1e-6f, &t4, &t, NULL), NKL_ERR_ALIAS);
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&tx, &tr, &tw, 1e-6f, &ty, &ty, NULL), NKL_ERR_ALIAS);
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&tx, &tr, &tw, 1e-6f, &tr, &tro, NULL), NKL_ERR_ALIAS);
  /* gemma */
  CHECK_STATUS(nkl_gemma_rmsnorm_fwd(&tx, &tw, -1.0f, &ty, NULL), NKL_ERR_BAD_PARAM);
  t = nkl_tensor_make(NKL_F32, 1, &n7, w);
  CHECK_STATUS(nkl_gemma_rmsnorm_fwd(&tx, &t, 1e-6f, &ty, NULL), NKL_ERR_BAD_SHAPE);
  /* AdaLN */
  CHECK_STATUS(nkl_adalayernorm_fwd(&tx, NULL, &tr, 1e-5f, &ty, NULL, NULL), NKL_ERR_NULL_POINTER);
  t = nkl_tensor_make(NKL_F32, 2, s48, r);
  CHECK_STATUS(nkl_adalayernorm_fwd(&tx, &tr, &t, 1e-5f, &ty, NULL, NULL), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_F16, 2, shape, h);
  CHECK_STATUS(nkl_adalayernorm_fwd(&tx, &t, &tr, 1e-5f, &ty, NULL, NULL), NKL_ERR_BAD_DTYPE);
  t = tr, t.strides[0] = 9, t.shape[0] = 3;
  t2 = tx, t2.shape[0] = 3, t3 = ty, t3.shape[0] = 3;
  CHECK_STATUS(nkl_adalayernorm_fwd(&t2, &t, &t, 1e-5f, &t3, NULL, NULL), NKL_ERR_BAD_STRIDE);
  /* QK */
  t = nkl_tensor_make(NKL_F32, 2, s38, r);
  CHECK_STATUS(nkl_qknorm_fwd(&tx, &t, &tw, &tw, 1e-6f, &ty, &tro), NKL_ERR_BAD_SHAPE);
  CHECK_STATUS(nkl_qknorm_fwd(&tx, &tr, &tw, &tw, 1e-6f, &ty, &ty), NKL_ERR_ALIAS);
  CHECK_STATUS(nkl_qknorm_fwd(&tx, &tr, &tw, &tw, 1e-6f, &tr, &tro), NKL_ERR_ALIAS);
  CHECK_STATUS(nkl_qknorm_fwd(&tx, &tr, &tw, NULL, NAN, &ty, &tro), NKL_ERR_BAD_PARAM);
  /* group */
  t = nkl_tensor_make(NKL_F32, 2, s28, r);
  CHECK_STATUS(nkl_group_rmsnorm_fwd(&tx, &t, 1e-6f, &ty, NULL), NKL_ERR_BAD_SHAPE);
  CHECK_STATUS(nkl_group_rmsnorm_fwd(&tx, &tw, 1e-6f, &ty, NULL), NKL_ERR_BAD_RANK);
  CHECK_STATUS(nkl_group_rmsnorm_fwd(&tx, NULL, 1e-6f, &ty, NULL), NKL_ERR_NULL_POINTER);
  t = nkl_tensor_make(NKL_F32, 1, &n8, x), t2 = nkl_tensor_make(NKL_F32, 1, &n8, y);
  CHECK_STATUS(nkl_group_rmsnorm_fwd(&t, &tw, 1e-6f, &t2, NULL), NKL_ERR_BAD_RANK);
  t = nkl_tensor_make(NKL_F32, 1, &m3, st);
  CHECK_STATUS(nkl_group_rmsnorm_fwd(&tx, &tr, 1e-6f, &ty, &t), NKL_ERR_BAD_SHAPE);
  /* quantized */
  CHECK_STATUS(nkl_rmsnorm_quant_fwd(&tx, &tw, 1e-6f, 1e-12f, &ty, &ts), NKL_ERR_BAD_DTYPE);
  CHECK_STATUS(nkl_rmsnorm_quant_fwd(&tx, &tw, 1e-6f, 1e-12f, &tq, NULL), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_rmsnorm_quant_fwd(&tx, &tw, 1e-6f, 0.0f, &tq, &ts), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_layernorm_quant_fwd(&tx, &tw, NULL, 1e-5f, NAN, &tq, &ts), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_layernorm_quant_fwd(&tx, &tw, NULL, 1e-5f, INFINITY, &tq, &ts),
               NKL_ERR_BAD_PARAM);
  t = nkl_tensor_make(NKL_F32, 1, &m3, st);
  CHECK_STATUS(nkl_rmsnorm_quant_fwd(&tx, &tw, 1e-6f, 1e-12f, &tq, &t), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_F32, 1, &m4, x + 4); /* scale inside x */
  CHECK_STATUS(nkl_rmsnorm_quant_fwd(&tx, &tw, 1e-6f, 1e-12f, &tq, &t), NKL_ERR_ALIAS);
  t = nkl_tensor_make(NKL_FP8_E4M3, 2, shape, x);
  CHECK_STATUS(nkl_rmsnorm_quant_fwd(&tx, &tw, 1e-6f, 1e-12f, &t, &ts), NKL_ERR_ALIAS);
  /* weight norm */
  CHECK_STATUS(nkl_weightnorm_fwd(&tx, NULL, &ty, NULL), NKL_ERR_NULL_POINTER);
  t = nkl_tensor_make(NKL_F32, 1, &m3, g);
  CHECK_STATUS(nkl_weightnorm_fwd(&tx, &t, &ty, NULL), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_BF16, 1, &m4, h);
  CHECK_STATUS(nkl_weightnorm_fwd(&tx, &tg, &ty, &t), NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 1, &m4, y + 8); /* norm inside out */
  CHECK_STATUS(nkl_weightnorm_fwd(&tx, &tg, &ty, &t), NKL_ERR_ALIAS);
  CHECK(strstr(nkl_last_error(), "outputs out and norm overlap") != NULL, "message: %s",
        nkl_last_error());
  /* messages use the API's argument names (v, out, norm; q, k, q_out, k_out) */
  CHECK_STATUS(nkl_weightnorm_fwd(NULL, &tg, &ty, NULL), NKL_ERR_NULL_POINTER);
  CHECK(strstr(nkl_last_error(), "weightnorm_fwd: v ") != NULL, "message: %s", nkl_last_error());
  t = nkl_tensor_make(NKL_F32, 2, s38, y);
  CHECK_STATUS(nkl_weightnorm_fwd(&tx, &tg, &t, NULL), NKL_ERR_BAD_SHAPE);
  CHECK(strstr(nkl_last_error(), "out shape [3,8] differs from v shape [4,8]") != NULL,
        "message: %s", nkl_last_error());
  t = nkl_tensor_make(NKL_F32, 2, s38, r);
  CHECK_STATUS(nkl_qknorm_fwd(&tx, &tr, &tw, &tw, 1e-6f, &ty, &t), NKL_ERR_BAD_SHAPE);
  CHECK(strstr(nkl_last_error(), "qknorm_fwd: k_out shape [3,8] differs from k shape") != NULL,
        "message: %s", nkl_last_error());
  t = nkl_tensor_make(NKL_F32, 1, &n7, w);
  CHECK_STATUS(nkl_qknorm_fwd(&tx, &tr, &t, &tw, 1e-6f, &ty, &tro), NKL_ERR_BAD_SHAPE);
  CHECK(strstr(nkl_last_error(), "q_w has 7 elements") != NULL, "message: %s", nkl_last_error());
  for (int i = 0; i < 32; i++)
    CHECK(y[i] == 12345.0f && ro[i] == 12345.0f && q[i] == 0x33,
          "output %d touched by a failed call", i);
  for (int i = 0; i < 4; i++) CHECK(st[i] == 777.0f, "stat %d touched by a failed call", i);
  CHECK(strlen(nkl_last_error()) > 10, "no message");
  /* exact in-place forms are accepted */
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&tx, &tr, &tw, 1e-6f, &tx, &tr, NULL), NKL_OK);
  CHECK_STATUS(nkl_fused_add_rmsnorm_fwd(&tx, &tr, &tw, 1e-6f, &ty, &tx, NULL), NKL_OK);
  CHECK(strstr(nkl_last_kernel(), "fused_add_rmsnorm_fwd") != NULL, "kernel: %s",
        nkl_last_kernel());
}

int main(void) {
  /* Non-temporal stores for every aligned output (the default threshold, the LLC size, is
   * never reached by these small cases): the unaligned and strided cases still take the
   * regular stores, and test_rownorm covers the default. */
  setenv("NKL_STREAM_MIN_BYTES", "1", 0);
  tu_run("gemma_rmsnorm", test_GEMMA);
  tu_run("fused_add_rmsnorm", test_FADD_RMS);
  tu_run("fused_add_layernorm", test_FADD_LN);
  tu_run("adalayernorm", test_ADALN);
  tu_run("qknorm", test_QK);
  tu_run("group_rmsnorm", test_GROUP);
  tu_run("rmsnorm_quant", test_RMSQ);
  tu_run("layernorm_quant", test_LNQ);
  tu_run("weightnorm", test_WN);
  tu_run("quant_nan_row", test_quant_nan_row);
  tu_run("fused_add_nan_payloads", test_fused_add_nan_payloads);
  tu_run("oracle_detects_errors", test_oracle_detects_errors);
  tu_run("bad_input", test_bad_input);
  return tu_summary();
}
