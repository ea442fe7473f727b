/* Public entry points of the row-norm group: validate, pick the kernel, split rows across
 * threads. */
#include <stdlib.h>

#include "core/internal.h"
#include "norm/rownorm/rownorm.h"

/* Prototypes of every kernel: <prefix>_f32acc_<op>__<isa>. */
#define DECL_OP(pfx, op, isa)                                                             \
  void pfx##_f32acc_##op##__##isa(const void *a, int64_t r0, int64_t r1);
#define DECL_DT(pfx, xt, wt)                                                              \
  DECL_OP(pfx, rmsnorm_fwd, scalar) DECL_OP(pfx, layernorm_fwd, scalar)                   \
  DECL_OP(pfx, rmsnorm_fwd, avx2) DECL_OP(pfx, layernorm_fwd, avx2)                       \
  DECL_OP(pfx, rmsnorm_fwd, avx512) DECL_OP(pfx, layernorm_fwd, avx512)
NKL_ROWNORM_DTYPES(DECL_DT)

#define KEY(xt, wt) ((int)(xt) * 16 + (int)(wt))
#define ENTRY(pfx, op, isa, level, xt, wt)                                                \
  {#pfx "_f32acc_" #op "__" #isa, level, KEY(xt, wt), (void (*)(void))pfx##_f32acc_##op##__##isa},

/* Ordered best first; the scalar kernels come last. The AVX-512-BF16 level adds nothing
 * here: vcvtneps2bf16 flushes denormals (it would change results) and there is no dot
 * product to accelerate, so those CPUs run the AVX-512 kernels. */
#if defined(__x86_64__)
#define X86_ENTRIES(op, pfx, xt, wt)                                                      \
  ENTRY(pfx, op, avx512, NKL_ISA_AVX512, xt, wt) ENTRY(pfx, op, avx2, NKL_ISA_AVX2, xt, wt)
#else
#define X86_ENTRIES(op, pfx, xt, wt)
#endif
#define RMS_X86(pfx, xt, wt) X86_ENTRIES(rmsnorm_fwd, pfx, xt, wt)
#define RMS_SCALAR(pfx, xt, wt) ENTRY(pfx, rmsnorm_fwd, scalar, NKL_ISA_SCALAR, xt, wt)
#define LN_X86(pfx, xt, wt) X86_ENTRIES(layernorm_fwd, pfx, xt, wt)
#define LN_SCALAR(pfx, xt, wt) ENTRY(pfx, layernorm_fwd, scalar, NKL_ISA_SCALAR, xt, wt)

static const nkl_kernel_entry kRmsKernels[] = {
    NKL_ROWNORM_DTYPES(RMS_X86) NKL_ROWNORM_DTYPES(RMS_SCALAR)};
static const nkl_kernel_entry kLnKernels[] = {
    NKL_ROWNORM_DTYPES(LN_X86) NKL_ROWNORM_DTYPES(LN_SCALAR)};

/* Checks a per-channel vector: rank 1, [n], contiguous, dtype x's or f32. */
static nkl_status check_vec(const nkl_tensor *v, const char *what, int64_t n, nkl_dtype xt) {
  nkl_status s = nkl__check_tensor(v, what);
  if (s) return s;
  if (v->rank != 1) return nkl__fail(NKL_ERR_BAD_RANK, "%s must be rank 1, got %d", what, v->rank);
  if (v->shape[0] != n)
    return nkl__fail(NKL_ERR_BAD_SHAPE, "%s has %lld elements, the rows have %lld", what,
                     (long long)v->shape[0], (long long)n);
  if (v->strides[0] != 1 && n > 1)
    return nkl__fail(NKL_ERR_BAD_STRIDE, "%s must be contiguous", what);
  if (v->dtype != xt && v->dtype != NKL_F32)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s is %s; must be %s (like x) or f32", what,
                     nkl_dtype_name(v->dtype), nkl_dtype_name(xt));
  return NKL_OK;
}

/* Checks an optional f32 statistics output with `rows` elements. */
static nkl_status check_stat(const nkl_tensor *t, const char *what, int64_t rows) {
  if (!t) return NKL_OK;
  nkl_status s = nkl__check_tensor(t, what);
  if (s) return s;
  if (t->dtype != NKL_F32)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s must be f32, got %s", what, nkl_dtype_name(t->dtype));
  if (nkl__numel(t) != rows)
    return nkl__fail(NKL_ERR_BAD_SHAPE, "%s has %lld elements; x has %lld rows", what,
                     (long long)nkl__numel(t), (long long)rows);
  if (!nkl__is_contiguous(t)) return nkl__fail(NKL_ERR_BAD_STRIDE, "%s must be contiguous", what);
  return NKL_OK;
}

