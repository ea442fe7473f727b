/* Public entry points of the pooling family: validate, plan the per-axis tap tables, pick
 * the kernel, split the N*C planes across threads. */
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"
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
  nkl__clear_error();
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

/* Fills one axis of a strided pool: output o starts at o*s - p, taps every d, k of them. */
static void plan_axis(pool_axis *ax, int64_t *lo, int64_t *hi, float *cnt, int64_t k, int64_t s,
                      int64_t p, int64_t d, bool include_pad, int64_t divisor) {
  ax->step = d;
  for (int64_t o = 0; o < ax->out; o++) {
    const int64_t start = o * s - p, end = start + (k - 1) * d + 1;
    lo[o] = start < 0 ? start + (-start + d - 1) / d * d : start;
    hi[o] = end < ax->in ? end : ax->in;
    if (hi[o] < lo[o]) hi[o] = lo[o];
    /* PyTorch: pool_size spans the window clipped to the padded input; otherwise only the
     * valid elements count (dilation is 1 for averages). */
    const int64_t pend = start + k < ax->in + p ? start + k : ax->in + p;
    cnt[o] = divisor       ? (float)divisor
             : include_pad ? (float)(pend - start)
                           : (float)(hi[o] - lo[o]);
  }
}

/* Adaptive axis: output o covers [floor(o*in/out), ceil((o+1)*in/out)). */
static void plan_adaptive(pool_axis *ax, int64_t *lo, int64_t *hi, float *cnt) {
  ax->step = 1;
  for (int64_t o = 0; o < ax->out; o++) {
    lo[o] = o * ax->in / ax->out;
    hi[o] = ((o + 1) * ax->in + ax->out - 1) / ax->out;
    cnt[o] = (float)(hi[o] - lo[o]);
  }
}

/* The D/H tap rows of every output row (od, oh), laid out as pool.h's row_tab describes, so
 * that the kernels do not rebuild them for every plane (a fifth of the time of pools with
 * short rows: AvgPool3d on 20x22 planes). NULL (the kernels then build them per row) when
 * a row has over 32 tap rows, the table would pass 1 MiB, or there is no memory. */
static int64_t *plan_rows(const pool_args *a, int64_t es, int64_t *stride) {
  const int64_t OD = a->d.out, OH = a->h.out;
  int64_t nd = 0, nh = 0; /* the most depth / height taps of any output */
  for (int64_t o = 0; o < OD; o++) {
    const int64_t n = (a->d.hi[o] - a->d.lo[o] + a->d.step - 1) / a->d.step;
    nd = n > nd ? n : nd;
  }
  for (int64_t o = 0; o < OH; o++) {
    const int64_t n = (a->h.hi[o] - a->h.lo[o] + a->h.step - 1) / a->h.step;
    nh = n > nh ? n : nh;
  }
  *stride = 8 + nd * nh;
  if (nd * nh > POOL_MAX_ROWS || OD * OH > (1 << 20) / 8 / *stride) return NULL;
  int64_t *tab = malloc((size_t)(OD * OH * *stride) * sizeof(int64_t));
  if (!tab) return NULL;
  for (int64_t od = 0; od < OD; od++)
    for (int64_t oh = 0; oh < OH; oh++)
      pool_plan_row(a, od, oh, es, tab + (od * OH + oh) * *stride);
  return tab;
}

