/* nkl pool operators. Included by nkl.h; see docs/ops-pool.md.
 *
 * Layout: x is a contiguous NCL (1-d), NCHW (2-d) or NCDHW (3-d) tensor of f32, f16 or bf16;
 * y is contiguous, has x's dtype, rank, N and C, and exactly the output size of the
 * parameters (checked). PyTorch semantics throughout (torch.nn.functional.max_pool*d,
 * avg_pool*d, adaptive_*_pool2d), no indices. Max pools propagate NaN: a window holding a
 * NaN gives a NaN, one of its own. One difference from PyTorch, for f16 and bf16 max pools
 * only: a window whose maximum is zero and that holds both -0 and +0 gives +0 (PyTorch: the
 * zero it meets first; f32 follows PyTorch). They compare 16-bit integer keys, -0 < +0.
 */
#ifndef NKL_POOL_H
#define NKL_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters of the (non-adaptive) pools, per spatial dimension in order (D, H, W; a 2-d pool
 * uses [0..1], a 1-d pool [0]); unused entries are ignored. Every value is explicit: pass
 * PyTorch's defaults yourself (stride = kernel_size, padding 0, dilation 1).
 *  - kernel_size >= 1, stride >= 1, 0 <= padding <= kernel_size / 2, dilation >= 1, each at
 *    most 2^26; avg pools need dilation 1 (PyTorch has none);
 *  - ceil_mode 0/1: output = floor or ceil of (in + 2p - d(k-1) - 1) / s, plus 1, minus 1
 *    when ceil mode would start the last window past the input and its left padding;
 *  - count_include_pad 0/1 (avg): divide by the window clipped to the padded input, or by
 *    the number of valid elements; divisor_override > 0 replaces both; 0 means none. Max
 *    pools need divisor_override 0. */
typedef struct nkl_pool_params {
  int64_t kernel_size[3];
  int64_t stride[3];
  int64_t padding[3];
  int64_t dilation[3];
  int ceil_mode;
  int count_include_pad;
  int64_t divisor_override;
} nkl_pool_params;

/* PyTorch's pooling output size of one dimension; NKL_ERR_BAD_PARAM for out-of-range
 * parameters, NKL_ERR_BAD_SHAPE when the input is too small for one window. */
nkl_status nkl_pool_output_size(int64_t in, int64_t kernel_size, int64_t stride, int64_t padding,
                                int64_t dilation, int ceil_mode, int64_t *out);

nkl_status nkl_maxpool1d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y);
nkl_status nkl_maxpool2d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y);
nkl_status nkl_maxpool3d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y);
nkl_status nkl_avgpool1d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y);
nkl_status nkl_avgpool2d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y);
nkl_status nkl_avgpool3d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y);

/* Adaptive pools: the output size is y's [H_out, W_out] (each >= 1); output i of a
 * dimension covers input [floor(i*in/out), ceil((i+1)*in/out)). */
nkl_status nkl_adaptive_avgpool2d_fwd(const nkl_tensor *x, nkl_tensor *y);
nkl_status nkl_adaptive_maxpool2d_fwd(const nkl_tensor *x, nkl_tensor *y);

#ifdef __cplusplus
}
#endif

#endif /* NKL_POOL_H */
