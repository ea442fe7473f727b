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

/* y = x * rsqrt(mean(x^2) + eps) * (1 + w), the weight offset formed in f32 (Gemma). */
nkl_status nkl_gemma_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps, nkl_tensor *y,
                                 nkl_tensor *rstd);

/* r = x + residual rounded to x's dtype, written to residual_out; y = RMSNorm(r) * w. One
 * pass over memory. residual_out may be x or residual itself (exact in-place); y may be x. */
nkl_status nkl_fused_add_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *residual,
                                     const nkl_tensor *w, float eps, nkl_tensor *y,
                                     nkl_tensor *residual_out, nkl_tensor *rstd);
/* As above with LayerNorm: y = LN(r) * w + b. */
nkl_status nkl_fused_add_layernorm_fwd(const nkl_tensor *x, const nkl_tensor *residual,
                                       const nkl_tensor *w, const nkl_tensor *b, float eps,
                                       nkl_tensor *y, nkl_tensor *residual_out, nkl_tensor *mean,
                                       nkl_tensor *rstd);

/* y = scale * LN(x) + shift (LN without affine; not (1 + scale)). scale and shift have x's
 * shape (one row per row of x), contiguous, in x's dtype or f32. Both are required. */
nkl_status nkl_adalayernorm_fwd(const nkl_tensor *x, const nkl_tensor *scale,
                                const nkl_tensor *shift, float eps, nkl_tensor *y, nkl_tensor *mean,
                                nkl_tensor *rstd);

/* Two independent RMSNorms over the last dim: q_out = RMSNorm(q) * q_w, k_out likewise.
 * k must have q's shape. All arguments are validated before either output is written. */
nkl_status nkl_qknorm_fwd(const nkl_tensor *q, const nkl_tensor *k, const nkl_tensor *q_w,
                          const nkl_tensor *k_w, float eps, nkl_tensor *q_out, nkl_tensor *k_out);

/* x [..., G, D], w [G, D] (required, contiguous): RMSNorm over D for each (..., g) with the
 * elementwise weight w[g, :]. rstd (optional) has x.shape[:-1] elements. */
nkl_status nkl_group_rmsnorm_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps, nkl_tensor *y,
                                 nkl_tensor *rstd);

/* y = RMSNorm(x) * w (resp. LN(x) * w + b) in f32, then per row
 *   scale[r] = max(max|y|, scale_floor) / 448,  q = e4m3(y / scale[r])
 * q is fp8 e4m3 with x's shape; scale (required) is f32 with one element per row. e4m3:
 * saturate to +-448, round to nearest even, never the NaN code for a non-NaN value. A NaN
 * in a row makes that row's scale and codes NaN. PyTorch-style scale_floor: 1e-12. */
nkl_status nkl_rmsnorm_quant_fwd(const nkl_tensor *x, const nkl_tensor *w, float eps,
                                 float scale_floor, nkl_tensor *q, nkl_tensor *scale);
nkl_status nkl_layernorm_quant_fwd(const nkl_tensor *x, const nkl_tensor *w, const nkl_tensor *b,
                                   float eps, float scale_floor, nkl_tensor *q, nkl_tensor *scale);

/* Weight norm with dim = 0 over v viewed as rows: norm[r] = sqrt(sum_j v[r,j]^2),
 * out = v * (g[r] / norm[r]) (no eps: a zero row gives NaN, as in PyTorch). g has one
 * element per row (x's dtype or f32); norm (optional) is f32. */
nkl_status nkl_weightnorm_fwd(const nkl_tensor *v, const nkl_tensor *g, nkl_tensor *out,
                              nkl_tensor *norm);

/* Backward of RMSNorm / LayerNorm given the forward's statistics (rstd, and mean for LN;
 * f32, one per row). With z = (x - mean) * rstd (mean = 0 for RMS) and g = dy * w:
 *   dx = rstd * (g - z * mean(g * z) - mean(g))      (RMS: without the mean(g) term)
 *   dw = sum over rows of dy * z,  db = sum over rows of dy
 * dy and dx have x's shape and dtype (dx may be x or dy itself); w may be NULL (1); dw and
 * db (optional) are [N] in w's dtype (x's when w is NULL). dw/db are reduced in a fixed
 * order: identical for any thread count. */
nkl_status nkl_rmsnorm_bwd(const nkl_tensor *x, const nkl_tensor *dy, const nkl_tensor *w,
                           const nkl_tensor *rstd, nkl_tensor *dx, nkl_tensor *dw);
nkl_status nkl_layernorm_bwd(const nkl_tensor *x, const nkl_tensor *dy, const nkl_tensor *w,
                             const nkl_tensor *mean, const nkl_tensor *rstd, nkl_tensor *dx,
                             nkl_tensor *dw, nkl_tensor *db);

/* L1 / L2 norm over the dims listed in dims[0..ndims) (negative counts from the end;
 * ndims = 0: every dim), keepdim = false: y = sum|x| resp. sqrt(sum x^2), accumulated in
 * f32 over fixed blocks added in a fixed order (identical on every ISA and thread count),
 * rounded once to x's dtype. x and y are contiguous; y has the kept dims (rank 0 for a
 * full reduction). The kept dims must be adjacent (NKL_ERR_UNSUPPORTED otherwise). */
nkl_status nkl_l1norm_fwd(const nkl_tensor *x, const int *dims, int ndims, nkl_tensor *y);
nkl_status nkl_l2norm_fwd(const nkl_tensor *x, const int *dims, int ndims, nkl_tensor *y);

/* One power iteration of the spectral norm of w [O, I] (f32, f16 or bf16, contiguous):
 *   v = normalize(w^T u),  u_out = normalize(w v),  sigma = u_out . (w v)
 * with normalize(a) = a / max(||a||, eps) (PyTorch: eps 1e-12). u [O], u_out [O], v_out [I]
 * and sigma (one element) are f32; u_out may be u itself. An incoming v is not needed: the
 * iteration overwrites it first. Two passes over w (w^T u by fixed row chunks reduced in
 * order, then w v), f32 accumulation, identical on every ISA and thread count. */
nkl_status nkl_spectral_norm_power_iter_fwd(const nkl_tensor *w, const nkl_tensor *u, float eps,
                                            nkl_tensor *u_out, nkl_tensor *v_out,
                                            nkl_tensor *sigma);

#ifdef __cplusplus
}
#endif

#endif /* NKL_NORM_H */
