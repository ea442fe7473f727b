/* AVX-512 + AVX512_BF16 shim: the AVX-512 shim with bf16 stores through vcvtneps2bf16
 * (with a subnormal fix-up that keeps results identical to the other ISAs). */
#ifndef NKL_VEC_AVX512BF16_H
#define NKL_VEC_AVX512BF16_H

#define NKL_ISA_SUFFIX avx512bf16
#define NKL_VEC_USE_CVTNEPS2BF16 1
#include "simd/vec_avx512.h"

#endif
