/* Pooling kernels for the avx512 ISA: the shared body over the avx512 vector shim. */
#include "simd/vec_avx512.h"
#include "pool/pool_kernels.inc"
