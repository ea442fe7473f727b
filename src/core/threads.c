#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE__))
#include <xmmintrin.h> /* _mm_getcsr, _mm_setcsr */
#define NKL_HAVE_MXCSR 1
#endif

NKL_ENTRY_DATA static _Atomic int g_threads = 0; /* 0: the OpenMP default */

void nkl_set_num_threads(int n) { atomic_store(&g_threads, n > 0 ? n : 0); }

NKL_ENTRY_TEXT int nkl_get_num_threads(void) {
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

NKL_ENTRY_TEXT int nkl__threads_for(int64_t items, int64_t bytes) {
  int64_t t = nkl_get_num_threads();
  const int64_t by_size = bytes / kMinBytesPerThread;
  if (t > by_size) t = by_size;
  if (t > items) t = items;
  return t < 1 ? 1 : (int)t;
}

NKL_ENTRY_TEXT void nkl__parallel_range(int threads, int64_t n, nkl_range_fn body,
                                        const void *ctx) {
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

/* ---- subnormal mode ------------------------------------------------------------------ */

/* -1: not read yet; the first use takes NKL_DENORMALS=keep|flush from the environment. */
NKL_ENTRY_DATA static _Atomic int g_denormals = -1;

NKL_ENTRY_TEXT static int denormal_mode(void) {
  int v = atomic_load(&g_denormals);
  if (v >= 0) return v;
  const char *env = getenv("NKL_DENORMALS");
  v = NKL_DENORMALS_KEEP;
  if (env && !strcmp(env, "flush"))
    v = NKL_DENORMALS_FLUSH;
  else if (env && *env && strcmp(env, "keep"))
    fprintf(stderr, "nkl: ignoring NKL_DENORMALS=%s (use keep|flush)\n", env);
  int expected = -1; /* a concurrent nkl_set_denormal_mode wins */
  atomic_compare_exchange_strong(&g_denormals, &expected, v);
  return atomic_load(&g_denormals);
}

nkl_status nkl_set_denormal_mode(nkl_denormal_mode mode) {
  nkl__begin("set_denormal_mode");
  if (mode != NKL_DENORMALS_KEEP && mode != NKL_DENORMALS_FLUSH)
    return nkl__fail(NKL_ERR_BAD_PARAM,
                     "set_denormal_mode: %d is neither NKL_DENORMALS_KEEP (0) nor "
                     "NKL_DENORMALS_FLUSH (1)",
                     (int)mode);
  atomic_store(&g_denormals, (int)mode);
  return NKL_OK;
}

nkl_denormal_mode nkl_get_denormal_mode(void) { return (nkl_denormal_mode)denormal_mode(); }

typedef struct flush_job {
  nkl_range_fn body;
  const void *ctx;
} flush_job;

/* MXCSR bit 15 (FTZ: subnormal results become zero) and bit 6 (DAZ: subnormal operands read
 * as zero); every x86-64 CPU has both. The thread's own value is put back, so a caller's
 * setting (and the OpenMP workers', reused by later regions) survives the call. */
NKL_ENTRY_TEXT static void run_flushed(const void *c, int64_t lo, int64_t hi) {
  const flush_job *f = (const flush_job *)c;
#ifdef NKL_HAVE_MXCSR
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(csr | 0x8040u);
  f->body(f->ctx, lo, hi);
  _mm_setcsr(csr);
#else
  f->body(f->ctx, lo, hi);
#endif
}

NKL_ENTRY_TEXT void nkl__parallel_arith(int threads, int64_t n, nkl_range_fn body,
                                        const void *ctx) {
  if (denormal_mode() == NKL_DENORMALS_KEEP) {
    nkl__parallel_range(threads, n, body, ctx);
    return;
  }
  const flush_job f = {body, ctx};
  nkl__parallel_range(threads, n, run_flushed, &f);
}

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h> /* sysconf */
#endif

int64_t nkl__llc_bytes(void) {
  static _Atomic int64_t cached = 0;
  int64_t v = atomic_load(&cached);
  if (v) return v;
  v = 32 << 20; /* a typical server LLC slice, if sysfs says nothing */
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
  if (f) {
    long k;
    char unit = 'K';
    if (fscanf(f, "%ld%c", &k, &unit) >= 1 && k > 0)
      v = (int64_t)k * (unit == 'M' ? 1048576 : 1024);
    fclose(f);
  }
  atomic_store(&cached, v);
  return v;
}

/* The last-level cache this process can count on: the LLC, but at most kLlcSharePerCpu per
 * online CPU. A VM's sysfs reports the whole host socket's L3, shared with tenants it cannot
 * see (480 MiB on a 2-vCPU Intel Xeon guest); server parts have about 2-5 MiB of L3 per core
 * (Zen 4: 32 MiB per 8 cores). */
enum { kLlcSharePerCpu = 4 << 20 };
static int64_t llc_share_bytes(void) {
  int64_t llc = nkl__llc_bytes(), cpus = 1;
#ifdef _SC_NPROCESSORS_ONLN
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) cpus = n;
#endif
  const int64_t share = cpus > INT64_MAX / kLlcSharePerCpu ? INT64_MAX : cpus * kLlcSharePerCpu;
  return llc < share ? llc : share;
}

/* Outputs larger than that are streamed: they would not survive in cache, and the stores
 * skip the read-for-ownership. On the 2-vCPU Xeon guest (threshold 8 MiB instead of the
 * reported 480 MiB), `nkl bench`, 2 alternating cold runs: RMSNormFwd [2048, 8192] bf16 -26%,
 * LayerNormFwd [2048, 16384] -24%, [2048, 4096] -25%, RMSNormBwd [2048, 8192] -23%,
 * FusedAddRMSNorm [2048, 4096] -16% (its residual output is never streamed). */
NKL_ENTRY_TEXT bool nkl__use_streaming_stores(const void *p, int64_t row_bytes, int64_t bytes,
                                              size_t align) {
  NKL_ENTRY_DATA static _Atomic int64_t threshold = -1;
  int64_t t = atomic_load(&threshold);
  if (t < 0) {
    const char *env = getenv("NKL_STREAM_MIN_BYTES");
    t = env && *env ? atoll(env) : llc_share_bytes();
    if (t == 0) t = INT64_MAX;
    atomic_store(&threshold, t);
  }
  return bytes >= t && (uintptr_t)p % align == 0 && row_bytes % (int64_t)align == 0;
}
