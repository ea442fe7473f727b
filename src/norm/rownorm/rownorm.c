/* Public entry points of the row-norm group: validate, pick the kernel, split rows across
 * threads. Every variant goes through one request -> plan -> run path. */
#include <math.h>
#include <stdlib.h>

#include "core/convert_scalar.h"
#include "core/internal.h"
#include "core/scratch.h"
#include "norm/rownorm/rownorm.h"

/* Prototypes of every kernel: <prefix>_f32acc_<op>__<isa>. */
#define DECL_ISA(op, pfx, isa) \
  void pfx##_f32acc_##op##__##isa(const void *a, int64_t r0, int64_t r1);
#define DECL(op, pfx, xt, wt) \
  DECL_ISA(op, pfx, scalar) DECL_ISA(op, pfx, avx2) DECL_ISA(op, pfx, avx512)
#define DECL_BF16(op, pfx, xt, wt) DECL_ISA(op, pfx, avx512bf16)
#define DECL_OP(op) NKL_ROWNORM_DTYPES_OP(DECL, op) NKL_ROWNORM_BF16_DTYPES_OP(DECL_BF16, op)
DECL_OP(rmsnorm_fwd)
DECL_OP(layernorm_fwd)
DECL_OP(gemma_rmsnorm_fwd)
DECL_OP(fused_add_rmsnorm_fwd)
DECL_OP(fused_add_layernorm_fwd)
DECL_OP(rmsnorm_quant_fwd)
DECL_OP(layernorm_quant_fwd)
DECL_OP(weightnorm_fwd)

#define KEY(xt, wt) ((int)(xt)*16 + (int)(wt))
#define ENTRY(op, pfx, isa, level, xt, wt) \
  {#pfx "_f32acc_" #op "__" #isa, level, KEY(xt, wt), (void (*)(void))pfx##_f32acc_##op##__##isa},

/* Ordered best first; the scalar kernels come last. The AVX-512-BF16 level has kernels for
 * bf16 outputs only: they store through vcvtneps2bf16 (with a subnormal fix-up that keeps
 * the results bit-identical), 30% faster in cache than the integer rounding. */
#if defined(__x86_64__)
#define BF16(op, pfx, xt, wt) ENTRY(op, pfx, avx512bf16, NKL_ISA_AVX512BF16, xt, wt)
#define X86(op, pfx, xt, wt) \
  ENTRY(op, pfx, avx512, NKL_ISA_AVX512, xt, wt) ENTRY(op, pfx, avx2, NKL_ISA_AVX2, xt, wt)
#else
#define BF16(op, pfx, xt, wt)
#define X86(op, pfx, xt, wt)
#endif
#define SCALAR(op, pfx, xt, wt) ENTRY(op, pfx, scalar, NKL_ISA_SCALAR, xt, wt)
#define LIST(op)                                                        \
  static const nkl_kernel_entry k_##op[] = {NKL_ROWNORM_BF16_DTYPES_OP( \
      BF16, op) NKL_ROWNORM_DTYPES_OP(X86, op) NKL_ROWNORM_DTYPES_OP(SCALAR, op)};
LIST(rmsnorm_fwd)
LIST(layernorm_fwd)
LIST(gemma_rmsnorm_fwd)
LIST(fused_add_rmsnorm_fwd)
LIST(fused_add_layernorm_fwd)
LIST(rmsnorm_quant_fwd)
LIST(layernorm_quant_fwd)
LIST(weightnorm_fwd)

/* How w and b map to rows: one [n] vector, a [G, n] group weight (row r uses w[r % G]), or
 * one row per x row (AdaLN's scale and shift). */
typedef enum { WB_VEC, WB_GROUP, WB_ROWS } wb_mode;

typedef struct rn_req {
  const char *op;
  rownorm_kind kind;
  int flags;
  const nkl_kernel_entry *list;
  size_t count;
  wb_mode wmode;
  const nkl_tensor *x, *res, *w, *b, *g;
  nkl_tensor *y, *res_out, *mean, *rstd, *scale;
  /* the API's names of x, y, w and rstd where they differ from these (NULL: the default) */
  const char *x_name, *y_name, *w_name, *rstd_name;
  float eps, scale_floor;
} rn_req;