static nkl_status rownorm(const char *op, rownorm_kind kind, const nkl_tensor *x,
                          const nkl_tensor *w, const nkl_tensor *b, float eps, nkl_tensor *y,
                          nkl_tensor *mean, nkl_tensor *rstd) {
  nkl__clear_error();
  nkl_status s;
  if ((s = nkl__check_tensor(x, "x")) || (s = nkl__check_tensor(y, "y"))) return s;
  if (x->dtype != NKL_F32 && x->dtype != NKL_F16 && x->dtype != NKL_BF16)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: x dtype %s not supported (f32, f16, bf16)", op,
                     nkl_dtype_name(x->dtype));
  if (y->dtype != x->dtype)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: y is %s but x is %s", op, nkl_dtype_name(y->dtype),
                     nkl_dtype_name(x->dtype));
  if (x->rank != y->rank)
    return nkl__fail(NKL_ERR_BAD_SHAPE, "%s: y rank %d differs from x rank %d", op, y->rank,
                     x->rank);
  for (int i = 0; i < x->rank; i++)
    if (x->shape[i] != y->shape[i]) {
      char bx[128], by[128];
      return nkl__fail(NKL_ERR_BAD_SHAPE, "%s: y shape %s differs from x shape %s", op,
                       nkl__shape_str(y, by, sizeof by), nkl__shape_str(x, bx, sizeof bx));
    }
  int64_t m, n, xrs, yrs, m2, n2;
  if ((s = nkl__as_rows(x, "x", &m, &n, &xrs)) || (s = nkl__as_rows(y, "y", &m2, &n2, &yrs)))
    return s;
  if (w && (s = check_vec(w, "w", n, x->dtype))) return s;
  if (b && (s = check_vec(b, "b", n, x->dtype))) return s;
  if (w && b && w->dtype != b->dtype)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: w is %s but b is %s", op, nkl_dtype_name(w->dtype),
                     nkl_dtype_name(b->dtype));
  if ((s = check_stat(mean, "mean", m)) || (s = check_stat(rstd, "rstd", m))) return s;
  if (!(eps >= 0.0f) || eps > 1e30f)
    return nkl__fail(NKL_ERR_BAD_PARAM, "%s: eps must be finite and >= 0 (got %g)", op,
                     (double)eps);
  /* y may be x itself (same rows); any other overlap with an input is rejected. */
  const bool in_place = y->data == x->data && yrs == xrs;
  if (!in_place && nkl__overlaps(x, y))
    return nkl__fail(NKL_ERR_ALIAS, "%s: y overlaps x (only exact in-place is allowed)", op);
  if ((w && nkl__overlaps(w, y)) || (b && nkl__overlaps(b, y)))
    return nkl__fail(NKL_ERR_ALIAS, "%s: y overlaps w or b", op);

  const nkl_dtype wt = w ? w->dtype : b ? b->dtype : x->dtype;
  const nkl_kernel_entry *list = kind == ROWNORM_RMS ? kRmsKernels : kLnKernels;
  const size_t count = kind == ROWNORM_RMS ? sizeof kRmsKernels / sizeof kRmsKernels[0]
                                           : sizeof kLnKernels / sizeof kLnKernels[0];
  const nkl_kernel_entry *k = nkl__select(list, count, KEY(x->dtype, wt));
  if (!k) return nkl__fail(NKL_ERR_INTERNAL, "%s: no kernel for this dtype", op);

  const size_t es = nkl_dtype_size(x->dtype);
  const rownorm_args args = {x->data, xrs,  y->data, yrs, w ? w->data : NULL,
                             b ? b->data : NULL, n, eps,
                             mean ? (float *)mean->data : NULL,
                             rstd ? (float *)rstd->data : NULL,
                             nkl__use_streaming_stores(y->data, yrs * (int64_t)es, m * n * (int64_t)es, 16 * es)};
  const int64_t bytes = 2 * m * n * (int64_t)nkl_dtype_size(x->dtype);
  /* Rows are independent, so the thread split never changes a result. */
  nkl__parallel_range(nkl__threads_for(m, bytes), m, (nkl_range_fn)k->fn, &args);
  nkl__ran_kernel(op, k->name);
  return NKL_OK;
}

nkl_status nkl_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps, nkl_tensor *y,
                           nkl_tensor *rstd) {
  return rownorm("rmsnorm_fwd", ROWNORM_RMS, x, w, NULL, eps, y, NULL, rstd);
}

nkl_status nkl_layernorm_fwd(const nkl_tensor *x, const nkl_tensor *w, const nkl_tensor *b,
                             float eps, nkl_tensor *y, nkl_tensor *mean, nkl_tensor *rstd) {
  return rownorm("layernorm_fwd", ROWNORM_LN, x, w, b, eps, y, mean, rstd);
}
