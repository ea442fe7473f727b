/* XNNPACK candidates (docs/methodology.md: "open-source library, where it has the op"),
 * linked in-process through its C API with its own thread pool (pthreadpool, the row's
 * thread count). XNNPACK works on channels-last data only, so the candidate
 * ("xnnpack_nhwc") transposes the row's NC(D)HW input to NHWC during setup and its NHWC
 * output back after timing; neither is timed, as for oneDNN's preferred layout.
 *
 * What the Debian snapshot (libxnnpack-dev 0.0~git20220216) has of our ops: 2-d max pooling
 * in f32 and f16 (with dilation), 2-d average pooling in f32 only and only with the padding
 * left out of the divisor, and global average pooling (NWC) in f32 and f16. No 1-d or 3-d
 * pooling, no adaptive bins, no global max, no bf16, no normalization or top-k. PyTorch's
 * ceil_mode is the same windows with more bottom/right padding (bl_pool_geometry's pr):
 * XNNPACK's max pooling never takes a padded position and its average leaves them out of
 * the divisor, which is PyTorch's rule for the overhang. */
#include <math.h>
#include <pthreadpool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xnnpack.h>

#include "baseline.h"
#include "inputs.h"

#ifndef NKL_XNNPACK_VERSION
#define NKL_XNNPACK_VERSION "unknown version"
#endif

const char *xnnpack_version(void) { return "XNNPACK " NKL_XNNPACK_VERSION; }

static pthreadpool_t g_pool;
static int g_pool_threads;
static int g_init; /* 1 ok, -1 xnn_initialize failed */

typedef struct xn_state {
  xnn_operator_t op;
  void *in, *out;        /* NHWC copies (XNNPACK may read XNN_EXTRA_BYTES past the end) */
  int64_t n, c, hw, ohw; /* batch, channels, input and output pixels per image */
  size_t es;
} xn_state;

/* dst[b][j][i] = src[b][i][j] for b < n, i < a, j < m, es-byte elements: NCHW -> NHWC with
 * (a, m) = (C, HW), and back with (HW, C). */
static void swap_inner(const void *src, void *dst, int64_t n, int64_t a, int64_t m, size_t es) {
  for (int64_t b = 0; b < n; b++)
    for (int64_t i = 0; i < a; i++)
      for (int64_t j = 0; j < m; j++)
        memcpy((char *)dst + ((b * m + j) * a + i) * (int64_t)es,
               (const char *)src + ((b * a + i) * m + j) * (int64_t)es, es);
}

/* Wakes the pool's threads after an eviction (timing.c's evict_for), as the harness wakes
 * the OpenMP threads for the other candidates. */
static void xn_nothing(void *ctx, size_t i) { (void)ctx, (void)i; }
static void xn_wake(void *p) {
  (void)p;
  pthreadpool_parallelize_1d(g_pool, xn_nothing, NULL, (size_t)g_pool_threads, 0);
}

static int xn_run(void *p) {
  xn_state *s = p;
  return xnn_run_operator(s->op, g_pool) == xnn_status_success ? 0 : 1;
}

static int xn_fetch(void *p, case_info *info, char *missing, size_t len) {
  xn_state *s = p;
  missing[0] = '\0';
  nkl_tensor *y = bl_arg(info, "y");
  if (!y || xn_run(s) != 0) {
    snprintf(missing, len, "y");
    return 0;
  }
  swap_inner(s->out, y->data, s->n, s->ohw, s->c, s->es);
  return 1;
}

static void xn_destroy(void *p) {
  xn_state *s = p;
  if (!s) return;
  if (s->op) xnn_delete_operator(s->op);
  case_free(s->in);
  case_free(s->out);
  free(s);
}

static int fail(char *why, size_t len, const char *msg) {
  snprintf(why, len, "%s", msg);
  return -1;
}