typedef struct rn_plan {
  rownorm_args a;
  const nkl_kernel_entry *k;
  int64_t m;
  int threads;
  nkl_dtype wb_from; /* w and b are converted from this 16-bit dtype to f32 (else F32) */
} rn_plan;

/* Unquantized norms whose w and b are one 16-bit row of at most this length, over at least
 * WB_F32_MIN_ROWS rows, take w and b in f32, converted once per call, and the f32-weight
 * kernel: no conversion of w and b per vector and row (the quantized norms do the same per
 * thread, QUANT_WF32_MAX_N). The values are the same (the conversion is exact), so are the
 * results. Not the fused norms: FusedAddRMSNorm [2048, 4096] bf16 measured the same warm
 * and 5% slower cold (median of 5, noisy), its row working set (x, residual, residual_out
 * and an f32 w: 40 KiB) near the size of L1. */
enum { WB_F32_MAX_N = 4096, WB_F32_MIN_ROWS = 64 };

/* The fields of a request naming its op and kernel list (k_<list>). */
#define REQ(opname, list_, kind_, flags_)                          \
  .op = opname, .kind = kind_, .flags = flags_, .list = k_##list_, \
  .count = sizeof k_##list_ / sizeof k_##list_[0]

NKL_ENTRY_TEXT static bool is_float16_32(nkl_dtype t) {
  return t == NKL_F32 || t == NKL_F16 || t == NKL_BF16;
}

/* t must have ref's shape; `what` and `ref_name` name them. */
NKL_ENTRY_TEXT static nkl_status check_same_shape(const char *op, const nkl_tensor *t,
                                                  const char *what, const nkl_tensor *ref,
                                                  const char *ref_name) {
  bool same = t->rank == ref->rank;
  for (int i = 0; same && i < t->rank; i++) same = t->shape[i] == ref->shape[i];
  if (same) return NKL_OK;
  char bt[128], br[128];
  return nkl__fail(NKL_ERR_BAD_SHAPE, "%s: %s shape %s differs from %s shape %s", op, what,
                   nkl__shape_str(t, bt, sizeof bt), ref_name, nkl__shape_str(ref, br, sizeof br));
}

/* A per-channel (or per-row) parameter: dtype x's or f32, and contiguous. */
NKL_ENTRY_TEXT static nkl_status check_param(const char *op, const nkl_tensor *v, const char *what,
                                             nkl_dtype xt) {
  nkl_status s = nkl__check_tensor(v, what);
  if (s) return s;
  if (v->dtype != xt && v->dtype != NKL_F32)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: %s is %s; must be %s (the input's dtype) or f32", op,
                     what, nkl_dtype_name(v->dtype), nkl_dtype_name(xt));
  if (!nkl__is_contiguous(v))
    return nkl__fail(NKL_ERR_BAD_STRIDE, "%s: %s must be contiguous", op, what);
  return NKL_OK;
}

/* A rank-1 vector of n elements. */
NKL_ENTRY_TEXT static nkl_status check_vec(const char *op, const nkl_tensor *v, const char *what,
                                           int64_t n, nkl_dtype xt) {
  nkl_status s = check_param(op, v, what, xt);
  if (s) return s;
  if (v->rank != 1) return nkl__fail(NKL_ERR_BAD_RANK, "%s must be rank 1, got %d", what, v->rank);
  if (v->shape[0] != n)
    return nkl__fail(NKL_ERR_BAD_SHAPE, "%s has %lld elements, the rows have %lld", what,
                     (long long)v->shape[0], (long long)n);
  return NKL_OK;
}

/* An f32 statistics output with `rows` elements (optional unless required). */
NKL_ENTRY_TEXT static nkl_status check_stat(const nkl_tensor *t, const char *what, int64_t rows,
                                            bool required) {
  if (!t) return required ? nkl__fail(NKL_ERR_NULL_POINTER, "%s is required", what) : NKL_OK;
  nkl_status s = nkl__check_tensor(t, what);
  if (s) return s;
  if (t->dtype != NKL_F32)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s must be f32, got %s", what, nkl_dtype_name(t->dtype));
  if (nkl__numel(t) != rows)
    return nkl__fail(NKL_ERR_BAD_SHAPE, "%s has %lld elements; the input has %lld rows", what,
                     (long long)nkl__numel(t), (long long)rows);
  if (!nkl__is_contiguous(t)) return nkl__fail(NKL_ERR_BAD_STRIDE, "%s must be contiguous", what);
  return NKL_OK;
}

