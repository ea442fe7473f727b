/* Top-k selector kernels for the scalar ISA: the shared body over the scalar vector shim. */
#include "simd/vec_scalar.h"
#include "topk/topk_kernels.inc"
