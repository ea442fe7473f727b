/* L1/L2 norm kernels for the avx512 ISA: the shared body over the avx512 vector shim. */
#include "simd/vec_avx512.h"
#include "norm/lpnorm/lpnorm_kernels.inc"
