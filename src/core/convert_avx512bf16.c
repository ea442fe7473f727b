/* Dtype conversion kernels for AVX-512 + BF16: the shared body over the avx512bf16 shim. */
#include "simd/vec_avx512bf16.h"
#include "core/convert_kernels.inc"
