/* The avx512 pooling kernels for pools with one tap row per output row (1-d), which the
 * kernels of pool_avx512.c hand them to: the shared body in a TU of its own (see
 * NKL_POOL_DEFINE_OP in pool_kernels.inc). */
#include "simd/vec_avx512.h"
#define POOL_ONE_TAP_ROW 2
#include "pool/pool_kernels.inc"
