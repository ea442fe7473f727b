/* L1 / L2 norms over a set of dimensions: contract between lpnorm.c and the per-ISA block
 * kernels (lpnorm_<isa>.c over lpnorm_kernels.inc). */
#ifndef NKL_NORM_LPNORM_H
#define NKL_NORM_LPNORM_H

#include <stdint.h>

#include "nkl.h"

/* x (contiguous) is viewed as [A, B, C]: B the kept elements (in order), A and C the
 * reduced dims before and after them. Each row segment x[a, b, :] is cut into blocks of
 * `blk` elements; block k of (b, a) is partial index (b * A + a) * nblk + k. A kernel sums
 * |x| (L1) or x^2 (L2) over the blocks [i0, i1) of that flat index into part[]. */
typedef struct lpnorm_args {
  const void *x;
  int64_t A, B, C, blk, nblk;
  float *part;
} lpnorm_args;

/* (name prefix, dtype) */
#define NKL_LPNORM_DTYPES(X, op) \
  X(op, f32, NKL_F32)            \
  X(op, f16, NKL_F16)            \
  X(op, bf16, NKL_BF16)

#endif