/* The operator for the row, set up on s->in / s->out; 0, or -1 with the reason. */
static int xn_build(bl_row *row, xn_state *s, char *why, size_t len) {
  const char *op = row->desc.op;
  const nkl_dtype dt = (nkl_dtype)row->desc.dtype;
  const bool f16 = dt == NKL_F16;
  if (!strstr(op, "Pool2d")) return fail(why, len, "XNNPACK has 2-d pooling only (no 1-d or 3-d)");
  if (dt != NKL_F32 && dt != NKL_F16) return fail(why, len, "XNNPACK has no bf16 pooling");
  bl_pool g;
  bl_pool_geometry(&row->desc, &g);
  nkl_tensor *x = bl_arg(row->info, "x"), *y = bl_arg(row->info, "y");
  if (!x || !y) return fail(why, len, "the case has no tensors named x and y");
  const bool global = g.adaptive && g.out[0] == 1 && g.out[1] == 1;
  if (g.adaptive && !global)
    return fail(why, len, "XNNPACK has no adaptive pooling (only global average pooling)");
  if (global && g.max) return fail(why, len, "XNNPACK 2022 has no global max pooling");
  if (!g.max && !global) {
    if (f16) return fail(why, len, "XNNPACK 2022 has no f16 average pooling");
    bool padded = false;
    for (int i = 0; i < 2; i++) padded |= g.p[i] > 0 || g.pr[i] > 0;
    if (g.include_pad && padded)
      return fail(why, len,
                  "XNNPACK's average pooling leaves padding out of the divisor "
                  "(count_include_pad=True with padding)");
    int64_t dov = 0;
    char e[120];
    if (desc_int(&row->desc, "divisor_override", &dov, e, sizeof e) == 0 && dov != 0)
      return fail(why, len, "XNNPACK's average pooling has no divisor_override");
    if (g.dil[0] != 1 || g.dil[1] != 1)
      return fail(why, len, "XNNPACK's average pooling has no dilation");
  }
  s->n = g.n, s->c = g.c, s->hw = g.in[0] * g.in[1], s->ohw = g.out[0] * g.out[1];
  s->es = f16 ? 2 : 4;
  /* case_alloc: the same page size as the NCHW tensors nkl and oneDNN read */
  s->in = case_alloc((size_t)(s->n * s->c * s->hw) * s->es + XNN_EXTRA_BYTES + 64);
  s->out = case_alloc((size_t)(s->n * s->c * s->ohw) * s->es + XNN_EXTRA_BYTES + 64);
  if (!s->in || !s->out) return fail(why, len, "XNNPACK: cannot allocate the NHWC copies");
  swap_inner(x->data, s->in, s->n, s->c, s->hw, s->es);
  const size_t C = (size_t)s->c;
  enum xnn_status st;
  if (global) {
    st = f16 ? xnn_create_global_average_pooling_nwc_f16(C, C, C, -INFINITY, INFINITY, 0, &s->op)
             : xnn_create_global_average_pooling_nwc_f32(C, C, C, -INFINITY, INFINITY, 0, &s->op);
    if (st == xnn_status_success)
      st = f16 ? xnn_setup_global_average_pooling_nwc_f16(s->op, (size_t)s->n, (size_t)s->hw, s->in,
                                                          s->out, g_pool)
               : xnn_setup_global_average_pooling_nwc_f32(s->op, (size_t)s->n, (size_t)s->hw, s->in,
                                                          s->out, g_pool);
  } else {
    /* bottom/right: PyTorch's padding, or more for ceil_mode (pr), so that XNNPACK's
     * floor((in + top + bottom - dil (k - 1) - 1) / s) + 1 is PyTorch's output size */
    uint32_t pb[2];
    for (int i = 0; i < 2; i++) {
      pb[i] = (uint32_t)(g.pr[i] > g.p[i] ? g.pr[i] : g.p[i]);
      const int64_t span = g.in[i] + g.p[i] + pb[i] - g.dil[i] * (g.k[i] - 1) - 1;
      if (span < 0 || span / g.s[i] + 1 != g.out[i])
        return fail(why, len, "XNNPACK's output size differs from PyTorch's for this padding");
    }
    const uint32_t pt = (uint32_t)g.p[0], pl = (uint32_t)g.p[1], kh = (uint32_t)g.k[0],
                   kw = (uint32_t)g.k[1], sh = (uint32_t)g.s[0], sw = (uint32_t)g.s[1];
    if (g.max)
      st = f16 ? xnn_create_max_pooling2d_nhwc_f16(pt, pb[1], pb[0], pl, kh, kw, sh, sw,
                                                   (uint32_t)g.dil[0], (uint32_t)g.dil[1], C, C, C,
                                                   -INFINITY, INFINITY, 0, &s->op)
               : xnn_create_max_pooling2d_nhwc_f32(pt, pb[1], pb[0], pl, kh, kw, sh, sw,
                                                   (uint32_t)g.dil[0], (uint32_t)g.dil[1], C, C, C,
                                                   -INFINITY, INFINITY, 0, &s->op);
    else
      st = xnn_create_average_pooling2d_nhwc_f32(pt, pb[1], pb[0], pl, kh, kw, sh, sw, C, C, C,
                                                 -INFINITY, INFINITY, 0, &s->op);
    if (st == xnn_status_success) {
      const size_t N = (size_t)s->n, H = (size_t)g.in[0], W = (size_t)g.in[1];
      st = !g.max ? xnn_setup_average_pooling2d_nhwc_f32(s->op, N, H, W, s->in, s->out, g_pool)
           : f16  ? xnn_setup_max_pooling2d_nhwc_f16(s->op, N, H, W, s->in, s->out, g_pool)
                  : xnn_setup_max_pooling2d_nhwc_f32(s->op, N, H, W, s->in, s->out, g_pool);
    }
  }
  if (st == xnn_status_unsupported_hardware || st == xnn_status_unsupported_parameter)
    return fail(why, len, "XNNPACK: unsupported for this dtype, shape or CPU");
  if (st != xnn_status_success) return fail(why, len, "XNNPACK: operator setup failed");
  return 0;
}

