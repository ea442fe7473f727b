/* Pooling kernels for the avx512bf16 ISA, bf16 only: the avx512 body with bf16 outputs
 * rounded by vcvtneps2bf16 (vec_avx512bf16.h; same bits as the integer rounding). */
#include "simd/vec_avx512bf16.h"
#define NKL_POOL_KERNEL_DTYPES(X) X(bf16, NKL_BF16)
#include "pool/pool_kernels.inc"