static nkl_status pool(const char *op, pool_kind kind, int nsp, const nkl_tensor *x,
                       const nkl_pool_params *prm, bool adaptive, nkl_tensor *y) {
  nkl__clear_error();
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
  int64_t K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, P[3] = {0, 0, 0}, Dl[3] = {1, 1, 1};
  int64_t total = 0;
  for (int i = 0; i < 3; i++) {
    const int src = i - (3 - nsp); /* spatial index in x, or < 0 for a missing axis */
    axes[i]->in = src < 0 ? 1 : x->shape[2 + src];
    axes[i]->out = src < 0 ? 1 : y->shape[2 + src];
    if (src >= 0 && !adaptive) {
      K[i] = prm->kernel_size[src], S[i] = prm->stride[src], P[i] = prm->padding[src];
      Dl[i] = prm->dilation[src];
    }
    total += axes[i]->out + kPad + 1;
  }
  /* One allocation: lo, hi (int64) and cnt (float, padded for 16-lane loads) per axis. */
  char *tables = malloc((size_t)total * 20 + 64);
  if (!tables) return nkl__fail(NKL_ERR_ALLOC, "%s: no memory for the tap tables", op);
  char *t = tables;
  for (int i = 0; i < 3; i++) {
    const int64_t n = (axes[i]->out + kPad + 1) / 2 * 2; /* even: keeps the int64 arrays aligned */
    int64_t *lo = (int64_t *)t, *hi = lo + n;
    float *cnt = (float *)(hi + n);
    t = (char *)(cnt + n);
    for (int64_t j = 0; j < n; j++) cnt[j] = 1.0f;
    const bool override_here = !adaptive && prm->divisor_override && i == 2;
    if (adaptive)
      plan_adaptive(axes[i], lo, hi, cnt);
    else
      plan_axis(axes[i], lo, hi, cnt, K[i], S[i], P[i], Dl[i], prm->count_include_pad,
                override_here ? prm->divisor_override : 0);
    if (!adaptive && prm->divisor_override && i < 2)
      for (int64_t j = 0; j < axes[i]->out; j++) cnt[j] = 1.0f;
    axes[i]->lo = lo, axes[i]->hi = hi, axes[i]->cnt = cnt;
  }

  /* W: output mode (vectorised along outputs) unless each output's window is long compared
   * with the row, or the windows are not evenly strided (adaptive). */
  const int64_t OW = a.w.out, OWr = (OW + 15) / 16 * 16;
  const double cost_out = (double)(OWr / 16) * (double)K[2];
  const double cost_taps = (double)OW * (double)((K[2] + 15) / 16 + 4);
  a.tap_mode = adaptive || (Dl[2] == 1 && cost_taps < cost_out);
  a.stride = S[2], a.k = K[2], a.dil = Dl[2], a.pad = a.tap_mode ? 0 : P[2];
  const int64_t need_v = a.pad + (a.w.in + 15) / 16 * 16 + 16;
  /* strided loads may read up to 16 * stride + 15 floats past their first lane; the phase
   * split of the vector after the last one reads tmp up to (OWr + 16) * stride */
  int64_t need_h = a.tap_mode ? 0 : (OWr + 1) * a.stride + (a.k - 1) * a.dil + 16;
  if (!a.tap_mode && need_h < (OWr + 16) * a.stride) need_h = (OWr + 16) * a.stride;
  a.tmp_len = ((need_v > need_h ? need_v : need_h) + 16 + 15) / 16 * 16; /* whole lines */

  /* Global: one output whose window covers each axis exactly once, step 1. */
  a.global = 1;
  for (int i = 0; i < 3; i++)
    if (axes[i]->out != 1 || axes[i]->lo[0] != 0 || axes[i]->hi[0] != axes[i]->in ||
        (axes[i]->in > 1 && axes[i]->step != 1))
      a.global = 0;
  const size_t es = nkl_dtype_size(x->dtype);
  const int64_t bytes = (nkl__numel(x) + nkl__numel(y)) * (int64_t)es;
  const int threads = nkl__threads_for(a.planes, bytes);
  atomic_int slot = 0;
  a.slot = &slot;
  /* 2 rows per thread, each on a cache line: the horizontal pass's loads of tmp are then
   * line-aligned (with malloc's 16-byte alignment rows were up to 18% slower) */
  a.scratch = aligned_alloc(64, (size_t)threads * 2 * (size_t)a.tmp_len * sizeof(float));
  if (!a.scratch) {
    free(tables);
    return nkl__fail(NKL_ERR_ALLOC, "%s: no memory for %d x %lld floats of scratch", op, threads,
                     (long long)(2 * a.tmp_len));
  }
  /* How far ahead 3-d windows prefetch each depth slice (the per-vector prefetch of the
   * vertical pass). Small slices: the windows walk x nearly in address order, and about 4
   * slices ahead measured best (cold, 2 threads: MaxPool3d 2x2x2 on 56x56 f16 1.16 ms at
   * 8 KiB, 0.95-1.07 at 24-32 KiB; AvgPool3d on 28x28 f16 0.088 ms at 8 KiB, 0.106 at 4).
   * Large slices are separate streams, and more than ~12 KiB ahead in all of them evicted the
   * lines from L1 before their use (MaxPool3d 3x3x3 on 112x112 bf16: 2.83-2.93 ms at 2-6 KiB,
   * 3.27 at 8 KiB). */
  const int64_t slice = a.h.in * a.w.in * (int64_t)es, nslices = K[0] < 4 ? K[0] : 4;
  a.pf_dist = 4 * slice <= 32768 ? (4 * slice + 4095) / 4096 * 4096 : 12288 / nslices / 64 * 64;
  int64_t *row_tab = a.global ? NULL : plan_rows(&a, (int64_t)es, &a.row_stride);
  a.row_tab = row_tab;
  /* Planes are independent, so the thread split never changes a result. */
  nkl__parallel_range(threads, a.planes, (nkl_range_fn)kern->fn, &a);
  free(row_tab);
  free(a.scratch);
  free(tables);
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