/* A rows tensor like x (dtype dt, x's shape) with its row stride. */
NKL_ENTRY_TEXT static nkl_status check_rows_like(const char *op, const nkl_tensor *t,
                                                 const char *what, const nkl_tensor *x,
                                                 const char *x_name, nkl_dtype dt, int64_t *rs) {
  if (!t) return nkl__fail(NKL_ERR_NULL_POINTER, "%s: %s is required", op, what);
  nkl_status s = nkl__check_tensor(t, what);
  if (s) return s;
  if (t->dtype != dt)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: %s is %s but must be %s", op, what,
                     nkl_dtype_name(t->dtype), nkl_dtype_name(dt));
  if ((s = check_same_shape(op, t, what, x, x_name))) return s;
  int64_t m, n;
  return nkl__as_rows(t, what, &m, &n, rs);
}

typedef struct {
  const nkl_tensor *t;
  const char *name;
  int64_t rs;
  unsigned in_place; /* outputs: bit i set if exact in-place with input i is allowed */
} named;

/* Outputs must not overlap each other or any input, except the exact in-place pairs the op
 * allows: y may be x, and res_out may be x or res (same data, same row stride). */
NKL_ENTRY_TEXT static nkl_status check_aliasing(const char *op, const named *outs, int nout,
                                                const named *ins, int nin) {
  for (int o = 0; o < nout; o++) {
    if (!outs[o].t) continue;
    for (int p = o + 1; p < nout; p++)
      if (outs[p].t && nkl__overlaps(outs[o].t, outs[p].t))
        return nkl__fail(NKL_ERR_ALIAS, "%s: outputs %s and %s overlap", op, outs[o].name,
                         outs[p].name);
    for (int i = 0; i < nin; i++) {
      if (!ins[i].t || !nkl__overlaps(outs[o].t, ins[i].t)) continue;
      const bool pair = (outs[o].in_place >> i) & 1u;
      const bool exact = outs[o].t->data == ins[i].t->data && outs[o].rs == ins[i].rs &&
                         outs[o].t->dtype == ins[i].t->dtype && outs[o].rs > 0;
      if (!(pair && exact))
        return nkl__fail(NKL_ERR_ALIAS, "%s: %s overlaps %s (only exact in-place is allowed)", op,
                         outs[o].name, ins[i].name);
    }
  }
  return NKL_OK;
}

