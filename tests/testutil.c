#include "testutil.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int g_passed, g_failed, g_current_failures;

void tu_fail(const char *file, int line, const char *fmt, ...) {
  if (g_current_failures++ > 20) return; /* keep the log readable */
  fprintf(stderr, "  FAIL %s:%d: ", file, line);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void tu_run(const char *name, void (*fn)(void)) {
  g_current_failures = 0;
  fn();
  nkl_set_max_isa(NKL_ISA_COUNT);
  nkl_set_num_threads(0);
  if (g_current_failures) {
    g_failed++;
    printf("FAIL %s\n", name);
  } else {
    g_passed++;
    printf("ok   %s\n", name);
  }
  fflush(stdout);
}

int tu_summary(void) {
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}

int tu_isas(nkl_isa *out) {
  int n = 0;
  for (int i = 0; i <= (int)nkl_cpu_isa(); i++) out[n++] = (nkl_isa)i;
  return n;
}

/* Layout: [size_t bytes | guard to 64][data, 64-byte aligned][64 guard bytes]. */
enum { kHead = 64, kGuard = 64 };
static const unsigned char kPattern = 0xA5;

void *tu_alloc(size_t bytes) {
  const size_t total = (kHead + bytes + kGuard + 63) / 64 * 64;
  unsigned char *p = aligned_alloc(64, total);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  memcpy(p, &bytes, sizeof bytes);
  memset(p + sizeof bytes, kPattern, kHead - sizeof bytes);
  memset(p + kHead + bytes, kPattern, total - kHead - bytes);
  return p + kHead;
}

bool tu_guard_ok(const void *q) {
  const unsigned char *p = (const unsigned char *)q - kHead;
  size_t bytes;
  memcpy(&bytes, p, sizeof bytes);
  for (size_t i = sizeof bytes; i < kHead; i++)
    if (p[i] != kPattern) return false;
  for (size_t i = 0; i < kGuard; i++)
    if (p[kHead + bytes + i] != kPattern) return false;
  return true;
}

void tu_free(void *q) {
  if (q) free((unsigned char *)q - kHead);
}
