/* Public entry points of the pooling family: validate, plan the per-axis tap tables, pick
 * the kernel, split the N*C planes across threads. */
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"
#include "core/scratch.h"
#include "pool/pool.h"

#define DECL_OP(pfx, op, isa) \
  void pfx##_f32acc_##op##__##isa(const void *a, int64_t p0, int64_t p1);
#define DECL_DT(pfx, dt)            \
  DECL_OP(pfx, maxpool_fwd, scalar) \
  DECL_OP(pfx, avgpool_fwd, scalar) \
  DECL_OP(pfx, maxpool_fwd, avx2)   \
  DECL_OP(pfx, avgpool_fwd, avx2)   \
  DECL_OP(pfx, maxpool_fwd, avx512) DECL_OP(pfx, avgpool_fwd, avx512)
NKL_POOL_DTYPES(DECL_DT)
DECL_OP(bf16, maxpool_fwd, avx512bf16)
DECL_OP(bf16, avgpool_fwd, avx512bf16)

#define KEY(dt, kind) ((int)(dt)*2 + (int)(kind))
#define ENTRY(pfx, op, isa, level, dt, kind) \
  {#pfx "_f32acc_" #op "__" #isa, level, KEY(dt, kind), (void (*)(void))pfx##_f32acc_##op##__##isa},
/* Ordered best first, scalar last. AVX-512-BF16 only rounds bf16 outputs (vcvtneps2bf16
 * instead of seven integer operations per vector). */
#if defined(__x86_64__)
#define BF16_ENTRIES                                                           \
  ENTRY(bf16, maxpool_fwd, avx512bf16, NKL_ISA_AVX512BF16, NKL_BF16, POOL_MAX) \
  ENTRY(bf16, avgpool_fwd, avx512bf16, NKL_ISA_AVX512BF16, NKL_BF16, POOL_AVG)
#define X86(pfx, dt)                                            \
  ENTRY(pfx, maxpool_fwd, avx512, NKL_ISA_AVX512, dt, POOL_MAX) \
  ENTRY(pfx, avgpool_fwd, avx512, NKL_ISA_AVX512, dt, POOL_AVG) \
  ENTRY(pfx, maxpool_fwd, avx2, NKL_ISA_AVX2, dt, POOL_MAX)     \
  ENTRY(pfx, avgpool_fwd, avx2, NKL_ISA_AVX2, dt, POOL_AVG)
#else
#define BF16_ENTRIES
#define X86(pfx, dt)
#endif
#define SCALAR(pfx, dt)                                         \
  ENTRY(pfx, maxpool_fwd, scalar, NKL_ISA_SCALAR, dt, POOL_MAX) \
  ENTRY(pfx, avgpool_fwd, scalar, NKL_ISA_SCALAR, dt, POOL_AVG)
static const nkl_kernel_entry kKernels[] = {BF16_ENTRIES NKL_POOL_DTYPES(X86)
                                                NKL_POOL_DTYPES(SCALAR)};

enum { kMaxParam = 1 << 26 }; /* keeps every tap offset of a 16-lane gather in int32 */
enum { kPad = 32 };           /* table slack for 16-lane loads past the last output */

/* name=0 in the environment turns a mode off (for A/B runs and tests; the results are the
 * same); read once into *on. */
static bool mode_enabled(const char *name, _Atomic int *on) {
  int v = atomic_load(on);
  if (v < 0) {
    const char *env = getenv(name);
    v = !(env && env[0] == '0' && env[1] == 0);
    atomic_store(on, v);
  }
  return v;
}
static _Atomic int short_on = -1, phase_on = -1, split_on = -1, key_rows_on = -1;
/* NKL_POOL_SHORT=0: no short mode; NKL_POOL_SHORT_PHASES=0: none in phase mode;
 * NKL_POOL_SHORT_SPLIT=0: none in split mode; NKL_POOL_KEY_ROWS=0: no key rows. */
static bool short_enabled(void) { return mode_enabled("NKL_POOL_SHORT", &short_on); }
static bool phase_enabled(void) { return mode_enabled("NKL_POOL_SHORT_PHASES", &phase_on); }
static bool key_rows_enabled(void) { return mode_enabled("NKL_POOL_KEY_ROWS", &key_rows_on); }
static bool split_enabled(void) { return mode_enabled("NKL_POOL_SHORT_SPLIT", &split_on); }
static _Atomic int linear_on = -1;
static bool linear_enabled(void) { return mode_enabled("NKL_POOL_PF_LINEAR", &linear_on); }

static int64_t floor_div(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static nkl_status check_axis_params(const char *op, int axis, int64_t k, int64_t s, int64_t p,
                                    int64_t d) {
  if (k < 1 || s < 1 || d < 1 || p < 0)
    return nkl__fail(NKL_ERR_BAD_PARAM,
                     "%s: axis %d needs kernel_size >= 1, stride >= 1, dilation >= 1, padding >= 0 "
                     "(got %lld, %lld, %lld, %lld)",
                     op, axis, (long long)k, (long long)s, (long long)d, (long long)p);
  if (k > kMaxParam || s > kMaxParam || d > kMaxParam)
    return nkl__fail(NKL_ERR_BAD_PARAM, "%s: axis %d kernel_size/stride/dilation above 2^26", op,
                     axis);
  if (p > k / 2)
    return nkl__fail(NKL_ERR_BAD_PARAM,
                     "%s: axis %d padding %lld is more than half the kernel size %lld", op, axis,
                     (long long)p, (long long)k);
  return NKL_OK;
}

nkl_status nkl_pool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                                int ceil_mode, int64_t *out) {
  nkl__begin("pool_output_size");
  nkl_status st;
  if (!out) return nkl__fail(NKL_ERR_NULL_POINTER, "nkl_pool_output_size: out is NULL");
  if ((st = check_axis_params("nkl_pool_output_size", 0, k, s, p, d))) return st;
  if (ceil_mode != 0 && ceil_mode != 1)
    return nkl__fail(NKL_ERR_BAD_PARAM, "ceil_mode must be 0 or 1 (got %d)", ceil_mode);
  if (in < 1 || in > INT64_MAX / 4)
    return nkl__fail(NKL_ERR_BAD_SHAPE, "input size %lld out of range", (long long)in);
  /* PyTorch's pooling_output_shape: the last window must start inside the input or its left
   * padding, else ceil mode drops it. */
  int64_t o = floor_div(in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  if (o < 1)
    return nkl__fail(NKL_ERR_BAD_SHAPE,
                     "input size %lld is too small for kernel %lld, dilation %lld, padding %lld",
                     (long long)in, (long long)k, (long long)d, (long long)p);
  *out = o;
  return NKL_OK;
}

/* One axis' parameters (a missing axis: one tap of an input of 1; adaptive: no k, s, p, d). */
typedef struct axis_prm {
  int64_t k, s, p, d;
  bool adaptive;
} axis_prm;

/* Output o's valid taps: lo, lo + step, ... below hi. Strided: the window starts at o*s - p,
 * with k taps every d; adaptive: [floor(o*in/out), ceil((o+1)*in/out)), step 1. */
static void axis_window(const pool_axis *ax, const axis_prm *q, int64_t o, int64_t *lo,
                        int64_t *hi) {
  if (q->adaptive) {
    *lo = o * ax->in / ax->out, *hi = ((o + 1) * ax->in + ax->out - 1) / ax->out;
    return;
  }
  const int64_t start = o * q->s - q->p, end = start + (q->k - 1) * q->d + 1;
  *lo = start < 0 ? start + (-start + q->d - 1) / q->d * q->d : start;
  *hi = end < ax->in ? end : ax->in;
  if (*hi < *lo) *hi = *lo;
}

/* The most valid taps of any output of an axis (sizes the row table before planning). */
static int64_t axis_max_taps(const pool_axis *ax, const axis_prm *q) {
  int64_t m = 0;
  for (int64_t o = 0; o < ax->out; o++) {
    int64_t lo, hi;
    axis_window(ax, q, o, &lo, &hi);
    const int64_t n = (hi - lo + ax->step - 1) / ax->step;
    m = n > m ? n : m;
  }
  return m;
}

/* Fills an axis' tables: lo, hi (NULL for W in output mode: the kernels need only cnt) and
 * cnt, the axis' factor of the average divisor: `divisor` if nonzero, else PyTorch's
 * pool_size: the window clipped to the padded input with count_include_pad, else only the
 * valid taps (dilation is 1 for averages); adaptive: the bin's size. Without lo/hi, the
 * outputs [mid0, mid1) whose whole window lies inside the input (k taps either way) get a
 * constant run: the general rule per output was a microsecond of a 1025-output row. */
static void plan_axis(pool_axis *ax, const axis_prm *q, int64_t *lo, int64_t *hi, float *cnt,
                      bool include_pad, int64_t divisor) {
  int64_t mid0 = 0, mid1 = 0;
  if (!lo && !q->adaptive) {
    const int64_t last = ax->in - 1 - (q->k - 1) * q->d + q->p; /* the last inside start, + p */
    mid0 = (q->p + q->s - 1) / q->s;
    mid1 = last < 0 ? 0 : last / q->s + 1;
    mid0 = mid0 < ax->out ? mid0 : ax->out;
    mid1 = mid1 < ax->out ? mid1 : ax->out;
  }
  for (int64_t o = 0; o < ax->out; o++) {
    if (o == mid0 && mid1 > mid0) {
      const float c = (float)(divisor ? divisor : q->k);
      for (; o < mid1; o++) cnt[o] = c;
      if (o == ax->out) break;
    }
    int64_t l, h;
    axis_window(ax, q, o, &l, &h);
    if (lo) lo[o] = l, hi[o] = h;
    const int64_t start = o * q->s - q->p;
    const int64_t pend = start + q->k < ax->in + q->p ? start + q->k : ax->in + q->p;
    cnt[o] = divisor                       ? (float)divisor
             : include_pad && !q->adaptive ? (float)(pend - start)
                                           : (float)(h - l);
  }
  ax->lo = lo, ax->hi = hi, ax->cnt = cnt;
}

static nkl_status pool(const char *op, pool_kind kind, int nsp, const nkl_tensor *x,
                       const nkl_pool_params *prm, bool adaptive, nkl_tensor *y) {
  nkl__begin(op);
  nkl_status s;
  if ((s = nkl__check_tensor(x, "x")) || (s = nkl__check_tensor(y, "y"))) return s;
  if (x->dtype != NKL_F32 && x->dtype != NKL_F16 && x->dtype != NKL_BF16)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: x dtype %s not supported (f32, f16, bf16)", op,
                     nkl_dtype_name(x->dtype));
  if (y->dtype != x->dtype)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: y is %s but x is %s", op, nkl_dtype_name(y->dtype),
                     nkl_dtype_name(x->dtype));
  if (x->rank != nsp + 2 || y->rank != nsp + 2)
    return nkl__fail(NKL_ERR_BAD_RANK, "%s: x and y must have rank %d (got %d and %d)", op, nsp + 2,
                     x->rank, y->rank);
  if (!nkl__is_contiguous(x) || !nkl__is_contiguous(y))
    return nkl__fail(NKL_ERR_BAD_STRIDE, "%s: x and y must be contiguous", op);
  if (x->shape[0] != y->shape[0] || x->shape[1] != y->shape[1])
    return nkl__fail(NKL_ERR_BAD_SHAPE, "%s: y's N and C (%lld, %lld) differ from x's (%lld, %lld)",
                     op, (long long)y->shape[0], (long long)y->shape[1], (long long)x->shape[0],
                     (long long)x->shape[1]);
  if (!adaptive) {
    if (!prm) return nkl__fail(NKL_ERR_NULL_POINTER, "%s: params is NULL", op);
    for (int i = 0; i < nsp; i++) {
      if ((s = check_axis_params(op, i, prm->kernel_size[i], prm->stride[i], prm->padding[i],
                                 prm->dilation[i])))
        return s;
      if (kind == POOL_AVG && prm->dilation[i] != 1)
        return nkl__fail(NKL_ERR_BAD_PARAM, "%s: average pools have no dilation (axis %d: %lld)",
                         op, i, (long long)prm->dilation[i]);
    }
    if ((prm->ceil_mode != 0 && prm->ceil_mode != 1) ||
        (prm->count_include_pad != 0 && prm->count_include_pad != 1))
      return nkl__fail(NKL_ERR_BAD_PARAM, "%s: ceil_mode and count_include_pad must be 0 or 1", op);
    if (prm->divisor_override < 0 || (kind == POOL_MAX && prm->divisor_override != 0))
      return nkl__fail(NKL_ERR_BAD_PARAM,
                       "%s: divisor_override %lld (must be > 0, or 0 for none; "
                       "max pools: 0)",
                       op, (long long)prm->divisor_override);
    if (prm->divisor_override > kMaxParam)
      return nkl__fail(NKL_ERR_BAD_PARAM, "%s: divisor_override above 2^26", op);
    for (int i = 0; i < nsp; i++) {
      int64_t o;
      if ((s = nkl_pool_output_size(x->shape[2 + i], prm->kernel_size[i], prm->stride[i],
                                    prm->padding[i], prm->dilation[i], prm->ceil_mode, &o))) {
        char why[400];
        snprintf(why, sizeof why, "%s", nkl_last_error());
        return nkl__fail(s, "%s: axis %d: %s", op, i, why);
      }
      if (y->shape[2 + i] != o)
        return nkl__fail(NKL_ERR_BAD_SHAPE,
                         "%s: y axis %d has %lld outputs; the parameters give %lld", op, i,
                         (long long)y->shape[2 + i], (long long)o);
    }
  } else {
    for (int i = 2; i < x->rank; i++)
      if (x->shape[i] > (1 << 30) || y->shape[i] > (1 << 30))
        return nkl__fail(NKL_ERR_BAD_SHAPE, "%s: spatial sizes above 2^30", op);
  }
  if (nkl__overlaps(x, y)) return nkl__fail(NKL_ERR_ALIAS, "%s: y overlaps x", op);
  /* Average divisors are products of three per-axis counts, exact in f32 below 2^24. */
  if (kind == POOL_AVG && !adaptive) {
    double win = 1;
    for (int i = 0; i < nsp; i++) win *= (double)prm->kernel_size[i];
    if (win >= 16777216.0)
      return nkl__fail(NKL_ERR_BAD_PARAM, "%s: windows of 2^24 or more elements", op);
  }
  if (kind == POOL_AVG && adaptive) {
    double win = 1;
    for (int i = 2; i < x->rank; i++) win *= (double)(x->shape[i] / y->shape[i] + 2);
    if (win >= 16777216.0)
      return nkl__fail(NKL_ERR_BAD_PARAM, "%s: bins of 2^24 or more elements", op);
  }

  const nkl_kernel_entry *kern =
      nkl__select(kKernels, sizeof kKernels / sizeof kKernels[0], KEY(x->dtype, kind));
  if (!kern) return nkl__fail(NKL_ERR_INTERNAL, "%s: no kernel for this dtype", op);

  /* The axes, padded to 3-d: a missing leading axis has one output and one tap. */
  pool_args a = {0};
  a.x = x->data;
  a.y = y->data;
  a.planes = x->shape[0] * x->shape[1];
  pool_axis *axes[3] = {&a.d, &a.h, &a.w};
  axis_prm q[3];
  for (int i = 0; i < 3; i++) {
    const int src = i - (3 - nsp); /* spatial index in x, or < 0 for a missing axis */
    axes[i]->in = src < 0 ? 1 : x->shape[2 + src];
    axes[i]->out = src < 0 ? 1 : y->shape[2 + src];
    q[i] = (axis_prm){1, 1, 0, 1, adaptive && src >= 0};
    if (src >= 0 && !adaptive)
      q[i] = (axis_prm){prm->kernel_size[src], prm->stride[src], prm->padding[src],
                        prm->dilation[src], false};
    axes[i]->step = q[i].adaptive ? 1 : q[i].d;
  }

  /* W: output mode (vectorised along outputs) unless each output's window is long compared
   * with the row, or the windows are not evenly strided (adaptive). */
  const int64_t OW = a.w.out, OWr = (OW + 15) / 16 * 16;
  const double cost_out = (double)(OWr / 16) * (double)q[2].k;
  const double cost_taps = (double)OW * (double)((q[2].k + 15) / 16 + 4);
  a.tap_mode = adaptive || (q[2].d == 1 && cost_taps < cost_out);
  a.stride = q[2].s, a.k = q[2].k, a.dil = q[2].d, a.pad = a.tap_mode ? 0 : q[2].p;
  const int64_t need_v = a.pad + (a.w.in + 15) / 16 * 16 + 16;
  /* strided loads may read up to 16 * stride + 15 floats past their first lane; the phase
   * split of the vector after the last one reads tmp up to (OWr + 16) * stride */
  int64_t need_h = a.tap_mode ? 0 : (OWr + 1) * a.stride + (a.k - 1) * a.dil + 16;
  if (!a.tap_mode && need_h < (OWr + 16) * a.stride) need_h = (OWr + 16) * a.stride;
  a.tmp_len = ((need_v > need_h ? need_v : need_h) + 16 + 15) / 16 * 16; /* whole lines */

  const size_t es = nkl_dtype_size(x->dtype);
  const int64_t bytes = (nkl__numel(x) + nkl__numel(y)) * (int64_t)es;
  const int threads = nkl__threads_for(a.planes, bytes);

  /* The D/H tap rows of every output row (pool.h's row_tab), so that the kernels do not
   * rebuild them for every plane (a fifth of the time of pools with short rows: AvgPool3d on
   * 20x22 planes). None (the kernels then build them per row) when a row has over 32 tap
   * rows or the table would pass 1 MiB. */
  const int64_t OD = a.d.out, OH = a.h.out,
                taps = axis_max_taps(&a.d, &q[0]) * axis_max_taps(&a.h, &q[1]);
  a.row_stride = 8 + taps, a.one_tap_row = taps <= 1;
  const bool plan_rows = taps <= POOL_MAX_ROWS && OD * OH <= (1 << 20) / 8 / a.row_stride;

  /* Short mode (pool_pair_short.inc, AVX-512 kernels): rows in registers, with the row table;
   * global pools keep their own path. The same bits as the row path; NKL_POOL_SHORT=0 turns
   * it off, NKL_POOL_SHORT_PHASES=0 only its phase mode. 1, lookup mode: rows of at most 32
   * columns and 16 outputs; Zen 5 guest (2026-12-04), a scratch driver, 2 threads, median of
   * 300 cold calls, against lanes mode: AvgPool3d W2 (20x22 bf16 planes) 26 -> 19-20 us, W1
   * (28x28 f16) 88-91 -> 73-76 us. 2, phase mode: up to 64 columns and 32 outputs, stride 2,
   * 3 to 5 taps (a lookup in 48 lanes per tap was slower than the row path there); one
   * thread, warm, against the row path: AvgPool2d W1 (57-wide bf16) 145-148 -> 94-97 us, W3
   * (56-wide f16) 126-129 -> 94-95 us; `nkl bench`, 4 rotating cold rounds: 0.71-0.78x and
   * 0.71-0.81x. 3, split mode: bf16 averages with stride 2 (their even and odd columns come
   * from one load per tap row, no permutes); Zen 5 guest (2026-12-04), one thread, warm,
   * against lookup and phase mode, 3 alternating rounds: AvgPool3d W2 17.4-17.8 -> 16.4-16.6
   * us, AvgPool2d W1 90-92 -> 81-84 us. */
  const int short_ok = kern->isa >= NKL_ISA_AVX512 && !a.tap_mode && plan_rows && short_enabled();
  const int short_rows = !short_ok ? 0
                         : x->dtype == NKL_BF16 && kind == POOL_AVG && a.w.in <= 64 &&
                                 a.w.out <= 32 && a.stride == 2 && a.dil == 1 &&
                                 a.k <= POOL_SHORT_KMAX && split_enabled()
                             ? 3
                         : a.w.in <= 32 && a.w.out <= 16 && a.k <= POOL_SHORT_KMAX ? 1
                         : a.w.in <= 64 && a.w.out <= 32 && a.stride == 2 && a.dil == 1 &&
                                 a.k >= 3 && a.k <= 5 && phase_enabled()
                             ? 2
                             : 0;

  /* Key rows (pool_key_rows.inc): f16/bf16 max pools with one input row per output row, in
   * output mode, stride 1 to 4 on AVX-512 and 1 to 3 on AVX2 (its VH_PHASE_MAX_S; others
   * take the row path). One input row, and it must be a tap of the one output row's D/H
   * window (taps == 1): with dilation and padding that window can hold padding only, and
   * its outputs are then -inf (the row path's). Each of the thread's two row buffers
   * (2 tmp_len int16 keys) holds a row's keys after pad keys of -inf, and the window loads
   * reach S * (OW rounded up to 32) + (k - 1) * dil keys, plus a vector. */
  a.key_rows = kind == POOL_MAX && x->dtype != NKL_F32 && !a.tap_mode && !short_rows &&
               a.d.in == 1 && a.h.in == 1 && a.d.out == 1 && a.h.out == 1 && taps == 1 &&
               a.stride <= (kern->isa >= NKL_ISA_AVX512 ? 4
                            : kern->isa == NKL_ISA_AVX2 ? 3
                                                        : 0) &&
               key_rows_enabled();
  if (a.key_rows) {
    const int64_t row = a.pad + (a.w.in + 31) / 32 * 32,
                  win = a.stride * ((a.w.out + 31) / 32 * 32) + (a.k - 1) * a.dil,
                  keys = (row > win ? row : win) + 32;
    if (2 * a.tmp_len < keys) a.tmp_len = (keys / 2 + 16) / 16 * 16;
  }

  /* One scratch block: per thread 2 row buffers, each on a cache line (the horizontal pass's
   * loads of tmp are then line-aligned; with malloc's 16-byte alignment rows were up to 18%
   * slower); the row table; per axis lo, hi (int64) and cnt (float, padded for 16-lane
   * loads). W in output mode has cnt only: a cold call pays for every line it writes, and
   * lo/hi were 16 of the 20 bytes per output (AvgPool1d on 2048 columns: 20 KiB). */
  const int64_t rows_bytes = plan_rows ? OD * OH * a.row_stride * (int64_t)sizeof(int64_t) : 0;
  int64_t n[3],
      block_bytes = (int64_t)threads * 2 * a.tmp_len * (int64_t)sizeof(float) + rows_bytes;
  bool lohi[3];
  for (int i = 0; i < 3; i++) {
    n[i] = (axes[i]->out + kPad + 1) / 2 * 2; /* even: keeps the int64 arrays aligned */
    lohi[i] = !(i == 2 && !a.tap_mode && axes[i]->out > 1);
    block_bytes += n[i] * (lohi[i] ? 20 : 4);
  }
  char *block = nkl__scratch_get((size_t)block_bytes);
  if (!block)
    return nkl__fail(NKL_ERR_ALLOC, "%s: no memory for %lld bytes of scratch", op,
                     (long long)block_bytes);
  a.scratch = (float *)block;
  char *t = block + (size_t)threads * 2 * (size_t)a.tmp_len * sizeof(float);
  int64_t *row_tab = plan_rows ? (int64_t *)t : NULL;
  t += rows_bytes;
  for (int i = 0; i < 3; i++) {
    int64_t *lo = lohi[i] ? (int64_t *)t : NULL, *hi = lohi[i] ? lo + n[i] : NULL;
    float *cnt = (float *)(lohi[i] ? (char *)(hi + n[i]) : t);
    t = (char *)(cnt + n[i]);
    for (int64_t j = axes[i]->out; j < n[i]; j++) cnt[j] = 1.0f;
    /* divisor_override replaces the whole divisor: put it on W, 1 on D and H */
    const int64_t divisor = adaptive || !prm->divisor_override ? 0
                            : i == 2                           ? prm->divisor_override
                                                               : 1;
    plan_axis(axes[i], &q[i], lo, hi, cnt, !adaptive && prm->count_include_pad, divisor);
  }

  /* Global: one output whose window covers each axis exactly once, step 1. */
  a.global = 1;
  for (int i = 0; i < 3; i++)
    if (axes[i]->out != 1 || axes[i]->lo[0] != 0 || axes[i]->hi[0] != axes[i]->in ||
        (axes[i]->in > 1 && axes[i]->step != 1))
      a.global = 0;
  a.short_rows = a.global ? 0 : short_rows;
  atomic_int slot = 0;
  a.slot = &slot;
  /* How far ahead 3-d windows prefetch each depth slice (the per-vector prefetch of the
   * vertical pass). Small slices: the windows walk x nearly in address order, and about 4
   * slices ahead measured best (cold, 2 threads: MaxPool3d 2x2x2 on 56x56 f16 1.16 ms at
   * 8 KiB, 0.95-1.07 at 24-32 KiB; AvgPool3d on 28x28 f16 0.088 ms at 8 KiB, 0.106 at 4).
   * Large slices are separate streams, and more than ~12 KiB ahead in all of them evicted the
   * lines from L1 before their use (MaxPool3d 3x3x3 on 112x112 bf16: 2.83-2.93 ms at 2-6 KiB,
   * 3.27 at 8 KiB). */
  const int64_t slice = a.h.in * a.w.in * (int64_t)es, nslices = q[0].k < 4 ? q[0].k : 4;
  a.pf_dist = 4 * slice <= 32768 ? (4 * slice + 4095) / 4096 * 4096 : 12288 / nslices / 64 * 64;
  /* Short mode takes an output row in a third of the row path's time or less, so on small
   * slices it prefetches twice as far ahead. Zen 5 guest (2026-12-04), a scratch driver, 2
   * threads, median of 300 cold calls, 7 alternating rounds: AvgPool3d W1 (28x28 f16
   * slices) 8 -> 16 KiB: 62-80 against 67-95 us (minimums 55-63 against 60-83); W2 (20x22
   * bf16) 4 -> 8 KiB: within noise. `nkl bench --op AvgPool3dFwd`, 4 alternating rounds:
   * W1 0.063-0.065 against 0.067-0.070 ms. */
  a.pf_short = 4 * slice <= 32768 ? 2 * a.pf_dist : a.pf_dist;
  /* Short mode over small slices (3-d windows): the rows walk x nearly in address order, so
   * one stream pf_short past each row's last tap row covers every slice's lines, instead of a
   * loop over each slice's lines per row (NKL_POOL_PF_LINEAR=0: that loop). Zen 5 guest
   * (2026-12-04), one thread, warm, 3 alternating rounds: AvgPool3d W2 16.6-16.9 -> 14.9-15.1
   * us, W1 65.3-66.6 -> 60.7-64.0 us; `nkl bench`, 6 alternating cold rounds: W1 0.069-0.082
   * -> 0.052-0.080 ms (median ratio 0.80), W2 0.017-0.021 -> 0.010-0.018 (now under the
   * batching threshold in 4 rounds of 6). */
  a.pf_linear = nslices > 1 && 4 * slice <= 32768 && linear_enabled();
  /* A row the W pass reads from x directly (1-d pools, single-tap edge rows of others) is one
   * long stream per thread: POOL_PREFETCH_BYTES ahead on Intel (the Xeon guest), 8 KiB
   * elsewhere. Zen 5 guest (2026-12-04), `nkl bench`, two sets of 5 rounds in rotating order
   * against the 2 KiB build and an identical copy of it, medians: AvgPool1d W1/W2/W3
   * 0.76-0.83/0.82-0.91/0.86-0.87 (the copy 0.89-1.05/1.04-1.08/1.03-1.07), MaxPool1d W2
   * 0.90-0.97, the 2-d and 3-d pools within the copy's spread. A build with 8 KiB for every
   * pool prefetch gained the same on these rows and gave mixed results on the 2-d ones. */
  a.pf_x = nkl__tune_intel ? POOL_PREFETCH_BYTES : 8192;
  if (row_tab && !a.global)
    for (int64_t od = 0; od < OD; od++)
      for (int64_t oh = 0; oh < OH; oh++)
        pool_plan_row(&a, od, oh, (int64_t)es, row_tab + (od * OH + oh) * a.row_stride);
  a.row_tab = a.global ? NULL : row_tab;
  /* Planes are independent, so the thread split never changes a result. Max pools select an
   * input exactly, so only averages follow the subnormal mode (nkl_set_denormal_mode). */
  if (kind == POOL_AVG)
    nkl__parallel_arith(threads, a.planes, (nkl_range_fn)kern->fn, &a);
  else
    nkl__parallel_range(threads, a.planes, (nkl_range_fn)kern->fn, &a);
  nkl__scratch_put(block);
  nkl__ran_kernel(op, kern->name);
  return NKL_OK;
}

