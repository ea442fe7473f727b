/* Row-norm backward kernels for AVX-512 + BF16, bf16 gradients only: the shared body over the
 * avx512bf16 vector shim (dx stored through vcvtneps2bf16 instead of integer rounding). */
#define NKL_ROWNORM_BWD_ONLY_BF16 1
#include "simd/vec_avx512bf16.h"
#include "norm/rownorm_bwd/rownorm_bwd_kernels.inc"
