/* Pooling kernels for the scalar ISA: the shared body over the scalar vector shim. */
#include "simd/vec_scalar.h"
#include "pool/pool_kernels.inc"
