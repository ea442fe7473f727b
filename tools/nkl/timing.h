/* The timing protocol of docs/methodology.md, shared by nkl and every candidate it is
 * compared with: untimed setup, warm-up calls, timed calls with last-level-cache eviction
 * between them (cold, the default) or without (--warm), batched calls below ~20 us, and the
 * A B C ... C B A order across candidates. */
#ifndef NKL_TOOL_TIMING_H
#define NKL_TOOL_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nkl.h"

#define TIMING_MAX_SAMPLES 256

typedef struct time_opts {
  bool warm;   /* skip eviction */
  int warmup;  /* warm-up calls per candidate (10) */
  int samples; /* timed samples per candidate, over both passes (30) */
} time_opts;

typedef struct timing {
  int n;
  double ms[TIMING_MAX_SAMPLES]; /* per-call time of each sample, in order taken */
  double median, min, p90, cv;   /* ms; cv = stddev / mean */
  int batch;                     /* calls per sample (1 unless the call is under ~20 us) */
  int status;                    /* nkl_status of the first failing call, else 0 */
  int warmup;                    /* warm-up calls actually made */
  bool reduced;                  /* one call takes > TIMING_SLOW_MS: a bounded run (marked) */
  double typical_ms;             /* median warm-up call */
} timing;

/* Slow calls keep the whole catalog within an hour: above TIMING_SLOW_MS a candidate gets 2
 * warm-up calls (1 above 1 s) and about TIMING_SLOW_BUDGET_MS of samples, between 2 and 10. */
#define TIMING_SLOW_MS 100.0
#define TIMING_SLOW_BUDGET_MS 5000.0
/* Samples per pass of a reduced run (both passes together: 2..10). */
int timing_reduced_count(const timing *t, int count);

/* One implementation to time: fn(ctx) performs one complete call. */
typedef struct candidate {
  const char *name;
  int (*fn)(void *ctx);
  void *ctx;
  /* A candidate in another process (PyTorch) runs the same protocol there: warm-up (sets
   * t->batch, t->warmup, t->reduced) and `count` samples appended to t->ms. fn is unused. */
  void (*remote_warmup)(void *ctx, const time_opts *o, timing *t);
  void (*remote_samples)(void *ctx, const time_opts *o, timing *t, int count);
  /* A candidate with a thread pool of its own (XNNPACK's pthreadpool): after each eviction
   * it wakes its threads, and the OpenMP ones are left asleep (see evict_caches). NULL: the
   * OpenMP threads are woken. */
  void (*wake)(void *ctx);
} candidate;

void time_opts_default(time_opts *o);
/* Times every candidate: warm-up, then samples/2 samples each in order A B C, then the rest
 * in order C B A (pooled). t[i] belongs to c[i]. */
void time_candidates(const candidate *c, int n, const time_opts *o, timing *t);
double now_ms(void);
/* The batch length for a call of `typical_ms` (1 above ~20 us), shared with remote runners. */
int timing_batch_for(double typical_ms);
/* Streams through a buffer of 4x the last-level cache (at least 64 MiB), reading every
 * line, so the next call starts from DRAM; then wakes the OpenMP threads. */
void evict_caches(void);
/* The same without waking the OpenMP threads. */
void evict_lines(void);
int64_t llc_bytes(void);
size_t evict_bytes(void);    /* what evict_caches reads */
size_t phys_mem_bytes(void); /* 0 if unknown */

#endif
