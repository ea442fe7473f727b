/* Top-k selector kernels for the avx2 ISA: the shared body over the avx2 vector shim. */
#include "simd/vec_avx2.h"
#include "topk/topk_kernels.inc"
