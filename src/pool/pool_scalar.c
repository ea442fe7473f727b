/* Pooling kernels for the scalar ISA: the shared body over the scalar vector shim, with
 * inlining left to the compiler (see POOL_INLINE in pool_kernels.inc). */
#include "simd/vec_scalar.h"
#define POOL_INLINE static inline
#include "pool/pool_kernels.inc"