NKL_ENTRY_TEXT static nkl_status prepare(const rn_req *q, rn_plan *p) {
  const char *op = q->op;
  const bool quant = q->flags & RN_QUANT, fused = q->flags & RN_FUSED;
  const char *xn = q->x_name ? q->x_name : "x", *yn = q->y_name ? q->y_name : quant ? "q" : "y";
  const char *sn = q->rstd_name ? q->rstd_name : "rstd";
  nkl_status s;
  if ((s = nkl__check_tensor(q->x, xn)) || (s = nkl__check_tensor(q->y, yn))) return s;
  const nkl_dtype xt = q->x->dtype;
  if (!is_float16_32(xt))
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: %s dtype %s not supported (f32, f16, bf16)", op, xn,
                     nkl_dtype_name(xt));
  int64_t m, n, xrs, yrs, rrs = 0, ors = 0;
  if ((s = check_rows_like(op, q->y, yn, q->x, xn, quant ? NKL_FP8_E4M3 : xt, &yrs)) ||
      (s = nkl__as_rows(q->x, xn, &m, &n, &xrs)))
    return s;
  if (fused && ((s = check_rows_like(op, q->res, "residual", q->x, xn, xt, &rrs)) ||
                (s = check_rows_like(op, q->res_out, "residual_out", q->x, xn, xt, &ors))))
    return s;
  int64_t wb_rs = 0, wb_rows = 1;
  const nkl_tensor *wb[2] = {q->w, q->b};
  const char *wbn[2] = {q->wmode == WB_ROWS ? "scale"
                        : q->w_name         ? q->w_name
                                            : "w",
                        q->wmode == WB_ROWS ? "shift" : "b"};
  for (int j = 0; j < 2; j++) {
    const nkl_tensor *v = wb[j];
    if (!v) {
      if (q->wmode == WB_ROWS || (q->wmode == WB_GROUP && j == 0))
        return nkl__fail(NKL_ERR_NULL_POINTER, "%s: %s is required", op, wbn[j]);
      continue;
    }
    if (q->wmode == WB_VEC) {
      if ((s = check_vec(op, v, wbn[j], n, xt))) return s;
    } else if ((s = check_param(op, v, wbn[j], xt))) {
      return s;
    } else if (q->wmode == WB_ROWS) {
      if ((s = check_same_shape(op, v, wbn[j], q->x, xn))) return s;
      wb_rs = n, wb_rows = m;
    } else {
      if (q->x->rank < 2)
        return nkl__fail(NKL_ERR_BAD_RANK, "%s: x must be [..., G, D] (rank >= 2), got rank %d", op,
                         q->x->rank);
      if (v->rank != 2)
        return nkl__fail(NKL_ERR_BAD_RANK, "%s: w must be [G, D] (rank 2), got rank %d", op,
                         v->rank);
      if (v->shape[0] != q->x->shape[q->x->rank - 2] || v->shape[1] != n)
        return nkl__fail(NKL_ERR_BAD_SHAPE,
                         "%s: w is [%lld, %lld]; x's last two dims are [%lld, %lld]", op,
                         (long long)v->shape[0], (long long)v->shape[1],
                         (long long)q->x->shape[q->x->rank - 2], (long long)n);
      wb_rs = n, wb_rows = v->shape[0];
    }
  }
  if (q->w && q->b && q->w->dtype != q->b->dtype)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: %s is %s but %s is %s", op, wbn[0],
                     nkl_dtype_name(q->w->dtype), wbn[1], nkl_dtype_name(q->b->dtype));
  if (q->kind == ROWNORM_WN) {
    if (!q->g) return nkl__fail(NKL_ERR_NULL_POINTER, "%s: g is required", op);
    if ((s = check_vec(op, q->g, "g", m, xt))) return s;
  }
  if ((s = check_stat(q->mean, "mean", m, false)) || (s = check_stat(q->rstd, sn, m, false)) ||
      (s = check_stat(q->scale, "scale", m, quant)))
    return s;
  if (q->kind != ROWNORM_WN && (!(q->eps >= 0.0f) || q->eps > 1e30f))
    return nkl__fail(NKL_ERR_BAD_PARAM, "%s: eps must be finite and >= 0 (got %g)", op,
                     (double)q->eps);
  if (quant && (!(q->scale_floor > 0.0f) || isinf(q->scale_floor)))
    return nkl__fail(NKL_ERR_BAD_PARAM, "%s: scale_floor must be finite and > 0 (got %g)", op,
                     (double)q->scale_floor);
  const named outs[] = {{q->y, yn, yrs, 1u},
                        {fused ? q->res_out : NULL, "residual_out", ors, 3u},
                        {q->mean, "mean", 0, 0},
                        {q->rstd, sn, 0, 0},
                        {q->scale, "scale", 0, 0}};
  const named ins[] = {{q->x, xn, xrs, 0},
                       {fused ? q->res : NULL, "residual", rrs, 0},
                       {q->w, wbn[0], 0, 0},
                       {q->b, wbn[1], 0, 0},
                       {q->g, "g", 0, 0}};
  if ((s = check_aliasing(op, outs, 5, ins, 5))) return s;

  nkl_dtype wt = q->w ? q->w->dtype : q->b ? q->b->dtype : q->g ? q->g->dtype : xt;
  p->wb_from = NKL_F32;
  if (!quant && !fused && wb_rs == 0 && (q->w || q->b) && wt != NKL_F32 && n <= WB_F32_MAX_N &&
      m >= WB_F32_MIN_ROWS)
    p->wb_from = wt, wt = NKL_F32;
  p->k = nkl__select(q->list, q->count, KEY(xt, wt));
  if (!p->k) return nkl__fail(NKL_ERR_INTERNAL, "%s: no kernel for this dtype", op);
  const int64_t es = (int64_t)nkl_dtype_size(xt);
  /* res_out is re-read by the later passes over the row: never streamed. The codes are
   * streamed 64 at a time (the code pass's x4 groups) on Intel: -5..-10% cold on the Xeon
   * guest's [2048, 4096-16384] rows, where the Zen 4 guest measured 5-12% slower. */
  const bool stream =
      quant ? nkl__tune_intel && nkl__use_streaming_stores(q->y->data, yrs, m * n, 64)
            : nkl__use_streaming_stores(q->y->data, yrs * es, m * n * es, 16 * (size_t)es);
  const rownorm_args a = {.x = q->x->data,
                          .x_rs = xrs,
                          .res = fused ? q->res->data : NULL,
                          .res_rs = rrs,
                          .res_out = fused ? q->res_out->data : NULL,
                          .res_out_rs = ors,
                          .y = q->y->data,
                          .y_rs = yrs,
                          .w = q->w ? q->w->data : NULL,
                          .b = q->b ? q->b->data : NULL,
                          .wb_rs = wb_rs,
                          .wb_rows = wb_rows,
                          .g = q->g ? q->g->data : NULL,
                          .n = n,
                          .eps = q->eps,
                          .scale_floor = q->scale_floor,
                          .mean = q->mean ? (float *)q->mean->data : NULL,
                          .rstd = q->rstd ? (float *)q->rstd->data : NULL,
                          .scale = q->scale ? (float *)q->scale->data : NULL,
                          .stream = stream};
  p->a = a;
  p->m = m;
  /* Rows are independent, so the thread split never changes a result. */
  p->threads = nkl__threads_for(m, (fused ? 4 : 2) * m * n * es);
  return NKL_OK;
}

