/* Public entry point of SpectralNormPowerIterFwd: validate, then one power iteration in two
 * passes over W (W^T u by fixed row chunks reduced in order, then W v by rows); the small
 * vector steps run here in plain C with a fixed 16-lane layout, so no result depends on the
 * ISA or the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/scratch.h"
#include "norm/spectral/spectral.h"

#define DECL_ISA(name, pfx, isa) \
  void pfx##_f32acc_##name##__##isa(const void *a, int64_t b0, int64_t b1);
/* both kernels of a dtype, on every ISA */
#define DECL_ISAS(name, pfx) \
  DECL_ISA(name, pfx, scalar) DECL_ISA(name, pfx, avx2) DECL_ISA(name, pfx, avx512)
#define DECL(op, pfx, wt) DECL_ISAS(spectral_wtu, pfx) DECL_ISAS(spectral_wv, pfx)
NKL_SPECTRAL_DTYPES(DECL, unused)

#define ENTRY(name, pfx, isa, level, wt) \
  {#pfx "_f32acc_" #name "__" #isa, level, (int)(wt), (void (*)(void))pfx##_f32acc_##name##__##isa},
#if defined(__x86_64__)
#define X86(name, pfx, wt) \
  ENTRY(name, pfx, avx512, NKL_ISA_AVX512, wt) ENTRY(name, pfx, avx2, NKL_ISA_AVX2, wt)
#else
#define X86(name, pfx, wt)
#endif
#define SCALAR(name, pfx, wt) ENTRY(name, pfx, scalar, NKL_ISA_SCALAR, wt)
static const nkl_kernel_entry k_wtu[] = {NKL_SPECTRAL_DTYPES(X86, spectral_wtu)
                                             NKL_SPECTRAL_DTYPES(SCALAR, spectral_wtu)};
static const nkl_kernel_entry k_wv[] = {NKL_SPECTRAL_DTYPES(X86, spectral_wv)
                                            NKL_SPECTRAL_DTYPES(SCALAR, spectral_wv)};

/* Row chunks of W^T u: a function of O only; each costs one f32 row of scratch. */
enum { kMaxChunks = 32 };

/* sum_k a[k] * b[k] * scale (b = a for a square), element k in lane k % 16, then the lane
 * tree (i, i+8), (i, i+4), (i, i+2), (i, i+1). */
static float dot16(const float *a, const float *b, float inv, int64_t n) {
  float acc[16] = {0};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16) /* written per lane so the compiler vectorizes it */
    for (int l = 0; l < 16; l++) acc[l] += (a[k + l] * inv) * b[k + l];
  for (int l = 0; k + l < n; l++) acc[l] += (a[k + l] * inv) * b[k + l];
  for (int w = 8; w >= 1; w /= 2)
    for (int l = 0; l < w; l++) acc[l] = acc[l] + acc[l + w];
  return acc[0];
}

typedef struct reduce_ctx {
  const float *part;
  int64_t chunks, n;
  float *out;
} reduce_ctx;

/* out[j] = ((part[0][j] + part[1][j]) + part[2][j]) + ... for j in [j0, j1): the chunks in
 * order, so the bits do not depend on the thread count. Column blocks of 4 KiB, chunk by chunk
 * inside a block: contiguous loops the compiler vectorises. (Summing one column over the
 * chunks at a time was a dependent chain of 32 scalar adds per column, with loads 64 KiB
 * apart: on the Zen 5 guest 200 us of a 3.6 ms [2048, 16384] call, 10% of a [2048, 8192].) */
static void reduce_cols(const void *p, int64_t j0, int64_t j1) {
  const reduce_ctx *r = p;
  enum { kBlock = 1024 };
  float *restrict out = r->out;
  for (int64_t jb = j0; jb < j1; jb += kBlock) {
    const int64_t je = jb + kBlock < j1 ? jb + kBlock : j1;
    memcpy(out + jb, r->part + jb, (size_t)(je - jb) * sizeof(float));
    for (int64_t c = 1; c < r->chunks; c++) {
      const float *restrict pc = r->part + c * r->n;
      for (int64_t j = jb; j < je; j++) out[j] += pc[j];
    }
  }
}

NKL_ENTRY_TEXT static nkl_status check_f32_vec(const nkl_tensor *t, const char *what, int64_t len) {
  if (!t) return nkl__fail(NKL_ERR_NULL_POINTER, "%s is required", what);
  nkl_status s = nkl__check_tensor(t, what);
  if (s) return s;
  if (t->dtype != NKL_F32)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s must be f32, got %s", what, nkl_dtype_name(t->dtype));
  if (nkl__numel(t) != len || t->rank > 1)
    return nkl__fail(t->rank > 1 ? NKL_ERR_BAD_RANK : NKL_ERR_BAD_SHAPE,
                     "%s must have %lld elements (rank <= 1)", what, (long long)len);
  if (!nkl__is_contiguous(t)) return nkl__fail(NKL_ERR_BAD_STRIDE, "%s must be contiguous", what);
  return NKL_OK;
}

