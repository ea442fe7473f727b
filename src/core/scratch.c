/* Per-thread reusable scratch (see scratch.h). */
#include "core/scratch.h"

#include "core/internal.h"

#include <stdlib.h>

enum { kKeepBytes = 16 << 20 };

static _Thread_local void *g_buf;
static _Thread_local size_t g_cap;

NKL_ENTRY_TEXT void *nkl__scratch_get(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded > kKeepBytes) return aligned_alloc(64, rounded ? rounded : 64);
  if (rounded > g_cap || !g_buf) {
    free(g_buf);
    g_cap = 0;
    /* grow to at least 256 KiB so small sizes settle on one buffer */
    const size_t cap = rounded < (256u << 10) ? (256u << 10) : rounded;
    if (!(g_buf = aligned_alloc(64, cap))) return NULL;
    g_cap = cap;
  }
  return g_buf;
}

NKL_ENTRY_TEXT void nkl__scratch_put(void *p) {
  if (p && p != g_buf) free(p);
}
