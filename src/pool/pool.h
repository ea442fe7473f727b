/* Pooling kernels (max and average, plain and adaptive, 1-d/2-d/3-d): the contract between
 * the API layer (pool.c) and the per-ISA kernel translation units (pool_<isa>.c). */
#ifndef NKL_POOL_POOL_H
#define NKL_POOL_POOL_H

#include <stdatomic.h>
#include <stdint.h>

#include "nkl.h"

/* POOL_KMAX is the kernels' form of POOL_MAX for f16/bf16: the taps are reduced as 16-bit
 * order keys (nkl__key16), so their row buffers hold int16 keys instead of f32 values. */
typedef enum { POOL_MAX = 0, POOL_AVG = 1, POOL_KMAX = 2 } pool_kind;

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
  int global;      /* one output per plane, window = the whole plane (see pool_global) */
  int one_tap_row; /* every output row has one D/H tap row at most (1-d pools, kernel height 1) */
  int64_t stride, k, dil, pad;
  /* Per output row (od, oh), when planned (else NULL): pool_plan_row's entry at
   * row_tab[(od * h.out + oh) * row_stride] */
  const int64_t *row_tab;
  int64_t row_stride;
  int64_t pf_dist;  /* how far past each depth slice's last tap row 3-d windows prefetch */
  int64_t pf_short; /* the same in short mode (pool_short_vertical) */
  int pf_linear;    /* short mode: one prefetch stream pf_short ahead of the last tap row */
  int64_t pf_x;     /* how far ahead the W pass prefetches a row it reads from x directly */
  int64_t tmp_len;  /* floats of one row buffer (a multiple of 16); each thread has two */
  float *scratch;   /* two tmp_len row buffers per thread, 64-byte aligned */
  atomic_int *slot; /* the next free slice */
  /* Short mode (AVX-512 kernels, see pool_pair_short.inc), not in tap mode or global; f32
   * values, or POOL_KMAX keys widened to 32-bit lanes. 0 off; 1 lookup mode
   * (pool_row_short), rows of at most 32 input columns, 16 outputs and POOL_SHORT_KMAX W
   * taps; 2 phase mode (pool_row_phase2), at most 64 columns and 32 outputs, stride 2,
   * dilation 1, 3 to 5 taps; 3 split mode (pool_row_split2), bf16 averages of at most 64
   * columns and 32 outputs, stride 2, dilation 1, up to POOL_SHORT_KMAX taps. */
  int short_rows;
  /* Key rows (pool_key_rows): f16/bf16 max pools with one input row per output row
   * (MaxPool1d), output mode, stride 1 to 4 on AVX-512, 1 to 3 on AVX2; the thread's two row
   * buffers hold the padded key row (tmp_len covers it). */
  int key_rows;
} pool_args;

/* The D/H tap rows of output row (od, oh), as pool_vertical reads them (one body for pool.c's
 * table and the kernels' per-row fallback): e[0] = nr, the number of tap rows (counting stops
 * at POOL_MAX_ROWS + 1); e[1] = npf, the depth slices (at most 4); e[2] = adv, the input rows
 * the next output row moves down by (for the prefetch: 1 to 16 with one slice, else 1 to 4);
 * e[3] = last, the element offset of the last tap row; e[4 + g] = the byte offset of slice
 * g's last tap row; e[8 + i] = the byte offset of tap row i < min(nr, POOL_MAX_ROWS). es:
 * bytes per element. */
enum { POOL_MAX_ROWS = 32, POOL_ROW_ENTRY = 8 + POOL_MAX_ROWS };
enum { POOL_SHORT_KMAX = 8 }; /* short mode: W taps at most */
static inline void pool_plan_row(const pool_args *a, int64_t od, int64_t oh, int64_t es,
                                 int64_t *e) {
  const int64_t W = a->w.in, HW = a->h.in * W, h0 = a->h.lo[oh], h1 = a->h.hi[oh];
  int64_t nr = 0, npf = 0, last = 0;
  for (int64_t d = a->d.lo[od]; d < a->d.hi[od] && nr <= POOL_MAX_ROWS; d += a->d.step) {
    for (int64_t h = h0; h < h1 && nr <= POOL_MAX_ROWS; h += a->h.step) {
      last = d * HW + h * W;
      if (nr < POOL_MAX_ROWS) e[8 + nr] = last * es;
      nr++;
    }
    if (h0 < h1 && npf < 4) e[4 + npf++] = last * es;
  }
  int64_t adv = oh + 1 < a->h.out ? a->h.lo[oh + 1] - h0 : 1;
  /* one depth slice: a burst of adv rows per output row, so follow the whole step (adaptive
   * bins advance up to in/out rows); 3-d windows prefetch adv rows of each slice per vector */
  const int64_t cap = npf == 1 ? 16 : 4;
  e[0] = nr, e[1] = npf, e[2] = adv < 1 ? 1 : adv > cap ? cap : adv, e[3] = last;
}

/* How far ahead of its loads a pass over one depth slice (1-d and 2-d windows) prefetches x.
 * About the bandwidth-delay product of one core's stream (~15-25 GB/s x 100-150 ns), not the
 * norms' 8 KiB (VF_PREFETCH_BYTES): on a 2-vCPU Intel Xeon guest (AVX512-FP16/AMX, 480 MiB
 * L3), `nkl bench`, 2 alternating cold runs per distance, against 8 KiB: MaxPool2d W4/W6 -18%
 * at 2 KiB (-16/-10% at 3 KiB, -13/-5% at 4 KiB), AvgPool1d W3 -13%, MaxPool1d W2 -15%, the
 * sub-ms rows within noise. On the Zen 4 guest 4-24 KiB had measured within noise on
 * MaxPool2d W1/W7 and AvgPool2d W1/W3 (docs/ops-pool.md). The Zen 5 guest of session 22 gave
 * mixed results at 4-16 KiB. A build with CMAKE_C_FLAGS=-DPOOL_PREFETCH_BYTES=N sets it for
 * such sweeps. */
#ifndef POOL_PREFETCH_BYTES
#define POOL_PREFETCH_BYTES 2048
#endif

/* (name prefix, dtype) of the kernels each ISA provides. */
#define NKL_POOL_DTYPES(X) \
  X(f32, NKL_F32)          \
  X(f16, NKL_F16)          \
  X(bf16, NKL_BF16)

#endif
