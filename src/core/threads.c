#include <stdatomic.h>

#include "internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static _Atomic int g_threads = 0; /* 0: the OpenMP default */

void nkl_set_num_threads(int n) { atomic_store(&g_threads, n > 0 ? n : 0); }

int nkl_get_num_threads(void) {
  const int n = atomic_load(&g_threads);
  if (n > 0) return n;
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* Below ~256 KiB of traffic a parallel region (a few microseconds to wake a sleeping
 * thread) costs more than it saves. */
enum { kMinBytesPerThread = 128 * 1024 };

int nkl__threads_for(int64_t items, int64_t bytes) {
  int64_t t = nkl_get_num_threads();
  const int64_t by_size = bytes / kMinBytesPerThread;
  if (t > by_size) t = by_size;
  if (t > items) t = items;
  return t < 1 ? 1 : (int)t;
}

void nkl__parallel_range(int threads, int64_t n, nkl_range_fn body, const void *ctx) {
  if (threads <= 1 || n <= 1) {
    body(ctx, 0, n);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
    body(ctx, n * t / T, n * (t + 1) / T);
  }
#else
  body(ctx, 0, n);
#endif
}