NKL_ENTRY_TEXT nkl_status nkl_spectral_norm_power_iter_fwd(const nkl_tensor *w, const nkl_tensor *u,
                                                           float eps, nkl_tensor *u_out,
                                                           nkl_tensor *v_out, nkl_tensor *sigma) {
  NKL_PREFETCH_ENTRY(w, u, u_out, v_out, sigma);
  nkl__begin("spectral_norm_power_iter_fwd");
  nkl_status s;
  if ((s = nkl__check_tensor(w, "w"))) return s;
  const nkl_dtype wt = w->dtype;
  if (wt != NKL_F32 && wt != NKL_F16 && wt != NKL_BF16)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "w dtype %s not supported (f32, f16, bf16)",
                     nkl_dtype_name(wt));
  if (w->rank != 2) return nkl__fail(NKL_ERR_BAD_RANK, "w must be [O, I], got rank %d", w->rank);
  if (!nkl__is_contiguous(w)) return nkl__fail(NKL_ERR_BAD_STRIDE, "w must be contiguous");
  const int64_t O = w->shape[0], I = w->shape[1];
  if ((s = check_f32_vec(u, "u", O)) || (s = check_f32_vec(u_out, "u_out", O)) ||
      (s = check_f32_vec(v_out, "v_out", I)) || (s = check_f32_vec(sigma, "sigma", 1)))
    return s;
  if (!(eps >= 0.0f) || eps > 1e30f)
    return nkl__fail(NKL_ERR_BAD_PARAM, "eps must be finite and >= 0 (got %g)", (double)eps);
  /* u_out may be u itself (u is consumed by the first pass); nothing else may overlap */
  const nkl_tensor *all[] = {w, u, u_out, v_out, sigma};
  for (int a = 2; a < 5; a++)
    for (int b = 0; b < 5; b++)
      if (b != a && !(a == 2 && b == 1 && u_out->data == u->data) && nkl__overlaps(all[a], all[b]))
        return nkl__fail(NKL_ERR_ALIAS, "an output overlaps another tensor");
  const nkl_kernel_entry *kt = nkl__select(k_wtu, sizeof k_wtu / sizeof k_wtu[0], (int)wt);
  const nkl_kernel_entry *kv = nkl__select(k_wv, sizeof k_wv / sizeof k_wv[0], (int)wt);
  if (!kt || !kv) return nkl__fail(NKL_ERR_INTERNAL, "no kernel for this dtype");
  const int64_t chunks = O < kMaxChunks ? O : kMaxChunks;
  /* one chunk (O = 1): its partial row is t itself, written straight into v_out */
  float *part =
      chunks == 1 ? (float *)v_out->data : nkl__scratch_get((size_t)(chunks * I) * sizeof(float));
  if (!part) return nkl__fail(NKL_ERR_ALLOC, "cannot allocate the partial sums");
  float *v = v_out->data, *uo = u_out->data;
  const int64_t bytes = O * I * (int64_t)nkl_dtype_size(wt);
  /* pass 1: t = W^T u into v_out */
  const spectral_args a1 = {w->data, O, I, u->data, NULL, NULL, chunks, part};
  nkl__parallel_arith(nkl__threads_for(chunks, bytes), chunks, (nkl_range_fn)kt->fn, &a1);
  if (chunks > 1) {
    const reduce_ctx r = {part, chunks, I, v};
    nkl__parallel_arith(nkl__threads_for(I, chunks * I * 4), I, reduce_cols, &r);
    nkl__scratch_put(part);
  }
  /* v = t / max(||t||, eps) */
  const float nt = sqrtf(dot16(v, v, 1.0f, I)), dt = nt > eps ? nt : eps;
  for (int64_t j = 0; j < I; j++) v[j] = v[j] / dt;
  /* pass 2: s = W v into u_out; u = s / max(||s||, eps); sigma = u . s */
  const spectral_args a2 = {w->data, O, I, NULL, v, uo, 0, NULL};
  nkl__parallel_arith(nkl__threads_for(O, bytes), O, (nkl_range_fn)kv->fn, &a2);
  const float ns = sqrtf(dot16(uo, uo, 1.0f, O)), ds = ns > eps ? ns : eps;
  *(float *)sigma->data = dot16(uo, uo, 1.0f / ds, O);
  for (int64_t k = 0; k < O; k++) uo[k] = uo[k] / ds;
  nkl__ran_kernel("spectral_norm_power_iter_fwd", kv->name);
  return NKL_OK;
}
