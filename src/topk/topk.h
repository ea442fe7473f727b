/* Top-k selector (sparse-attention indexer): the contract between the API layer (topk.c)
 * and the per-ISA kernel translation units (topk_<isa>.c). */
#ifndef NKL_TOPK_TOPK_H
#define NKL_TOPK_TOPK_H

#include <stdatomic.h>
#include <stdint.h>

#include "nkl.h"

/* Scores [B, S, S_kv, G] f32 contiguous; row r = (b*S + s)*G + g reads scores at
 * ((b*S + s)*S_kv + j)*G + g for j in its window [starts[b,s], ends[b,s]) ∩ [0, S_kv), and
 * writes indices [r*k, r*k + k). A kernel runs rows [r0, r1), single-threaded. */
typedef struct topk_args {
  const float *scores;
  const int32_t *starts, *ends; /* [B*S] */
  int32_t *out;
  int64_t S, S_kv, G, k;
  int64_t scratch_len; /* 32-bit words of scratch per thread (topk_scratch_words) */
  uint32_t *scratch;
  atomic_int *slot;
  int stream; /* rows of indices go out with non-temporal stores (nkl__use_streaming_stores) */
} topk_args;

/* Block of 8 vectors (128 scores): the pass over DRAM keeps one lane maximum per block and
 * lane, the threshold's witnesses (see topk_kernels.inc). */
enum { TOPK_BLOCK = 128, TOPK_BINS = 3 * 4096 };

/* The words per survivor array of a window of n scores: n + 16, rounded up to 16. */
static inline int64_t topk_scratch_ld(int64_t n) { return (n + 16 + 15) / 16 * 16; }

/* Per thread: the block maxima M and their keys (m words each), the survivors' indices and
 * the sorted order (ld words each), two arrays of 64-bit words (2 ld each), the bins, and a
 * copy of a strided row (s_kv + 16) at the end. */
static inline int64_t topk_scratch_words(int64_t s_kv) {
  const int64_t m = (s_kv + TOPK_BLOCK - 1) / TOPK_BLOCK * 16;
  /* a multiple of 16: every thread's slot starts 64-byte aligned */
  return (2 * m + 6 * topk_scratch_ld(s_kv) + TOPK_BINS + (s_kv + 16) + 64 + 15) / 16 * 16;
}

#endif
