/* Row-wise normalization kernels (RMSNorm, LayerNorm): contract shared by the API layer and
 * the per-ISA kernel translation units. */
#ifndef NKL_NORM_ROWNORM_H
#define NKL_NORM_ROWNORM_H

#include <stdint.h>

#include "nkl.h"

typedef enum { ROWNORM_RMS = 0, ROWNORM_LN = 1 } rownorm_kind;

typedef struct rownorm_args {
  const void *x; /* row r starts at x + r * x_rs elements */
  int64_t x_rs;
  void *y;
  int64_t y_rs;
  const void *w, *b; /* [n] or NULL (then 1 and 0) */
  int64_t n;
  float eps;
  float *mean, *rstd; /* [rows] or NULL */
  int stream;         /* write y with non-temporal stores (y and its rows are aligned) */
} rownorm_args;

/* A microkernel normalizes rows [r0, r1) of the rownorm_args it is given; it is
 * single-threaded and stateless, with the signature of nkl_range_fn (core/internal.h). */

/* (name prefix, x/y dtype, w/b dtype): the dtype combinations each ISA provides. */
#define NKL_ROWNORM_DTYPES(X)                                                             \
  X(f32, NKL_F32, NKL_F32)                                                                \
  X(f16, NKL_F16, NKL_F16)                                                                \
  X(bf16, NKL_BF16, NKL_BF16)                                                             \
  X(f16_wf32, NKL_F16, NKL_F32)                                                           \
  X(bf16_wf32, NKL_BF16, NKL_F32)

#endif
