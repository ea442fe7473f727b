/* Pooling kernels (max and average, plain and adaptive, 1-d/2-d/3-d): the contract between
 * the API layer (pool.c) and the per-ISA kernel translation units (pool_<isa>.c). */
#ifndef NKL_POOL_POOL_H
#define NKL_POOL_POOL_H

#include <stdatomic.h>
#include <stdint.h>

#include "nkl.h"

typedef enum { POOL_MAX = 0, POOL_AVG = 1 } pool_kind;

/* One spatial axis (D, H or W; a missing axis has in = out = 1 and one tap). For output
 * index o the valid (in-bounds) taps are the input positions lo[o], lo[o] + step, ... below
 * hi[o]; padded taps are left out (they never win a max and add 0 to a sum). cnt[o] is the
 * axis' factor of the average divisor (avg pools only). */
typedef struct pool_axis {
  int64_t in, out, step;
  const int64_t *lo, *hi;
  const float *cnt;
} pool_axis;

/* Everything a kernel needs. The kernel runs planes [p0, p1) of the N*C planes (x and y are
 * contiguous NC(D)HW). Per output row (od, oh) it first reduces the D/H taps into a row of
 * W_in f32 values (the "vertical" pass, vectorised along W), then the W taps:
 *  - output mode (tap_mode 0): out[ow] reduces tmp[ow*stride + t*dil], t < k, where tmp[j]
 *    holds input column j - pad and the identity outside the input; vectorised along ow;
 *  - tap mode: out[ow] reduces columns [w.lo[ow], w.hi[ow]) (step 1), vectorised along the
 *    window; for windows long compared with the row (global and adaptive pools).
 * Averages divide the sum by d.cnt[od] * h.cnt[oh] * w.cnt[ow] (exact integers in f32). */
typedef struct pool_args {
  const void *x;
  void *y;
  int64_t planes;
  pool_axis d, h, w;
  int tap_mode;
  int global; /* one output per plane, window = the whole plane (see pool_global) */
  int64_t stride, k, dil, pad;
  /* Per output row (od, oh), when planned (else NULL): row_stride int64 at
   * row_tab[(od * h.out + oh) * row_stride]: nr, npf, adv, last, pf[4], roff[nr] (see
   * pool_vertical: its D/H tap rows, as byte offsets in the plane except last, an element
   * offset) */
  const int64_t *row_tab;
  int64_t row_stride;
  int64_t tmp_len;  /* floats of one row buffer (a multiple of 16); each thread has two */
  float *scratch;   /* two tmp_len row buffers per thread, 64-byte aligned */
  atomic_int *slot; /* the next free slice */
} pool_args;

/* (name prefix, dtype) of the kernels each ISA provides. */
#define NKL_POOL_DTYPES(X) \
  X(f32, NKL_F32)          \
  X(f16, NKL_F16)          \
  X(bf16, NKL_BF16)

#endif
