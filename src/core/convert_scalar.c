/* Dtype conversion kernels for the scalar ISA: the shared body over the scalar vector shim. */
#include "simd/vec_scalar.h"
#include "core/convert_kernels.inc"
