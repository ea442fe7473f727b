/* Row-norm kernels for AVX-512 + BF16, bf16 outputs only: the shared body over the
 * avx512bf16 vector shim (bf16 stores through vcvtneps2bf16). */
#define NKL_ROWNORM_ONLY_BF16 1
#include "simd/vec_avx512bf16.h"
#include "norm/rownorm/rownorm_kernels.inc"
