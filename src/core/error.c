#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static _Thread_local char g_message[512];
static _Thread_local const char *g_kernel = "";
static _Thread_local const char *g_op = ""; /* the entry point running on this thread */

const char *nkl_last_error(void) { return g_message; }
const char *nkl_last_kernel(void) { return g_kernel; }

NKL_ENTRY_TEXT void nkl__begin(const char *op) {
  g_message[0] = '\0';
  g_op = op ? op : "";
}

/* Appends s to the message from offset n (truncating at its end); returns the new length. */
static size_t put(size_t n, const char *s) {
  while (*s && n + 1 < sizeof g_message) g_message[n++] = *s++;
  g_message[n] = '\0';
  return n;
}

/* "status: op: message". The entry point's name is added unless the message starts with
 * it already: the shared checks (nkl__check_tensor, nkl__as_rows, ...) only name the
 * argument, and a caller of several functions needs to know which one refused. */
nkl_status nkl__fail(nkl_status status, const char *fmt, ...) {
  char body[sizeof g_message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  const size_t k = strlen(g_op);
  const int named = k == 0 || (strncmp(body, g_op, k) == 0 && body[k] == ':');
  size_t n = put(put(0, nkl_status_name(status)), ": ");
  if (!named) n = put(put(n, g_op), ": ");
  put(n, body);
  return status;
}

NKL_ENTRY_TEXT static int verbose_level(void) {
  /* read once; threads that race here compute the same value (atomic: no data race) */
  NKL_ENTRY_DATA static _Atomic int level = -1;
  int v = atomic_load_explicit(&level, memory_order_relaxed);
  if (v < 0) {
    const char *e = getenv("NKL_VERBOSE");
    v = (e && *e && strcmp(e, "0") != 0) ? 1 : 0;
    atomic_store_explicit(&level, v, memory_order_relaxed);
  }
  return v;
}

NKL_ENTRY_TEXT void nkl__ran_kernel(const char *op, const char *kernel) {
  g_kernel = kernel;
  if (verbose_level()) fprintf(stderr, "nkl: %s -> %s\n", op, kernel);
}

const char *nkl_status_name(nkl_status status) {
  switch (status) {
    case NKL_OK: return "ok";
    case NKL_ERR_NULL_POINTER: return "null pointer";
    case NKL_ERR_BAD_DTYPE: return "bad dtype";
    case NKL_ERR_BAD_RANK: return "bad rank";
    case NKL_ERR_BAD_SHAPE: return "bad shape";
    case NKL_ERR_BAD_STRIDE: return "bad stride";
    case NKL_ERR_OVERFLOW: return "size overflow";
    case NKL_ERR_BAD_PARAM: return "bad parameter";
    case NKL_ERR_UNSUPPORTED: return "unsupported";
    case NKL_ERR_ALLOC: return "out of memory";
    case NKL_ERR_ALIAS: return "aliased buffers";
    case NKL_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}
