/* Backward of RMSNorm and LayerNorm: contract between the API layer (rownorm_bwd.c) and the
 * per-ISA kernels (rownorm_bwd_<isa>.c over rownorm_bwd_kernels.inc). */
#ifndef NKL_NORM_ROWNORM_BWD_H
#define NKL_NORM_ROWNORM_BWD_H

#include <stdint.h>

#include "nkl.h"

typedef struct rownorm_bwd_args {
  const void *x, *dy; /* rows: x + r * x_rs, dy + r * dy_rs */
  int64_t x_rs, dy_rs;
  void *dx;
  int64_t dx_rs;
  const void *w;            /* [n] or NULL (1) */
  const float *mean, *rstd; /* [m]; mean NULL for RMSNorm */
  int64_t m, n;
  /* Rows are cut into `chunks` fixed blocks (chunk c: rows [m*c/chunks, m*(c+1)/chunks)), a
   * function of m only. Chunk c accumulates sum(dy * z) and sum(dy) over its rows into
   * dw_part + c * n and db_part + c * n (NULL: not wanted), in row order. */
  int64_t chunks;
  float *dw_part, *db_part;
  int stream; /* write dx with non-temporal stores (dx and its rows aligned) */
  /* m = 1 (one chunk of one row): the kernel writes dw_out and db_out (dw and db, w's
   * dtype; NULL: not wanted) as the reduction would (0 + dy * z, 0 + dy, rounded once), and
   * there are no partial rows and no reduce step. A decode-size call thus skips the 2 x 4n
   * bytes of scratch it would write and read back. */
  int direct;
  void *dw_out, *db_out;
} rownorm_bwd_args;

/* A kernel processes chunks [c0, c1): dx of their rows and their partial sums. */

/* The final step: out[j] = sum over chunks c (in order) of part[c * n + j], rounded once to
 * out's dtype; reduce kernels process columns [j0, j1). Elementwise, so every ISA gives
 * the same bits. */
typedef struct rownorm_bwd_reduce_args {
  const float *part;
  int64_t chunks, n;
  void *out;
} rownorm_bwd_reduce_args;

/* (name prefix, output dtype) of the reduce kernels */
#define NKL_ROWNORM_BWD_REDUCE_DTYPES(X, op) \
  X(op, f32, NKL_F32)                        \
  X(op, f16, NKL_F16)                        \
  X(op, bf16, NKL_BF16)

/* (name prefix, x/dy/dx dtype, w dtype) */
#define NKL_ROWNORM_BWD_DTYPES(X, op) \
  X(op, f32, NKL_F32, NKL_F32)        \
  X(op, f16, NKL_F16, NKL_F16)        \
  X(op, bf16, NKL_BF16, NKL_BF16)     \
  X(op, f16_wf32, NKL_F16, NKL_F32)   \
  X(op, bf16_wf32, NKL_BF16, NKL_F32)

/* the bf16 subset, also built for AVX-512 + BF16 (rownorm_bwd_avx512bf16.c) */
#define NKL_ROWNORM_BWD_BF16_DTYPES(X, op) \
  X(op, bf16, NKL_BF16, NKL_BF16)          \
  X(op, bf16_wf32, NKL_BF16, NKL_F32)

#endif
