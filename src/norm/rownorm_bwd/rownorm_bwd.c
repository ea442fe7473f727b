/* Public entry points of the RMSNorm / LayerNorm backward: validate, pick the kernel, run
 * the fixed row chunks in parallel, then reduce the chunks' dw/db partial rows in chunk
 * order (no atomics: the result does not depend on the thread count). */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/scratch.h"
#include "norm/rownorm_bwd/rownorm_bwd.h"

#define DECL_ISA(op, pfx, isa) \
  void pfx##_f32acc_##op##__##isa(const void *a, int64_t c0, int64_t c1);
#define DECL(op, pfx, xt, wt) \
  DECL_ISA(op, pfx, scalar) DECL_ISA(op, pfx, avx2) DECL_ISA(op, pfx, avx512)
NKL_ROWNORM_BWD_DTYPES(DECL, rmsnorm_bwd)
NKL_ROWNORM_BWD_DTYPES(DECL, layernorm_bwd)
#define DECL_BF16(op, pfx, xt, wt) DECL_ISA(op, pfx, avx512bf16)
NKL_ROWNORM_BWD_BF16_DTYPES(DECL_BF16, rmsnorm_bwd)
NKL_ROWNORM_BWD_BF16_DTYPES(DECL_BF16, layernorm_bwd)
#define DECL_R_ISA(op, pfx, isa) void pfx##_##op##__##isa(const void *r, int64_t j0, int64_t j1);
#define DECL_R(op, pfx, ot) \
  DECL_R_ISA(op, pfx, scalar) DECL_R_ISA(op, pfx, avx2) DECL_R_ISA(op, pfx, avx512)
NKL_ROWNORM_BWD_REDUCE_DTYPES(DECL_R, rownorm_bwd_reduce)

#define KEY(xt, wt) ((int)(xt)*16 + (int)(wt))
#define ENTRY(op, pfx, isa, level, xt, wt) \
  {#pfx "_f32acc_" #op "__" #isa, level, KEY(xt, wt), (void (*)(void))pfx##_f32acc_##op##__##isa},
/* Ordered best first (the first one the CPU supports runs); scalar last. */
#if defined(__x86_64__)
#define X86(op, pfx, xt, wt) \
  ENTRY(op, pfx, avx512, NKL_ISA_AVX512, xt, wt) ENTRY(op, pfx, avx2, NKL_ISA_AVX2, xt, wt)
#define BF16(op, pfx, xt, wt) ENTRY(op, pfx, avx512bf16, NKL_ISA_AVX512BF16, xt, wt)
#else
#define X86(op, pfx, xt, wt)
#define BF16(op, pfx, xt, wt)
#endif
#define SCALAR(op, pfx, xt, wt) ENTRY(op, pfx, scalar, NKL_ISA_SCALAR, xt, wt)
static const nkl_kernel_entry k_rms[] = {NKL_ROWNORM_BWD_BF16_DTYPES(BF16, rmsnorm_bwd)
                                             NKL_ROWNORM_BWD_DTYPES(X86, rmsnorm_bwd)
                                                 NKL_ROWNORM_BWD_DTYPES(SCALAR, rmsnorm_bwd)};
#define R_ENTRY(op, pfx, isa, level, ot) \
  {#pfx "_" #op "__" #isa, level, (int)(ot), (void (*)(void))pfx##_##op##__##isa},
#if defined(__x86_64__)
#define R_X86(op, pfx, ot) \
  R_ENTRY(op, pfx, avx512, NKL_ISA_AVX512, ot) R_ENTRY(op, pfx, avx2, NKL_ISA_AVX2, ot)
#else
#define R_X86(op, pfx, ot)
#endif
#define R_SCALAR(op, pfx, ot) R_ENTRY(op, pfx, scalar, NKL_ISA_SCALAR, ot)
static const nkl_kernel_entry k_reduce[] = {NKL_ROWNORM_BWD_REDUCE_DTYPES(
    R_X86, rownorm_bwd_reduce) NKL_ROWNORM_BWD_REDUCE_DTYPES(R_SCALAR, rownorm_bwd_reduce)};
static const nkl_kernel_entry k_ln[] = {NKL_ROWNORM_BWD_BF16_DTYPES(BF16, layernorm_bwd)
                                            NKL_ROWNORM_BWD_DTYPES(X86, layernorm_bwd)
                                                NKL_ROWNORM_BWD_DTYPES(SCALAR, layernorm_bwd)};

/* Row chunks of the dw/db partial sums: a function of m only (never of the thread count),
 * enough of them to keep every thread busy; each costs one f32 row of scratch. */
enum { kMaxChunks = 32 };

NKL_ENTRY_TEXT static nkl_status check_rows(const char *op, const nkl_tensor *t, const char *what,
                                            const nkl_tensor *x, int64_t *rs) {
  if (!t) return nkl__fail(NKL_ERR_NULL_POINTER, "%s: %s is required", op, what);
  nkl_status s = nkl__check_tensor(t, what);
  if (s) return s;
  if (t->dtype != x->dtype)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: %s is %s but x is %s", op, what,
                     nkl_dtype_name(t->dtype), nkl_dtype_name(x->dtype));
  bool same = t->rank == x->rank;
  for (int i = 0; same && i < t->rank; i++) same = t->shape[i] == x->shape[i];
  if (!same) {
    char bt[128], bx[128];
    return nkl__fail(NKL_ERR_BAD_SHAPE, "%s: %s shape %s differs from x shape %s", op, what,
                     nkl__shape_str(t, bt, sizeof bt), nkl__shape_str(x, bx, sizeof bx));
  }
  int64_t m, n;
  return nkl__as_rows(t, what, &m, &n, rs);
}

/* A contiguous rank-1 vector of len elements of dtype dt (or f32 when f32_ok). */
NKL_ENTRY_TEXT static nkl_status check_vec(const char *op, const nkl_tensor *v, const char *what,
                                           int64_t len, nkl_dtype dt, bool f32_ok) {
  nkl_status s = nkl__check_tensor(v, what);
  if (s) return s;
  if (v->dtype != dt && !(f32_ok && v->dtype == NKL_F32))
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: %s is %s; must be %s%s", op, what,
                     nkl_dtype_name(v->dtype), nkl_dtype_name(dt), f32_ok ? " or f32" : "");
  if (nkl__numel(v) != len || v->rank != 1)
    return nkl__fail(v->rank != 1 ? NKL_ERR_BAD_RANK : NKL_ERR_BAD_SHAPE,
                     "%s: %s must be [%lld] (rank 1)", op, what, (long long)len);
  if (!nkl__is_contiguous(v))
    return nkl__fail(NKL_ERR_BAD_STRIDE, "%s: %s must be contiguous", op, what);
  return NKL_OK;
}

