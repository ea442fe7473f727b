/* The avx512bf16 pooling kernels (bf16 only) for pools with one tap row per output row
 * (1-d), which the kernels of pool_avx512bf16.c hand them to (see NKL_POOL_DEFINE_OP in
 * pool_kernels.inc). */
#include "simd/vec_avx512bf16.h"
#define NKL_POOL_KERNEL_DTYPES(X) X(bf16, NKL_BF16)
#define POOL_ONE_TAP_ROW 2
#include "pool/pool_kernels.inc"