NKL_ENTRY_TEXT static nkl_status run(const char *op, const rn_plan *p) {
  rownorm_args a = p->a;
  _Atomic int slot = 0;
  void *scratch = NULL;
  if (a.scale) { /* quantized: per thread, an f32 row for x and y and w, b in f32 */
    const size_t bytes = (size_t)p->threads * 3 * (size_t)(a.n + 16) * sizeof(float);
    if (!(scratch = nkl__scratch_get(bytes)))
      return nkl__fail(NKL_ERR_ALLOC, "%s: cannot allocate %zu bytes of row buffers", op, bytes);
    a.yrows = scratch;
    a.slot = &slot;
  } else if (p->wb_from != NKL_F32) { /* w and b in f32 (see WB_F32_MAX_N) */
    const size_t bytes = 2 * (size_t)a.n * sizeof(float);
    if (!(scratch = nkl__scratch_get(bytes)))
      return nkl__fail(NKL_ERR_ALLOC, "%s: cannot allocate %zu bytes for w and b", op, bytes);
    const void *src[2] = {a.w, a.b};
    for (int j = 0; j < 2; j++) {
      if (!src[j]) continue;
      const uint16_t *v = (const uint16_t *)src[j];
      float *d = (float *)scratch + j * a.n;
      for (int64_t i = 0; i < a.n; i++)
        d[i] = p->wb_from == NKL_BF16 ? nkl__bf16_to_f32(v[i]) : nkl__f16_to_f32(v[i]);
      if (j == 0)
        a.w = d;
      else
        a.b = d;
    }
  }
  nkl__parallel_arith(p->threads, p->m, (nkl_range_fn)p->k->fn, &a);
  if (scratch) nkl__scratch_put(scratch);
  nkl__ran_kernel(op, p->k->name);
  return NKL_OK;
}

NKL_ENTRY_TEXT static nkl_status rownorm(const rn_req *q) {
  NKL_PREFETCH_ENTRY(q->x, q->y, q->w, q->b, q->res, q->res_out, q->g, q->mean, q->rstd, q->scale);
  nkl__prefetch_bytes(q->list, q->count * sizeof *q->list);
  nkl__begin(q->op);
  rn_plan p;
  const nkl_status s = prepare(q, &p);
  if (s) return s;
  return run(q->op, &p);
}

