/* L1/L2 norm kernels for the scalar ISA: the shared body over the scalar vector shim. */
#include "simd/vec_scalar.h"
#include "norm/lpnorm/lpnorm_kernels.inc"
