/* L1/L2 norm kernels for the avx2 ISA: the shared body over the avx2 vector shim. */
#include "simd/vec_avx2.h"
#include "norm/lpnorm/lpnorm_kernels.inc"
