/* Row-norm backward kernels for the scalar ISA: the shared body over the scalar vector shim. */
#include "simd/vec_scalar.h"
#include "norm/rownorm_bwd/rownorm_bwd_kernels.inc"
