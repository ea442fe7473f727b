/* Spectral norm, one power iteration: contract between spectral.c and the per-ISA kernels
 * (spectral_<isa>.c over spectral_kernels.inc). */
#ifndef NKL_NORM_SPECTRAL_H
#define NKL_NORM_SPECTRAL_H

#include <stdint.h>

#include "nkl.h"

typedef struct spectral_args {
  const void *w; /* [o, i], contiguous rows */
  int64_t o, i;
  const float *u; /* [o]: the input of W^T u */
  const float *v; /* [i]: the normalized W^T u, input of W v */
  float *s;       /* [o]: W v */
  /* W^T u: rows cut into `chunks` fixed blocks (chunk c: rows [o*c/chunks, o*(c+1)/chunks),
   * a function of o only); chunk c accumulates sum_r w[r, :] * u[r] into part + c * i */
  int64_t chunks;
  float *part;
} spectral_args;

/* wtu kernels process chunks [c0, c1); wv kernels rows [r0, r1). */

#define NKL_SPECTRAL_DTYPES(X, op) \
  X(op, f32, NKL_F32)              \
  X(op, f16, NKL_F16)              \
  X(op, bf16, NKL_BF16)

#endif
