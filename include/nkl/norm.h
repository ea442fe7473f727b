/* nkl normalization operators. Included by nkl.h; see docs/ops-norm.md.
 *
 * Row norms view x as [M, N]: N is the last dimension (stride 1); the leading dimensions
 * must collapse into rows with one uniform row stride (so a row-strided 2-D view works).
 * y has x's shape and dtype, with its own row stride. Per-channel vectors (w, b) are rank-1
 * [N], contiguous, in x's dtype or f32; pass NULL for "no affine". Optional statistics
 * outputs (mean, rstd) are contiguous f32 tensors with M elements, or NULL.
 */
#ifndef NKL_NORM_H
#define NKL_NORM_H

#ifdef __cplusplus
extern "C" {
#endif

/* y = x * rsqrt(mean(x^2) + eps) * w.  PyTorch default eps: 1e-6 (Llama). */
nkl_status nkl_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps, nkl_tensor *y,
                           nkl_tensor *rstd);

/* y = (x - mean) / sqrt(var + eps) * w + b, biased variance. PyTorch default eps: 1e-5. */
nkl_status nkl_layernorm_fwd(const nkl_tensor *x, const nkl_tensor *w, const nkl_tensor *b,
                             float eps, nkl_tensor *y, nkl_tensor *mean, nkl_tensor *rstd);

#ifdef __cplusplus
}
#endif

#endif /* NKL_NORM_H */
