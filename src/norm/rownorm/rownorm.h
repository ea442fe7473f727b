/* Row-wise normalization kernels (RMSNorm, LayerNorm and their fused, Gemma, group, AdaLN,
 * quantized and weight-norm variants): contract shared by the API layer and the per-ISA
 * kernel translation units. */
#ifndef NKL_NORM_ROWNORM_H
#define NKL_NORM_ROWNORM_H

#include <stdatomic.h>
#include <stdint.h>

#include "nkl.h"

/* The statistic of a row: RMS (mean 0), LN (mean and biased variance), or the plain L2
 * norm of weight norm (y = x * g[r] / ||x||, no eps). */
typedef enum { ROWNORM_RMS = 0, ROWNORM_LN = 1, ROWNORM_WN = 2 } rownorm_kind;

/* Prologue/epilogue flags, compile-time constants of each kernel. */
enum {
  RN_FUSED = 1, /* r = x + res (rounded to x's dtype) is written to res_out and normalized */
  RN_GEMMA = 2, /* the weight is applied as (1 + w), formed in f32 */
  RN_QUANT = 4, /* output fp8 e4m3 codes q and a per-row f32 scale instead of y */
};

typedef struct rownorm_args {
  const void *x; /* row r starts at x + r * x_rs elements */
  int64_t x_rs;
  const void *res; /* RN_FUSED: residual rows and the rows of r = x + res */
  int64_t res_rs;
  void *res_out;
  int64_t res_out_rs;
  void *y; /* y rows (x's dtype), or the fp8 rows of q with RN_QUANT */
  int64_t y_rs;
  /* w, b: [n] or NULL (then 1 and 0). Row r uses w + (r % wb_rows) * wb_rs (wb_rs = 0 for
   * vectors; the rows of a [G, n] weight for group RMSNorm; the [M, n] scale/shift rows of
   * AdaLN). */
  const void *w, *b;
  int64_t wb_rs, wb_rows;
  const void *g; /* ROWNORM_WN: per-row gain [rows] in w's dtype */
  int64_t n;
  float eps;
  float scale_floor;  /* RN_QUANT: scale = max(max|y|, scale_floor) / 448 */
  float *mean, *rstd; /* [rows] or NULL; ROWNORM_WN stores the row norm in rstd */
  float *scale;       /* RN_QUANT: [rows] */
  int stream;         /* write y with non-temporal stores (y and its rows are aligned) */
  /* RN_QUANT: 3 f32 rows of n + 16 per thread, taken in turn through *slot (each thread
   * calls the kernel once): x and then y of the current row, and w and b in f32. */
  float *yrows;
  _Atomic int *slot;
} rownorm_args;

/* A microkernel normalizes rows [r0, r1) of the rownorm_args it is given; it is
 * single-threaded and stateless, with the signature of nkl_range_fn (core/internal.h). */

/* (name prefix, x/y dtype, w/b dtype): the dtype combinations each ISA provides. */
#define NKL_ROWNORM_DTYPES(X)   \
  X(f32, NKL_F32, NKL_F32)      \
  X(f16, NKL_F16, NKL_F16)      \
  X(bf16, NKL_BF16, NKL_BF16)   \
  X(f16_wf32, NKL_F16, NKL_F32) \
  X(bf16_wf32, NKL_BF16, NKL_F32)
/* The combinations with bf16 outputs: the AVX512-BF16 level adds kernels only for these
 * (its vcvtneps2bf16 store is the one thing that level speeds up here). */
#define NKL_ROWNORM_BF16_DTYPES(X) \
  X(bf16, NKL_BF16, NKL_BF16)      \
  X(bf16_wf32, NKL_BF16, NKL_F32)
#define NKL_ROWNORM_BF16_DTYPES_OP(X, op) \
  X(op, bf16, NKL_BF16, NKL_BF16)         \
  X(op, bf16_wf32, NKL_BF16, NKL_F32)
/* The same list with an extra leading argument passed through (the op name). */
#define NKL_ROWNORM_DTYPES_OP(X, op) \
  X(op, f32, NKL_F32, NKL_F32)       \
  X(op, f16, NKL_F16, NKL_F16)       \
  X(op, bf16, NKL_BF16, NKL_BF16)    \
  X(op, f16_wf32, NKL_F16, NKL_F32)  \
  X(op, bf16_wf32, NKL_BF16, NKL_F32)

#endif
