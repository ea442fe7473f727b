/* Pooling kernels for the avx512 ISA: the shared body over the avx512 vector shim. */
#include "simd/vec_avx512.h"
#define POOL_ONE_TAP_ROW 1 /* 1-d pools: pool1d_<isa>.c */
#include "pool/pool_kernels.inc"