nkl_status nkl_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps, nkl_tensor *y,
                           nkl_tensor *rstd) {
  const rn_req q = {REQ("rmsnorm_fwd", rmsnorm_fwd, ROWNORM_RMS, 0),
                    .x = x,
                    .w = w,
                    .y = y,
                    .rstd = rstd,
                    .eps = eps};
  return rownorm(&q);
}

nkl_status nkl_layernorm_fwd(const nkl_tensor *x, const nkl_tensor *w, const nkl_tensor *b,
                             float eps, nkl_tensor *y, nkl_tensor *mean, nkl_tensor *rstd) {
  const rn_req q = {REQ("layernorm_fwd", layernorm_fwd, ROWNORM_LN, 0),
                    .x = x,
                    .w = w,
                    .b = b,
                    .y = y,
                    .mean = mean,
                    .rstd = rstd,
                    .eps = eps};
  return rownorm(&q);
}

nkl_status nkl_gemma_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps, nkl_tensor *y,
                                 nkl_tensor *rstd) {
  const rn_req q = {REQ("gemma_rmsnorm_fwd", gemma_rmsnorm_fwd, ROWNORM_RMS, RN_GEMMA),
                    .x = x,
                    .w = w,
                    .y = y,
                    .rstd = rstd,
                    .eps = eps};
  return rownorm(&q);
}

nkl_status nkl_fused_add_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *residual,
                                     const nkl_tensor *w, float eps, nkl_tensor *y,
                                     nkl_tensor *residual_out, nkl_tensor *rstd) {
  const rn_req q = {REQ("fused_add_rmsnorm_fwd", fused_add_rmsnorm_fwd, ROWNORM_RMS, RN_FUSED),
                    .x = x,
                    .res = residual,
                    .w = w,
                    .y = y,
                    .res_out = residual_out,
                    .rstd = rstd,
                    .eps = eps};
  return rownorm(&q);
}

nkl_status nkl_fused_add_layernorm_fwd(const nkl_tensor *x, const nkl_tensor *residual,
                                       const nkl_tensor *w, const nkl_tensor *b, float eps,
                                       nkl_tensor *y, nkl_tensor *residual_out, nkl_tensor *mean,
                                       nkl_tensor *rstd) {
  const rn_req q = {REQ("fused_add_layernorm_fwd", fused_add_layernorm_fwd, ROWNORM_LN, RN_FUSED),
                    .x = x,
                    .res = residual,
                    .w = w,
                    .b = b,
                    .y = y,
                    .res_out = residual_out,
                    .mean = mean,
                    .rstd = rstd,
                    .eps = eps};
  return rownorm(&q);
}

nkl_status nkl_adalayernorm_fwd(const nkl_tensor *x, const nkl_tensor *scale,
                                const nkl_tensor *shift, float eps, nkl_tensor *y, nkl_tensor *mean,
                                nkl_tensor *rstd) {
  const rn_req q = {REQ("adalayernorm_fwd", layernorm_fwd, ROWNORM_LN, 0),
                    .wmode = WB_ROWS,
                    .x = x,
                    .w = scale,
                    .b = shift,
                    .y = y,
                    .mean = mean,
                    .rstd = rstd,
                    .eps = eps};
  return rownorm(&q);
}

nkl_status nkl_group_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps, nkl_tensor *y,
                                 nkl_tensor *rstd) {
  const rn_req q = {REQ("group_rmsnorm_fwd", rmsnorm_fwd, ROWNORM_RMS, 0),
                    .wmode = WB_GROUP,
                    .x = x,
                    .w = w,
                    .y = y,
                    .rstd = rstd,
                    .eps = eps};
  return rownorm(&q);
}

/* Items [lo, hi) of the pair {q plan, k plan}: each whole, in the calling thread. */
NKL_ENTRY_TEXT static void qk_pair(const void *ctx, int64_t lo, int64_t hi) {
  const rn_plan *const *both = (const rn_plan *const *)ctx;
  for (int64_t i = lo; i < hi; i++) ((nkl_range_fn)both[i]->k->fn)(&both[i]->a, 0, both[i]->m);
}