NKL_ENTRY_TEXT static nkl_status bwd(const char *op, bool ln, const nkl_tensor *x,
                                     const nkl_tensor *dy, const nkl_tensor *w,
                                     const nkl_tensor *mean, const nkl_tensor *rstd, nkl_tensor *dx,
                                     nkl_tensor *dw, nkl_tensor *db) {
  NKL_PREFETCH_ENTRY(x, dy, w, mean, rstd, dx, dw, db);
  nkl__begin(op);
  nkl_status s;
  if ((s = nkl__check_tensor(x, "x"))) return s;
  const nkl_dtype xt = x->dtype;
  if (xt != NKL_F32 && xt != NKL_F16 && xt != NKL_BF16)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: x dtype %s not supported (f32, f16, bf16)", op,
                     nkl_dtype_name(xt));
  int64_t m, n, xrs, dyrs, dxrs;
  if ((s = nkl__as_rows(x, "x", &m, &n, &xrs)) || (s = check_rows(op, dy, "dy", x, &dyrs)) ||
      (s = check_rows(op, dx, "dx", x, &dxrs)))
    return s;
  if (w && (s = check_vec(op, w, "w", n, xt, true))) return s;
  const nkl_dtype wt = w ? w->dtype : xt;
  if ((s = check_vec(op, rstd, "rstd", m, NKL_F32, false)) ||
      (ln && (s = check_vec(op, mean, "mean", m, NKL_F32, false))) ||
      (dw && (s = check_vec(op, dw, "dw", n, wt, false))) ||
      (db && (s = check_vec(op, db, "db", n, wt, false))))
    return s;
  if (!rstd || (ln && !mean))
    return nkl__fail(NKL_ERR_NULL_POINTER, "%s: the forward's statistics are required", op);
  /* dx may be x or dy exactly (each element is read before it is written); no other
   * output may touch an input or another output */
  const bool dx_in_place =
      (dx->data == x->data && dxrs == xrs) || (dx->data == dy->data && dxrs == dyrs);
  if (!dx_in_place && (nkl__overlaps(dx, x) || nkl__overlaps(dx, dy)))
    return nkl__fail(NKL_ERR_ALIAS, "%s: dx overlaps x or dy (only exact in-place is allowed)", op);
  const nkl_tensor *ins[] = {x, dy, w, mean, rstd};
  nkl_tensor *outs[] = {dx, dw, db};
  for (int o = 0; o < 3; o++) {
    if (!outs[o]) continue;
    for (int i = o == 0 ? 2 : 0; i < 5; i++)
      if (ins[i] && nkl__overlaps(outs[o], ins[i]))
        return nkl__fail(NKL_ERR_ALIAS, "%s: an output overlaps an input", op);
    for (int p = o + 1; p < 3; p++)
      if (outs[p] && nkl__overlaps(outs[o], outs[p]))
        return nkl__fail(NKL_ERR_ALIAS, "%s: outputs overlap each other", op);
  }
  const nkl_kernel_entry *k =
      nkl__select(ln ? k_ln : k_rms,
                  ln ? sizeof k_ln / sizeof k_ln[0] : sizeof k_rms / sizeof k_rms[0], KEY(xt, wt));
  const nkl_kernel_entry *kr = nkl__select(k_reduce, sizeof k_reduce / sizeof k_reduce[0], (int)wt);
  if (!k || !kr) return nkl__fail(NKL_ERR_INTERNAL, "%s: no kernel for this dtype", op);
  const int64_t chunks = m < kMaxChunks ? m : kMaxChunks;
  const int direct = m == 1; /* see rownorm_bwd.h */
  const int nparts = (dw ? 1 : 0) + (db ? 1 : 0);
  float *part = NULL;
  if (nparts && !direct) {
    const size_t bytes = ((size_t)(nparts * chunks * n) * sizeof(float) + 63) / 64 * 64;
    if (!(part = nkl__scratch_get(bytes)))
      return nkl__fail(NKL_ERR_ALLOC, "%s: cannot allocate %zu bytes of partial sums", op, bytes);
  }
  /* dx is streamed (non-temporal stores) once x, dy and dx exceed the LLC share: 10-25%
   * faster cold on the Zen 4 and Xeon guests, where the backward runs near memory speed. Not
   * on Zen and Zen+ (nkl__tune_zen1), whose halved 256-bit operations leave it compute-bound
   * (40% SOL): there plain stores were 13-18% faster on every prefill row (Zen 1 guest,
   * session 41, cold, 2 threads, 3 alternating rounds: RMSNormBwd W8 6.22 -> 5.12 ms, W5
   * 12.43 -> 10.22, LayerNormBwd W8 7.27 -> 6.36, W3 31.3 -> 26.4). */
  const rownorm_bwd_args a = {
      x->data,
      dy->data,
      xrs,
      dyrs,
      dx->data,
      dxrs,
      w ? w->data : NULL,
      ln ? (const float *)mean->data : NULL,
      (const float *)rstd->data,
      m,
      n,
      chunks,
      dw && !direct ? part : NULL,
      db && !direct ? part + (dw ? chunks * n : 0) : NULL,
      !nkl__tune_zen1 && nkl__use_streaming_stores(dx->data, dxrs * (int64_t)nkl_dtype_size(xt),
                                                   3 * m * n * (int64_t)nkl_dtype_size(xt),
                                                   16 * nkl_dtype_size(xt)),
      direct,
      direct && dw ? dw->data : NULL,
      direct && db ? db->data : NULL};
  const int64_t es = (int64_t)nkl_dtype_size(xt);
  nkl__parallel_arith(nkl__threads_for(chunks, 3 * m * n * es), chunks, (nkl_range_fn)k->fn, &a);
  for (int j = 0; j < 2 && !direct; j++) {
    nkl_tensor *out = j ? db : dw;
    if (!out) continue;
    const rownorm_bwd_reduce_args r = {j ? a.db_part : a.dw_part, chunks, n, out->data};
    nkl__parallel_arith(nkl__threads_for(n, chunks * n * 4), n, (nkl_range_fn)kr->fn, &r);
  }
  nkl__scratch_put(part);
  nkl__ran_kernel(op, k->name);
  return NKL_OK;
}

nkl_status nkl_rmsnorm_bwd(const nkl_tensor *x, const nkl_tensor *dy, const nkl_tensor *w,
                           const nkl_tensor *rstd, nkl_tensor *dx, nkl_tensor *dw) {
  return bwd("rmsnorm_bwd", false, x, dy, w, NULL, rstd, dx, dw, NULL);
}

nkl_status nkl_layernorm_bwd(const nkl_tensor *x, const nkl_tensor *dy, const nkl_tensor *w,
                             const nkl_tensor *mean, const nkl_tensor *rstd, nkl_tensor *dx,
                             nkl_tensor *dw, nkl_tensor *db) {
  return bwd("layernorm_bwd", true, x, dy, w, mean, rstd, dx, dw, db);
}