nkl_status nkl_maxpool1d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y) {
  return pool("maxpool1d_fwd", POOL_MAX, 1, x, p, false, y);
}
nkl_status nkl_maxpool2d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y) {
  return pool("maxpool2d_fwd", POOL_MAX, 2, x, p, false, y);
}
nkl_status nkl_maxpool3d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y) {
  return pool("maxpool3d_fwd", POOL_MAX, 3, x, p, false, y);
}
nkl_status nkl_avgpool1d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y) {
  return pool("avgpool1d_fwd", POOL_AVG, 1, x, p, false, y);
}
nkl_status nkl_avgpool2d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y) {
  return pool("avgpool2d_fwd", POOL_AVG, 2, x, p, false, y);
}
nkl_status nkl_avgpool3d_fwd(const nkl_tensor *x, const nkl_pool_params *p, nkl_tensor *y) {
  return pool("avgpool3d_fwd", POOL_AVG, 3, x, p, false, y);
}
nkl_status nkl_adaptive_avgpool2d_fwd(const nkl_tensor *x, nkl_tensor *y) {
  return pool("adaptive_avgpool2d_fwd", POOL_AVG, 2, x, NULL, true, y);
}
nkl_status nkl_adaptive_maxpool2d_fwd(const nkl_tensor *x, nkl_tensor *y) {
  return pool("adaptive_maxpool2d_fwd", POOL_MAX, 2, x, NULL, true, y);
}
