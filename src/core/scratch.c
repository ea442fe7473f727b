/* Per-thread reusable scratch (see scratch.h). */
#include "core/scratch.h"

#include "core/internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { kKeepBytes = 16 << 20 };

static _Thread_local void *g_buf;
static _Thread_local size_t g_cap;

/* A thread's kept buffer is freed when the thread exits: the key's destructor gets the
 * buffer registered with pthread_setspecific. Without it every user thread that called nkl
 * left up to 16 MiB behind (a runtime whose worker threads come and go would grow without
 * bound). The main thread's buffer stays until the process ends. */
static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static _Atomic int g_key_ok;

static void free_at_exit(void *p) { free(p); }
NKL_ENTRY_TEXT static void make_key(void) {
  g_key_ok = pthread_key_create(&g_key, free_at_exit) == 0;
}
/* When libnkl.so is unloaded (dlclose) or the process exits, the key goes first: a thread
 * that outlives the library must not run a destructor whose code is gone (its buffer is
 * then not freed). */
__attribute__((destructor)) static void drop_key(void) {
  if (atomic_exchange(&g_key_ok, 0)) pthread_key_delete(g_key);
}

NKL_ENTRY_TEXT void *nkl__scratch_get(size_t bytes) {
  const size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded > kKeepBytes) return aligned_alloc(64, rounded ? rounded : 64);
  if (rounded > g_cap || !g_buf) {
    pthread_once(&g_key_once, make_key);
    /* Unregister before freeing, so the key never holds a freed pointer. Without a key (its
     * creation failed: the process ran out of keys) the buffer is not kept. */
    if (g_key_ok) pthread_setspecific(g_key, NULL);
    free(g_buf);
    g_buf = NULL;
    g_cap = 0;
    /* grow to at least 256 KiB so small sizes settle on one buffer */
    const size_t cap = rounded < (256u << 10) ? (256u << 10) : rounded;
    void *p = aligned_alloc(64, cap);
    if (!p || !g_key_ok) return p;
    if (pthread_setspecific(g_key, p)) return p; /* not kept: nkl__scratch_put frees it */
    g_buf = p, g_cap = cap;
  }
  return g_buf;
}

NKL_ENTRY_TEXT void nkl__scratch_put(void *p) {
  if (p && p != g_buf) free(p);
}
