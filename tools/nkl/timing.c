#include "timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>

double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The size of one last-level cache instance: sysfs first (glibc's sysconf may report the
 * sum over all of a server's L3 slices, 12x too large on this VM). */
int64_t llc_bytes(void) {
  long v = -1;
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
  if (f) {
    long k;
    char unit = 'K';
    if (fscanf(f, "%ld%c", &k, &unit) >= 1) v = k * (unit == 'M' ? 1048576 : 1024);
    fclose(f);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (v <= 0) v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  return v > 0 ? v : 32 << 20;
}

static unsigned char *g_evict;
static size_t g_evict_bytes;
static volatile unsigned g_evict_sink;

/* 4x the LLC, at least 64 MiB, at most an eighth of physical memory (a VM may report its
 * host's whole L3: 480 MiB on a Xeon guest). */
size_t evict_bytes(void) {
  size_t want = (size_t)llc_bytes() * 4;
  if (want < (64u << 20)) want = 64u << 20;
  const size_t mem = phys_mem_bytes();
  return mem && want > mem / 8 ? mem / 8 : want;
}

size_t phys_mem_bytes(void) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

void evict_lines(void) {
  if (!g_evict) {
    const size_t want = evict_bytes();
    g_evict = malloc(want);
    if (!g_evict) return;
    memset(g_evict, 1, want);
    g_evict_bytes = want;
  }
  /* Read one byte per 64-byte line. Reading 4x the LLC displaces every line of the call's
   * data (dirty ones are written back here, outside the clock) and leaves the caches full of
   * clean lines. Writing the buffer instead would leave up to an LLC of dirty lines whose
   * write-back the next timed call would pay for: extra DRAM traffic that is not the op's. */
  const volatile unsigned char *p = g_evict;
  unsigned sum = 0;
  for (size_t i = 0; i < g_evict_bytes; i += 64) sum += p[i];
  g_evict_sink = sum;
}

void evict_caches(void) {
  evict_lines();
  /* Wake the OpenMP threads (nkl's and oneDNN's: one runtime) that went to sleep during the
   * single-threaded eviction, so the clock measures the call and not the OS waking idle
   * threads, which on a loaded 2-vCPU guest can take a whole scheduler slice (~10 ms). */
  volatile int sink = 0;
#pragma omp parallel num_threads(nkl_get_num_threads())
  {
#pragma omp atomic
    sink += 1;
  }
  (void)sink;
}

void time_opts_default(time_opts *o) {
  o->warm = false;
  o->warmup = 10;
  o->samples = 30;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void summarize(timing *t) {
  if (t->n == 0) return;
  double s[TIMING_MAX_SAMPLES], sum = 0, sq = 0;
  memcpy(s, t->ms, sizeof(double) * (size_t)t->n);
  qsort(s, (size_t)t->n, sizeof(double), cmp_double);
  t->min = s[0];
  t->median = t->n % 2 ? s[t->n / 2] : 0.5 * (s[t->n / 2 - 1] + s[t->n / 2]);
  t->p90 = s[(int)ceil(0.9 * t->n) - 1];
  for (int i = 0; i < t->n; i++) sum += s[i], sq += s[i] * s[i];
  const double mean = sum / t->n, var = sq / t->n - mean * mean;
  t->cv = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0;
}

/* Calls under this are timed in batches (one clock pair around many calls). */
static const double kBatchBelowMs = 0.020, kBatchTargetMs = 0.5;
/* Evicted calls that decide the batch length in cold mode (see warm_up). */
enum { COLD_PROBES = 3 };

int timing_batch_for(double typical) {
  if (typical >= kBatchBelowMs) return 1;
  const int b = (int)ceil(kBatchTargetMs / (typical > 1e-5 ? typical : 1e-5));
  return b > 10000 ? 10000 : b;
}

/* The eviction before a cold call of c. A candidate with its own thread pool gets its threads
 * woken, not OpenMP's: woken OpenMP threads spin for a while (libgomp's default spin count,
 * milliseconds) before they sleep, and on a 2-core machine a spinning thread holds the core
 * another pool's worker needs (XNNPACK's sub-millisecond max pools took 3-4 ms each without
 * this hook, 0.5-0.6 ms with it). */
static void evict_for(const candidate *c) {
  if (c->wake) {
    evict_lines();
    c->wake(c->ctx);
  } else {
    evict_caches();
  }
}

static void warm_up(const candidate *c, const time_opts *o, timing *t) {
  if (c->remote_warmup) {
    c->remote_warmup(c->ctx, o, t);
    return;
  }
  double est[64];
  int n = o->warmup < 64 ? o->warmup : 64, done = 0;
  for (int i = 0; i < n; i++) {
    const double t0 = now_ms();
    const int s = c->fn(c->ctx);
    est[done++] = now_ms() - t0;
    if (s && !t->status) t->status = s;
    if (est[0] > TIMING_SLOW_MS && (done >= 2 || est[0] > 1000.0)) { /* keep it bounded */
      t->reduced = true;
      break;
    }
  }
  t->warmup = done;
  if (done == 0) est[done++] = 1.0;
  qsort(est, (size_t)done, sizeof(double), cmp_double);
  t->typical_ms = est[done / 2];
  /* Whether a call is "under ~20 us" is judged on the kind of call that will be timed. The
   * warm-up calls run on hot caches; in cold mode a candidate whose hot call is short but
   * whose cold call is not (1 MiB of input that has to come from DRAM) would otherwise be
   * timed in batches, where all calls but the first find the data in cache, while a
   * candidate with a slower hot call is timed cold call by call: two protocols in one row.
   * So in cold mode the batch length follows the median of COLD_PROBES evicted calls. */
  double probe = t->typical_ms;
  if (!o->warm && !t->reduced && t->typical_ms < 1.0) {
    double cold[COLD_PROBES];
    for (int i = 0; i < COLD_PROBES; i++) {
      evict_for(c);
      const double t0 = now_ms();
      const int s = c->fn(c->ctx);
      cold[i] = now_ms() - t0;
      if (s && !t->status) t->status = s;
    }
    qsort(cold, COLD_PROBES, sizeof(double), cmp_double);
    probe = cold[COLD_PROBES / 2];
  }
  t->batch = timing_batch_for(probe);
}

int timing_reduced_count(const timing *t, int count) {
  if (!t->reduced) return count;
  int per_pass = (int)(TIMING_SLOW_BUDGET_MS / 2 / (t->typical_ms > 1 ? t->typical_ms : 1));
  if (per_pass < 1) per_pass = 1;
  if (per_pass > 5) per_pass = 5;
  return count < per_pass ? count : per_pass;
}

static void take_samples(const candidate *c, const time_opts *o, timing *t, int count) {
  count = timing_reduced_count(t, count);
  if (c->remote_samples) {
    if (!t->status) c->remote_samples(c->ctx, o, t, count);
    return;
  }
  for (int i = 0; i < count && t->n < TIMING_MAX_SAMPLES && !t->status; i++) {
    if (!o->warm) evict_for(c);
    const double t0 = now_ms();
    for (int b = 0; b < t->batch; b++) {
      const int s = c->fn(c->ctx);
      if (s && !t->status) t->status = s;
    }
    t->ms[t->n++] = (now_ms() - t0) / t->batch;
  }
}

void time_candidates(const candidate *c, int n, const time_opts *o, timing *t) {
  const int first = o->samples / 2, second = o->samples - first;
  for (int i = 0; i < n; i++) {
    memset(&t[i], 0, sizeof t[i]);
    warm_up(&c[i], o, &t[i]);
    take_samples(&c[i], o, &t[i], first);
  }
  for (int i = n - 1; i >= 0; i--) take_samples(&c[i], o, &t[i], second);
  for (int i = 0; i < n; i++) summarize(&t[i]);
}
