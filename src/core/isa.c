/* CPU feature detection and the ISA cap. The active ISA is the minimum of what the CPU
 * (and OS, via XGETBV) supports, the NKL_MAX_ISA environment variable, and the cap set by
 * nkl_set_max_isa(). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

/* CPUID leaf 0's vendor string, 12 characters in EBX, EDX, ECX order, is `name`. */
static int vendor_is(const char name[13]) {
  unsigned a, r[3];
  if (!__get_cpuid(0, &a, &r[0], &r[2], &r[1])) return 0;
  return memcmp(r, name, 12) == 0;
}

static int detect_intel(void) { return vendor_is("GenuineIntel"); }

/* AMD family 17h models 00h-2Fh (Zen, Zen+): 256-bit vector operations run as two 128-bit
 * halves, so AVX2 kernels that are memory-bound elsewhere (the row norms' backward) are
 * compute-bound there. Family and model per CPUID leaf 1: base family 0xF plus the extended
 * family, the extended model above the base model. */
static int detect_zen1(void) {
  unsigned a, b, c, d;
  if (!vendor_is("AuthenticAMD") || !__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const unsigned base = (a >> 8) & 0xF, family = base == 0xF ? base + ((a >> 20) & 0xFF) : base,
                 model = ((a >> 4) & 0xF) | (base == 0xF ? ((a >> 16) & 0xF) << 4 : 0);
  return family == 0x17 && model < 0x30;
}

static nkl_isa detect_cpu(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return NKL_ISA_SCALAR;
  const int osxsave = (c >> 27) & 1, fma = (c >> 12) & 1, f16c = (c >> 29) & 1,
            popcnt = (c >> 23) & 1;
  if (!osxsave) return NKL_ISA_SCALAR;
  const uint64_t xcr0 = xgetbv0();
  if ((xcr0 & 0x6) != 0x6) return NKL_ISA_SCALAR; /* OS saves XMM and YMM state */
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return NKL_ISA_SCALAR;
  const int avx2 = (b >> 5) & 1;
  if (!(avx2 && fma && f16c && popcnt)) return NKL_ISA_SCALAR;
  const int f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
  if (!(f && dq && bw && vl) || (xcr0 & 0xE6) != 0xE6) return NKL_ISA_AVX2;
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  __get_cpuid_count(7, 1, &a1, &b1, &c1, &d1);
  const int bf16 = (a1 >> 5) & 1, vnni = (c >> 11) & 1;
  return (bf16 && vnni) ? NKL_ISA_AVX512BF16 : NKL_ISA_AVX512;
}
#else
static int detect_intel(void) { return 0; }
static int detect_zen1(void) { return 0; }
static nkl_isa detect_cpu(void) { return NKL_ISA_SCALAR; }
#endif

NKL_ENTRY_DATA int nkl__tune_intel = 0;
NKL_ENTRY_DATA int nkl__tune_zen1 = 0;

static const char *const kIsaNames[NKL_ISA_COUNT] = {"scalar", "avx2", "avx512", "avx512bf16"};

const char *nkl_isa_name(nkl_isa isa) {
  return (isa >= 0 && isa < NKL_ISA_COUNT) ? kIsaNames[isa] : "unknown";
}

int nkl_isa_parse(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < NKL_ISA_COUNT; i++)
    if (strcmp(name, kIsaNames[i]) == 0) return i;
  return -1;
}

NKL_ENTRY_DATA static _Atomic int g_cpu = -1;            /* detected, after NKL_MAX_ISA */
NKL_ENTRY_DATA static _Atomic int g_cap = NKL_ISA_COUNT; /* nkl_set_max_isa */

/* Detection runs once per process (pthread_once: callers that race on the first call wait
 * for it, and nkl__tune_* are written by one thread only). */
NKL_ENTRY_TEXT static void detect_once(void) {
  int v = detect_cpu();
  const char *tune = getenv("NKL_CPU_TUNING");
  const int known =
      tune && (!strcmp(tune, "intel") || !strcmp(tune, "zen1") || !strcmp(tune, "other"));
  if (tune && *tune && !known)
    fprintf(stderr, "nkl: ignoring NKL_CPU_TUNING=%s (use intel|zen1|other)\n", tune);
  nkl__tune_intel = known ? !strcmp(tune, "intel") : detect_intel();
  nkl__tune_zen1 = known ? !strcmp(tune, "zen1") : detect_zen1();
  const char *env = getenv("NKL_MAX_ISA");
  if (env && *env) {
    int cap = nkl_isa_parse(env);
    if (cap < 0)
      fprintf(stderr, "nkl: ignoring NKL_MAX_ISA=%s (use scalar|avx2|avx512|avx512bf16)\n", env);
    else if (cap < v)
      v = cap;
  }
  atomic_store(&g_cpu, v);
}

NKL_ENTRY_TEXT nkl_isa nkl_cpu_isa(void) {
  int v = atomic_load(&g_cpu);
  if (v < 0) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, detect_once);
    v = atomic_load(&g_cpu);
  }
  return (nkl_isa)v;
}

NKL_ENTRY_TEXT nkl_isa nkl__isa(void) {
  const int cpu = nkl_cpu_isa(), cap = atomic_load(&g_cap);
  return (nkl_isa)(cap < cpu ? cap : cpu);
}

nkl_isa nkl_active_isa(void) { return nkl__isa(); }

nkl_isa nkl_set_max_isa(nkl_isa cap) {
  atomic_store(&g_cap, (cap < 0 || cap >= NKL_ISA_COUNT) ? NKL_ISA_COUNT : (int)cap);
  return nkl__isa();
}

NKL_ENTRY_TEXT const nkl_kernel_entry *nkl__select(const nkl_kernel_entry *list, size_t count,
                                                   int key) {
  const nkl_isa isa = nkl__isa();
  for (size_t i = 0; i < count; i++)
    if (list[i].key == key && list[i].isa <= isa) return &list[i];
  return NULL;
}