/* One half of QKNorm: an RMSNorm request whose messages use QKNorm's argument names. */
NKL_ENTRY_TEXT static rn_req qk_half(const nkl_tensor *x, const nkl_tensor *w, float eps,
                                     nkl_tensor *y, const char *x_name, const char *w_name,
                                     const char *y_name) {
  return (rn_req){REQ("qknorm_fwd", rmsnorm_fwd, ROWNORM_RMS, 0),
                  .x = x,
                  .w = w,
                  .y = y,
                  .eps = eps,
                  .x_name = x_name,
                  .w_name = w_name,
                  .y_name = y_name};
}

nkl_status nkl_qknorm_fwd(const nkl_tensor *q, const nkl_tensor *k, const nkl_tensor *q_w,
                          const nkl_tensor *k_w, float eps, nkl_tensor *q_out, nkl_tensor *k_out) {
  nkl__begin("qknorm_fwd");
  const rn_req rq = qk_half(q, q_w, eps, q_out, "q", "q_w", "q_out");
  const rn_req rk = qk_half(k, k_w, eps, k_out, "k", "k_w", "k_out");
  rn_plan pq, pk;
  nkl_status s;
  if ((s = prepare(&rq, &pq)) || (s = prepare(&rk, &pk))) return s;
  /* k has q's shape (the chosen contract); neither output may touch the other half */
  if ((s = check_same_shape("qknorm_fwd", k, "k", q, "q"))) return s;
  if (nkl__overlaps(q_out, k) || nkl__overlaps(q_out, k_out) || nkl__overlaps(k_out, q) ||
      (k_w && nkl__overlaps(q_out, k_w)) || (q_w && nkl__overlaps(k_out, q_w)))
    return nkl__fail(NKL_ERR_ALIAS, "qknorm_fwd: q_out/k_out overlap the other tensor's data");
  /* Two single-threaded calls (decode rows) run side by side, one per thread: [1, 16384]
   * bf16 took 13-22 us as two calls in turn, 9-16 us side by side; [1, 8192] 7.2 -> 6.0 us
   * (nkl bench, Zen 2 guest). */
  if (pq.threads == 1 && pk.threads == 1 && pq.wb_from == NKL_F32 && pk.wb_from == NKL_F32 &&
      nkl_get_num_threads() >= 2) {
    const rn_plan *both[2] = {&pq, &pk};
    nkl__parallel_arith(2, 2, qk_pair, both);
    nkl__ran_kernel("qknorm_fwd", pq.k->name);
    return NKL_OK;
  }
  if ((s = run("qknorm_fwd", &pq))) return s;
  return run("qknorm_fwd", &pk);
}

nkl_status nkl_rmsnorm_quant_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps,
                                 float scale_floor, nkl_tensor *q, nkl_tensor *scale) {
  const rn_req r = {REQ("rmsnorm_quant_fwd", rmsnorm_quant_fwd, ROWNORM_RMS, RN_QUANT),
                    .x = x,
                    .w = w,
                    .y = q,
                    .scale = scale,
                    .eps = eps,
                    .scale_floor = scale_floor};
  return rownorm(&r);
}

nkl_status nkl_layernorm_quant_fwd(const nkl_tensor *x, const nkl_tensor *w, const nkl_tensor *b,
                                   float eps, float scale_floor, nkl_tensor *q, nkl_tensor *scale) {
  const rn_req r = {REQ("layernorm_quant_fwd", layernorm_quant_fwd, ROWNORM_LN, RN_QUANT),
                    .x = x,
                    .w = w,
                    .b = b,
                    .y = q,
                    .scale = scale,
                    .eps = eps,
                    .scale_floor = scale_floor};
  return rownorm(&r);
}

nkl_status nkl_weightnorm_fwd(const nkl_tensor *v, const nkl_tensor *g, nkl_tensor *out,
                              nkl_tensor *norm) {
  const rn_req q = {REQ("weightnorm_fwd", weightnorm_fwd, ROWNORM_WN, 0),
                    .x = v,
                    .g = g,
                    .y = out,
                    .rstd = norm,
                    .x_name = "v",
                    .y_name = "out",
                    .rstd_name = "norm"};
  return rownorm(&q);
}