static void add_reason(bl_candidate *c, bl_status st, const char *why) {
  bl_candidate_mark(c, "xnnpack_nhwc", "open-source library", st, why);
}

int xnnpack_candidates(bl_row *row, bl_candidate *c, int max) {
  if (max < 1) return 0;
  if (!strstr(row->desc.op, "Pool")) {
    add_reason(c, BL_UNSUPPORTED, "XNNPACK has no operator for this op");
    return 1;
  }
  if (!row->info) {
    add_reason(c, BL_UNAVAILABLE, "no inputs for this op on the C side yet");
    return 1;
  }
  if (!g_init) g_init = xnn_initialize(NULL) == xnn_status_success ? 1 : -1;
  if (g_init < 0) {
    add_reason(c, BL_UNAVAILABLE, "XNNPACK: xnn_initialize failed (unsupported CPU?)");
    return 1;
  }
  if (!g_pool || g_pool_threads != row->threads) {
    if (g_pool) pthreadpool_destroy(g_pool);
    g_pool = pthreadpool_create((size_t)row->threads);
    g_pool_threads = row->threads;
  }
  add_reason(c, BL_OK, "");
  xn_state *s = calloc(1, sizeof *s);
  const double t0 = now_ms();
  char why[200] = "";
  if (!s || !g_pool || xn_build(row, s, why, sizeof why) < 0) {
    c->status =
        strstr(why, "cannot") || strstr(why, "failed") || !s || !g_pool ? BL_ERROR : BL_UNSUPPORTED;
    snprintf(c->reason, sizeof c->reason, "%s", why[0] ? why : "XNNPACK: setup failed");
    xn_destroy(s);
    return 1;
  }
  c->setup_ms = now_ms() - t0;
  snprintf(c->label, sizeof c->label, "NHWC layout (transposes untimed), pthreadpool %d threads",
           row->threads);
  c->state = s;
  c->run = xn_run;
  c->fetch = xn_fetch;
  c->wake = xn_wake;
  c->destroy = xn_destroy;
  return 1;
}
