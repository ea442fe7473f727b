/* The pools against the double-precision oracle: every ISA, dtype and op, random parameter
 * combinations (ceil mode with and without padding, count_include_pad both ways,
 * divisor_override, dilation, kernel larger than stride, output size 1, non-divisible and
 * overlapping adaptive bins), edge widths around the 16-lane vector, NaN/Inf inputs in
 * vector lanes and tails; bit agreement across ISAs and thread counts; every bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef enum { MAXP, AVGP, AMAXP, AAVGP } kind_t;
static const char *kKindName[] = {"max", "avg", "adaptive-max", "adaptive-avg"};

typedef struct {
  kind_t kind;
  oracle_pool q;
  nkl_pool_params p;
  nkl_dtype dt;
  int64_t n, c;
} pcase;

static nkl_status call(const pcase *c, const void *x, void *y) {
  int64_t xs[5] = {c->n, c->c}, ys[5] = {c->n, c->c};
  for (int i = 0; i < c->q.nsp; i++) xs[2 + i] = c->q.in[i], ys[2 + i] = c->q.out[i];
  nkl_tensor tx = nkl_tensor_make(c->dt, c->q.nsp + 2, xs, (void *)x);
  nkl_tensor ty = nkl_tensor_make(c->dt, c->q.nsp + 2, ys, y);
  switch (c->kind) {
    case MAXP:
      return c->q.nsp == 1   ? nkl_maxpool1d_fwd(&tx, &c->p, &ty)
             : c->q.nsp == 2 ? nkl_maxpool2d_fwd(&tx, &c->p, &ty)
                             : nkl_maxpool3d_fwd(&tx, &c->p, &ty);
    case AVGP:
      return c->q.nsp == 1   ? nkl_avgpool1d_fwd(&tx, &c->p, &ty)
             : c->q.nsp == 2 ? nkl_avgpool2d_fwd(&tx, &c->p, &ty)
                             : nkl_avgpool3d_fwd(&tx, &c->p, &ty);
    case AMAXP: return nkl_adaptive_maxpool2d_fwd(&tx, &ty);
    default: return nkl_adaptive_avgpool2d_fwd(&tx, &ty);
  }
}

static int64_t prod(const int64_t *v, int n) {
  int64_t r = 1;
  for (int i = 0; i < n; i++) r *= v[i];
  return r;
}

/* Builds a case from the oracle description (fills q.out and p). Returns false if the
 * input is too small for one window. */
static bool finish(pcase *c) {
  memset(&c->p, 0, sizeof c->p);
  c->q.avg = c->kind == AVGP || c->kind == AAVGP;
  c->q.adaptive = c->kind >= AMAXP;
  for (int i = 0; i < c->q.nsp; i++) {
    if (c->q.adaptive) continue;
    c->p.kernel_size[i] = c->q.k[i], c->p.stride[i] = c->q.s[i];
    c->p.padding[i] = c->q.p[i], c->p.dilation[i] = c->q.d[i];
    c->q.out[i] = oracle_pool_out_size(c->q.in[i], c->q.k[i], c->q.s[i], c->q.p[i], c->q.d[i],
                                       c->q.ceil_mode);
    if (c->q.out[i] < 1) return false;
  }
  c->p.ceil_mode = c->q.ceil_mode;
  c->p.count_include_pad = c->q.count_include_pad;
  c->p.divisor_override = c->q.divisor_override;
  return true;
}

typedef enum { PLAIN, SPECIALS } fill_t;

static void *make_input(const pcase *c, fill_t f, uint64_t seed) {
  const int64_t n = c->n * c->c * prod(c->q.in, c->q.nsp);
  void *x = tu_alloc((size_t)n * nkl_dtype_size(c->dt));
  nkl_fill_normal(x, c->dt, n, seed, 1.0);
  if (f == SPECIALS) {
    uint64_t s = seed;
    for (int64_t j = 0; j < n / 23 + 2; j++) {
      const int64_t at = (int64_t)(nkl_rand_u64(&s) % (uint64_t)n);
      const double v[] = {NAN, INFINITY, -INFINITY, -0.0, -NAN};
      nkl_set(x, c->dt, at, v[j % 5]);
    }
    nkl_set(x, c->dt, n - 1, NAN); /* the very last element: a tail lane */
  }
  return x;
}

static void compare(const pcase *c, const void *x, const void *y, const char *tag) {
  const int64_t in = prod(c->q.in, c->q.nsp), out = prod(c->q.out, c->q.nsp);
  double *xd = malloc((size_t)in * 8), *yd = malloc((size_t)out * 8),
         *mag = malloc((size_t)out * 8);
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  for (int64_t pl = 0; pl < c->n * c->c; pl++) {
    for (int64_t i = 0; i < in; i++) xd[i] = nkl_get(x, c->dt, pl * in + i);
    oracle_pool_plane(&c->q, xd, yd, mag);
    for (int64_t i = 0; i < out; i++)
      nkl_cmp_add(&cmp, nkl_get(y, c->dt, pl * out + i), yd[i],
                  oracle_pool_tolerance(&c->q, c->dt, yd[i], mag[i]), pl * out + i);
  }
  char dims[160] = "";
  for (int i = 0; i < c->q.nsp; i++)
    snprintf(dims + strlen(dims), sizeof dims - strlen(dims),
             " in%lld k%lld s%lld p%lld d%lld out%lld", (long long)c->q.in[i], (long long)c->q.k[i],
             (long long)c->q.s[i], (long long)c->q.p[i], (long long)c->q.d[i],
             (long long)c->q.out[i]);
  CHECK(cmp.bad == 0,
        "%s %s%dd %s%s ceil=%d cip=%d div=%lld: %lld of %lld wrong; worst #%lld got %.9g want "
        "%.9g tol %.3g",
        tag, kKindName[c->kind], c->q.nsp, nkl_dtype_name(c->dt), dims, c->q.ceil_mode,
        c->q.count_include_pad, (long long)c->q.divisor_override, (long long)cmp.bad,
        (long long)cmp.checked, (long long)cmp.worst, cmp.worst_got, cmp.worst_ref, cmp.worst_tol);
  CHECK(tu_guard_ok(y), "%s wrote out of bounds", tag);
  free(xd);
  free(yd);
  free(mag);
}

static void run(const pcase *c, fill_t f, uint64_t seed, const char *tag) {
  void *x = make_input(c, f, seed);
  const size_t ybytes = (size_t)(c->n * c->c * prod(c->q.out, c->q.nsp)) * nkl_dtype_size(c->dt);
  void *y = tu_alloc(ybytes);
  memset(y, 0x55, ybytes);
  CHECK_STATUS(call(c, x, y), NKL_OK);
  compare(c, x, y, tag);
  tu_free(x);
  tu_free(y);
}

/* A case with every parameter zero but these (the caller fills the axes, then finish()). */
static pcase new_case(kind_t kind, nkl_dtype dt, int64_t n, int64_t c, int nsp) {
  pcase r;
  memset(&r, 0, sizeof r);
  r.kind = kind, r.dt = dt, r.n = n, r.c = c, r.q.nsp = nsp;
  return r;
}

static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi) {
  return lo + (int64_t)(nkl_rand_u64(s) % (uint64_t)(hi - lo + 1));
}

/* A random valid case: kind, rank, per-axis sizes and parameters. */
static pcase random_case(uint64_t *s, kind_t kind, int nsp, nkl_dtype dt) {
  for (;;) {
    pcase c;
    memset(&c, 0, sizeof c);
    c.kind = kind, c.dt = dt, c.q.nsp = nsp;
    c.n = rnd(s, 1, 2), c.c = rnd(s, 1, 3);
    for (int i = 0; i < nsp; i++) {
      const bool w = i == nsp - 1;
      c.q.in[i] = w ? rnd(s, 1, 70) : rnd(s, 1, 12);
      if (kind >= AMAXP) {
        c.q.out[i] = rnd(s, 1, c.q.in[i] + 3); /* out > in: overlapping bins */
        continue;
      }
      c.q.k[i] = rnd(s, 1, w && rnd(s, 0, 3) == 0 ? 24 : 5);
      c.q.s[i] = rnd(s, 1, 4);
      c.q.p[i] = rnd(s, 0, c.q.k[i] / 2);
      c.q.d[i] = kind == MAXP ? rnd(s, 1, 3) : 1;
    }
    c.q.ceil_mode = rnd(s, 0, 1);
    c.q.count_include_pad = rnd(s, 0, 1);
    c.q.divisor_override = kind == AVGP && rnd(s, 0, 3) == 0 ? rnd(s, 1, 11) : 0;
    if (finish(&c)) return c;
  }
}

static const nkl_dtype kDt[] = {NKL_F32, NKL_F16, NKL_BF16};

static void sweep(kind_t kind, fill_t f) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    uint64_t s = 1234 + (uint64_t)kind * 77 + (uint64_t)f;
    for (int nsp = 1; nsp <= 3; nsp++) {
      if (kind >= AMAXP && nsp != 2) continue;
      for (int d = 0; d < 3; d++)
        for (int t = 0; t < (f == PLAIN ? 60 : 25); t++) {
          pcase c = random_case(&s, kind, nsp, kDt[d]);
          run(&c, f, (uint64_t)t + 1, nkl_isa_name(isas[k]));
        }
    }
  }
}
static void test_max_sweep(void) { sweep(MAXP, PLAIN); }
static void test_avg_sweep(void) { sweep(AVGP, PLAIN); }
static void test_adaptive_max_sweep(void) { sweep(AMAXP, PLAIN); }
static void test_adaptive_avg_sweep(void) { sweep(AAVGP, PLAIN); }
static void test_specials(void) {
  for (kind_t k = MAXP; k <= AAVGP; k++) sweep(k, SPECIALS);
}

/* Fixed cases: widths around the 16-lane vector and both W modes, ceil mode with and without
 * padding, the window past the right padding (ceil), global windows; as 2-d pools and as 1-d
 * ones (a single tap row: the compiled windows read x directly between the row's ends). */
static void test_edges(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  static const int64_t kW[] = {1, 2, 15, 16, 17, 31, 32, 33, 47, 64, 65, 129};
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (size_t j = 0; j < sizeof kW / sizeof kW[0]; j++)
      for (int kind = MAXP; kind <= AVGP; kind++)
        for (int v = 0; v < 16; v++) {
          pcase c = new_case((kind_t)kind, kDt[(j + (size_t)v) % 3], 2, 3, 2);
          c.q.in[0] = 5, c.q.k[0] = 3, c.q.s[0] = 2, c.q.p[0] = 1, c.q.d[0] = 1;
          c.q.in[1] = kW[j], c.q.d[1] = 1;
          switch (v % 8) {
            case 0: c.q.k[1] = 3, c.q.s[1] = 2, c.q.p[1] = 1; break; /* resnet stem */
            case 1:
              c.q.k[1] = 3, c.q.s[1] = 2, c.q.p[1] = 0, c.q.ceil_mode = 1;
              break; /* alexnet */
            case 2: c.q.k[1] = 4, c.q.s[1] = 3, c.q.p[1] = 2, c.q.ceil_mode = 1; break;
            case 3: c.q.k[1] = kW[j], c.q.s[1] = 1, c.q.p[1] = 0; break; /* global: tap mode */
            case 4: c.q.k[1] = 2, c.q.s[1] = 1, c.q.p[1] = 1, c.q.count_include_pad = 1; break;
            case 5: c.q.k[1] = 4, c.q.s[1] = 2, c.q.p[1] = 1, c.q.ceil_mode = 1; break;
            case 6: c.q.k[1] = 5, c.q.s[1] = 4, c.q.p[1] = 2, c.q.count_include_pad = 1; break;
            default: c.q.k[1] = 3, c.q.s[1] = 3, c.q.p[1] = 0; break;
          }
          if (v % 8 == 4 && kind == MAXP) c.q.d[1] = 2;
          if (v % 8 == 7 && kind == MAXP) c.q.k[1] = 5, c.q.s[1] = 2, c.q.p[1] = 2, c.q.d[1] = 2;
          if (v >= 8) { /* the same W axis as a 1-d pool */
            c.q.nsp = 1, c.q.in[0] = c.q.in[1], c.q.k[0] = c.q.k[1], c.q.s[0] = c.q.s[1];
            c.q.p[0] = c.q.p[1], c.q.d[0] = c.q.d[1];
          }
          if (!finish(&c)) continue;
          run(&c, PLAIN, 40 + j, "edge");
          run(&c, SPECIALS, 41 + j, "edge-nan");
        }
  }
}

/* Global windows (one output per plane, the whole plane): the contiguous-plane path, with
 * plane sizes around the vector width (every count of full 16- and 32-lane vectors the kernel
 * has a fixed-shape copy for, 0 to 4, and more), NaN/Inf inputs, and many planes (odd counts,
 * so the 16-plane output groups have tails). */
static void test_global_windows(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  static const int64_t kHW[][2] = {{1, 1}, {3, 5}, {7, 7}, {4, 8}, {1, 33}, {2, 16},
                                   {6, 6}, {4, 5}, {8, 8}, {9, 9}, {10, 13}};
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (size_t j = 0; j < sizeof kHW / sizeof kHW[0]; j++)
      for (int kind = MAXP; kind <= AAVGP; kind++)
        for (int f = PLAIN; f <= SPECIALS; f++) {
          pcase c = new_case((kind_t)kind, kDt[(j + (size_t)kind) % 3], 3, 13, 2);
          c.q.in[0] = kHW[j][0], c.q.in[1] = kHW[j][1];
          if (kind >= AMAXP) {
            c.q.out[0] = c.q.out[1] = 1;
          } else {
            c.q.k[0] = kHW[j][0], c.q.k[1] = kHW[j][1];
            c.q.s[0] = c.q.s[1] = 1 + (int64_t)j % 3;
            c.q.d[0] = c.q.d[1] = 1;
            c.q.count_include_pad = f;
          }
          CHECK(finish(&c), "global case %zu", j);
          run(&c, (fill_t)f, 60 + j, "global");
        }
  }
}

/* A NaN anywhere in a window makes that output NaN, wherever the window sits in a vector or
 * a tail (and an all -inf window gives -inf). */
static void test_nan_positions(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int mode = 0; mode < 2; mode++) {
      const int64_t W = 37, k1 = mode ? W : 3, s1 = mode ? 1 : 2;
      int64_t xs[3] = {1, 2, W};
      const int64_t ow = (W - k1) / s1 + 1;
      int64_t ys[3] = {1, 2, ow};
      for (int64_t pos = 0; pos < W; pos++) {
        float x[74], y[40];
        for (int i = 0; i < 74; i++) x[i] = (float)(i % 7) - 3.0f;
        x[W + pos] = NAN;
        nkl_pool_params p = {{k1}, {s1}, {0}, {1}, 0, 0, 0};
        nkl_tensor tx = nkl_tensor_make(NKL_F32, 3, xs, x), ty = nkl_tensor_make(NKL_F32, 3, ys, y);
        CHECK_STATUS(nkl_maxpool1d_fwd(&tx, &p, &ty), NKL_OK);
        for (int64_t o = 0; o < ow; o++) {
          const bool in_win = pos >= o * s1 && pos < o * s1 + k1;
          CHECK(!isnan(y[o]), "row 0 output %lld NaN", (long long)o);
          CHECK(isnan(y[ow + o]) == in_win, "%s mode %d: NaN at %lld, output %lld is %g",
                nkl_isa_name(isas[k]), mode, (long long)pos, (long long)o, y[ow + o]);
        }
      }
    }
  }
}

/* fn(kind, dtype) for max and average pools, every dtype, on every ISA. */
static void each_isa_dtype_kind(void (*fn)(kind_t, nkl_dtype)) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int d = 0; d < 3; d++)
      for (int kind = MAXP; kind <= AVGP; kind++) fn((kind_t)kind, kDt[d]);
  }
}

/* The kernels read each output row's D/H tap rows from a table planned per call, except
 * when a window has over 32 tap rows or the table would pass 1 MiB (20000 output rows
 * here): then they list them per row; both against the oracle. */
static void tap_row_lists(kind_t kind, nkl_dtype dt) {
  for (int v = 0; v < 2; v++) {
    pcase c = new_case(kind, dt, 1, 2, 3);
    const int64_t in[2][3] = {{100, 200, 9}, {3, 40, 21}}, kk[2][3] = {{1, 1, 2}, {2, 17, 3}};
    for (int i = 0; i < 3; i++)
      c.q.in[i] = in[v][i], c.q.k[i] = kk[v][i], c.q.s[i] = 2 - (i < 2 && v == 0),
      c.q.p[i] = i == 2, c.q.d[i] = 1;
    c.q.ceil_mode = 1;
    CHECK(finish(&c), "tap row case %d", v);
    run(&c, SPECIALS, 70 + (uint64_t)v, v ? "34 tap rows" : "20000 output rows");
  }
}
static void test_tap_row_lists(void) { each_isa_dtype_kind(tap_row_lists); }

/* Zeros keep PyTorch's signs: an average of -0 taps is +0 (its sum starts at +0), a max
 * of -0 taps is -0; in 1-d pools (taps read from x directly) and 2-d ones (through the
 * vertical pass). */
static void signed_zeros(kind_t kind, nkl_dtype dt) {
  for (int nsp = 1; nsp <= 2; nsp++) {
    pcase c = new_case(kind, dt, 1, 3, nsp);
    for (int i = 0; i < nsp; i++)
      c.q.in[i] = i == nsp - 1 ? 100 : 4, c.q.k[i] = 4, c.q.s[i] = 2, c.q.p[i] = 1, c.q.d[i] = 1;
    c.q.ceil_mode = 1;
    CHECK(finish(&c), "signed zero case");
    const int64_t n = c.c * prod(c.q.in, nsp), m = c.c * prod(c.q.out, nsp);
    void *x = tu_alloc((size_t)n * nkl_dtype_size(dt)),
         *y = tu_alloc((size_t)m * nkl_dtype_size(dt));
    for (int64_t i = 0; i < n; i++) nkl_set(x, dt, i, -0.0);
    CHECK_STATUS(call(&c, x, y), NKL_OK);
    int64_t bad = 0;
    for (int64_t i = 0; i < m; i++) {
      const double v = nkl_get(y, dt, i);
      bad += v != 0.0 || (signbit(v) != 0) != (kind == MAXP);
    }
    CHECK(bad == 0, "%s %s%dd %s: %lld of %lld outputs are not %s0", nkl_isa_name(nkl_active_isa()),
          kKindName[kind], nsp, nkl_dtype_name(dt), (long long)bad, (long long)m,
          kind == MAXP ? "-" : "+");
    tu_free(x);
    tu_free(y);
  }
}
static void test_signed_zeros(void) { each_isa_dtype_kind(signed_zeros); }

/* Outputs in the subnormal range of the dtype, in every other plane (the others hold
 * normal values): in 1-d pools (the direct path) and 2-d ones (the vertical pass), against the
 * oracle. On avx512bf16, bf16 averages are stored by vcvtneps2bf16, which flushes these to
 * zero; the kernel must notice and redo the row. */
static void subnormal_outputs(kind_t kind, nkl_dtype dt) {
  const double tiny = dt == NKL_F16 ? 0x1p-18 : 0x1p-130;
  for (int nsp = 1; nsp <= 2; nsp++) {
    pcase c = new_case(kind, dt, 2, 3, nsp);
    for (int i = 0; i < nsp; i++)
      c.q.in[i] = i == nsp - 1 ? 100 : 6, c.q.k[i] = 4 - i, c.q.s[i] = 2, c.q.p[i] = 1,
      c.q.d[i] = 1;
    CHECK(finish(&c), "subnormal case");
    const int64_t plane = prod(c.q.in, nsp), n = c.n * c.c * plane;
    void *x = make_input(&c, PLAIN, 81);
    for (int64_t i = 0; i < n; i++) /* every other plane tiny */
      if (i / plane % 2 == 0) nkl_set(x, dt, i, nkl_get(x, dt, i) * tiny);
    const size_t yb = (size_t)(c.n * c.c * prod(c.q.out, nsp)) * nkl_dtype_size(dt);
    void *y = tu_alloc(yb);
    CHECK_STATUS(call(&c, x, y), NKL_OK);
    compare(&c, x, y, nkl_isa_name(nkl_active_isa()));
    tu_free(x);
    tu_free(y);
  }
}
static void test_subnormal_outputs(void) { each_isa_dtype_kind(subnormal_outputs); }

/* The max rule on pairs (a, b) of special values, each pair one window, laid out four ways:
 * a above b (the vertical pass), a left of b (1-d, the horizontal pass), an adaptive pool
 * (the vertical pass and tap mode) and planes of two (global windows). A window with a NaN
 * gives a NaN, one of its own (f16/bf16: negative NaNs included, which sort below -inf as
 * raw integers); of -0 and +0, f32 keeps the first (PyTorch's rule) and f16/bf16 return +0
 * (they compare order keys, see docs/ops-pool.md). */
static void max_pairs(kind_t kind, nkl_dtype dt) {
  if (kind != MAXP) return;
  enum { NP = 11, W = 3 * NP }; /* the pattern 3 times: pairs land on every kind of lane */
  const double nan = NAN, inf = INFINITY;
  const double pa[NP] = {-0.0, 0.0, -nan, 1.0, -inf, -nan, -inf, -1.0, inf, nan, -nan};
  const double pb[NP] = {0.0, -0.0, 1.0, -nan, -nan, nan, -inf, -2.0, nan, -0.0, -inf};
  const bool keys = dt != NKL_F32;
  const size_t es = nkl_dtype_size(dt);
  uint8_t a[W * 4], b[W * 4], x[2 * W * 4], y[W * 4];
  for (int i = 0; i < W; i++) {
    nkl_set(a, dt, i, pa[i % NP]);
    nkl_set(b, dt, i, pb[i % NP]);
  }
  for (int lay = 0; lay < 4; lay++) {
    /* x as [1, 1, 2, W] (a row, then b row) for layouts 0 and 2, else pairs side by side */
    for (int i = 0; i < W; i++) {
      const bool rows = lay == 0 || lay == 2;
      memcpy(x + (size_t)(rows ? i : 2 * i) * es, a + (size_t)i * es, es);
      memcpy(x + (size_t)(rows ? W + i : 2 * i + 1) * es, b + (size_t)i * es, es);
    }
    nkl_status st;
    if (lay == 0) {
      int64_t xs[4] = {1, 1, 2, W}, ys[4] = {1, 1, 1, W};
      nkl_tensor tx = nkl_tensor_make(dt, 4, xs, x), ty = nkl_tensor_make(dt, 4, ys, y);
      nkl_pool_params p = {{2, 1}, {2, 1}, {0, 0}, {1, 1}, 0, 0, 0};
      st = nkl_maxpool2d_fwd(&tx, &p, &ty);
    } else if (lay == 1) {
      int64_t xs[3] = {1, 1, 2 * W}, ys[3] = {1, 1, W};
      nkl_tensor tx = nkl_tensor_make(dt, 3, xs, x), ty = nkl_tensor_make(dt, 3, ys, y);
      nkl_pool_params p = {{2}, {2}, {0}, {1}, 0, 0, 0};
      st = nkl_maxpool1d_fwd(&tx, &p, &ty);
    } else {
      int64_t xs[4] = {1, 1, 2, W}, ys[4] = {1, 1, 1, W};
      if (lay == 3) xs[1] = ys[1] = W, xs[2] = 1, xs[3] = 2, ys[3] = 1;
      nkl_tensor tx = nkl_tensor_make(dt, 4, xs, x), ty = nkl_tensor_make(dt, 4, ys, y);
      st = nkl_adaptive_maxpool2d_fwd(&tx, &ty);
    }
    CHECK_STATUS(st, NKL_OK);
    for (int i = 0; i < W; i++) {
      const double va = nkl_get(a, dt, i), vb = nkl_get(b, dt, i), v = nkl_get(y, dt, i);
      const bool ok =
          isnan(va) || isnan(vb)
              ? isnan(v) && (memcmp(y + (size_t)i * es, a + (size_t)i * es, es) == 0 ||
                             memcmp(y + (size_t)i * es, b + (size_t)i * es, es) == 0)
          : va == 0.0 && vb == 0.0
              ? v == 0.0 && (signbit(v) != 0) == (keys ? signbit(va) && signbit(vb) : signbit(va))
              : v == (va > vb ? va : vb);
      CHECK(ok, "%s %s layout %d: max(%g, %g) gave %g", nkl_isa_name(nkl_active_isa()),
            nkl_dtype_name(dt), lay, va, vb, v);
    }
  }
}
static void test_max_pairs(void) { each_isa_dtype_kind(max_pairs); }

/* The output size of c in bytes. */
static size_t out_bytes(const pcase *c) {
  return (size_t)(c->n * c->c * prod(c->q.out, c->q.nsp)) * nkl_dtype_size(c->dt);
}

/* c on x with the scalar ISA and one thread: the reference of check_agreement (tu_free it). */
static void *scalar_ref(const pcase *c, const void *x) {
  void *ref = tu_alloc(out_bytes(c));
  nkl_set_max_isa(NKL_ISA_SCALAR);
  nkl_set_num_threads(1);
  CHECK_STATUS(call(c, x, ref), NKL_OK);
  return ref;
}

/* c on x on every ISA with 1, 2 and 3 threads: each output in bounds and equal to ref bit for
 * bit. Leaves the default thread count. */
static void check_agreement(const pcase *c, const void *x, const void *ref, const char *tag) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  const size_t yb = out_bytes(c);
  void *y = tu_alloc(yb);
  for (int k = 0; k < nisa; k++)
    for (int t = 1; t <= 3; t++) {
      nkl_set_max_isa(isas[k]);
      nkl_set_num_threads(t);
      memset(y, 0x55, yb);
      CHECK_STATUS(call(c, x, y), NKL_OK);
      CHECK(tu_guard_ok(y), "%s %s threads=%d wrote out of bounds", tag, nkl_isa_name(isas[k]), t);
      CHECK(memcmp(y, ref, yb) == 0, "%s %s %s threads=%d differs from scalar/1 thread", tag,
            nkl_dtype_name(c->dt), nkl_isa_name(isas[k]), t);
    }
  nkl_set_num_threads(0);
  tu_free(y);
}

/* Max pools whose only input row (H = 1, or D = H = 1) lies outside the D/H window of the
 * only output row: with dilation and padding the window's taps can all be padding (rows -1,
 * 1, 3 of a 1-row input), and every output is then -inf, as in PyTorch. Such a pool has one
 * output row and at most one input row, the shape the key-rows path (f16/bf16 on AVX2 and
 * AVX-512) takes; it read the input row anyway until session 43 (`make torch-check`, seed 3,
 * found it). W windows of stride 1 to 3 and dilation 1 and 2, with and without padding,
 * widths 10 to 97 (around the 32-key vector); every output against the oracle (-inf) and
 * across ISAs and thread counts bit for bit. */
static void test_empty_tap_rows(void) {
  for (int d = 0; d < 3; d++)
    for (int nsp = 2; nsp <= 3; nsp++)
      for (int v = 0; v < 6; v++) {
        pcase c = new_case(MAXP, kDt[d], 2, 3, nsp);
        for (int i = 0; i < nsp - 1; i++) /* the leading axes: one row, no valid tap */
          c.q.in[i] = 1, c.q.k[i] = 3, c.q.s[i] = 3, c.q.p[i] = 1, c.q.d[i] = 2;
        const int w = nsp - 1;
        c.q.in[w] = (int64_t[]){10, 31, 32, 33, 64, 97}[v], c.q.k[w] = 2 + v % 3,
        c.q.s[w] = 1 + v % 3, c.q.p[w] = v % 2, c.q.d[w] = 1 + v / 3;
        c.q.ceil_mode = 1;
        CHECK(finish(&c), "empty tap row case %d", v);
        void *x = make_input(&c, PLAIN, 90 + (uint64_t)v);
        void *ref = scalar_ref(&c, x);
        compare(&c, x, ref, "scalar");
        check_agreement(&c, x, ref, "empty tap rows");
        tu_free(x);
        tu_free(ref);
      }
}

/* Bit-identical outputs on every ISA and with 1, 2 and 3 threads. */
static void test_bitwise_agreement(void) {
  uint64_t s = 99;
  for (kind_t kind = MAXP; kind <= AAVGP; kind++)
    for (int d = 0; d < 3; d++) {
      pcase c = random_case(&s, kind, kind >= AMAXP ? 2 : 2 + d % 2, kDt[d]);
      c.n = 5, c.c = 7; /* enough planes to go parallel */
      c.q.in[c.q.nsp - 1] = c.q.in[c.q.nsp - 1] < 40 ? 40 : c.q.in[c.q.nsp - 1];
      if (kind >= AMAXP && d == 2) c.q.out[0] = c.q.out[1] = 1; /* global */
      if (!finish(&c)) continue;
      void *x = make_input(&c, SPECIALS, 5);
      void *ref = scalar_ref(&c, x);
      check_agreement(&c, x, ref, kKindName[kind]);
      tu_free(x);
      tu_free(ref);
    }
}

/* Short mode (pool_row_short, pool_row_phase2, pool_row_split2: rows of up to 32 columns and
 * 16 outputs, or 64 and 32 with stride 2, in registers; AVX-512 kernels only; split mode for
 * bf16 averages with stride 2, any of 1 to 8 taps): the scalar row path
 * against the oracle, and every ISA with 1 to 3 threads bit for bit against it, over random
 * 1-d to 3-d windows (padding, dilation, ceil mode, the pair-sum windows 4/2 and 5/2, 3 to 5
 * taps with stride 2), widths 1 to 64, max pools in f32 and on f16/bf16 order keys,
 * NaN/Inf/-0 inputs and, with tiny inputs, subnormal sums. The last rows of x are read
 * through a copy (a full load would run past its end). */
static void test_short_rows(void) {
  uint64_t s = 4242;
  static const int64_t kPlanes[][2] = {{1, 1}, {2, 17}, {1, 47}, {3, 5}};
  for (int t = 0; t < 64; t++) {
    const kind_t kind = t % 3 ? AVGP : MAXP;
    /* max: f32, and f16/bf16 on order keys (the keyed vertical pass) */
    const nkl_dtype dt = kDt[t / 3 % 3];
    const int wide = t % 2; /* up to 64 columns and 32 outputs (phase mode), else 32 and 16 */
    pcase c;
    do {
      c = random_case(&s, kind, 1 + t % 3, dt);
      c.n = kPlanes[t % 4][0], c.c = kPlanes[t % 4][1];
      const int w = c.q.nsp - 1;
      c.q.in[w] = rnd(&s, 1, wide ? 64 : 32);
      c.q.k[w] = rnd(&s, 1, 8);
      if (kind == AVGP && t % 4 < 2) /* the pair-sum windows, 4/2 and 5/2 */
        c.q.k[w] = 4 + t / 4 % 2, c.q.s[w] = 2, c.q.d[w] = 1;
      else if (wide && t % 8 >= 4) /* phase mode's windows */
        c.q.k[w] = rnd(&s, 3, 5), c.q.s[w] = 2, c.q.d[w] = 1;
      else if (kind == AVGP && dt == NKL_BF16 && t % 4 == 2) /* split mode's 3/2 (AvgPool3d W2) */
        c.q.k[w] = 3, c.q.s[w] = 2, c.q.d[w] = 1;
      c.q.p[w] = rnd(&s, 0, c.q.k[w] / 2);
      if (dt == NKL_F16) c.q.divisor_override = 0; /* sums of +-2^13 / 2 pass f16's range */
    } while (!finish(&c) || c.q.out[c.q.nsp - 1] > (wide ? 32 : 16));
    for (int f = PLAIN; f <= SPECIALS; f++) {
      void *x = make_input(&c, (fill_t)f, 17 + (uint64_t)t);
      const int64_t nx = c.n * c.c * prod(c.q.in, c.q.nsp);
      if (t % 6 == 5) /* tiny values: sums and averages in the subnormal range */
        for (int64_t j = 0; j < nx; j += 3) nkl_set(x, c.dt, j, nkl_get(x, c.dt, j) * 0x1p-120);
      else /* +-2^13 (often cancelling) among values near 2^-12: the f32 sums round, and
            * their order shows in the outputs */
        for (int64_t j = 0; j < nx; j++) {
          const uint64_t r = nkl_rand_u64(&s) % 4;
          nkl_set(x, c.dt, j, r < 2 ? (r ? -0x1p13 : 0x1p13) : nkl_get(x, c.dt, j) * 0x1p-12);
        }
      void *ref = scalar_ref(&c, x);
      compare(&c, x, ref, "short-scalar");
      char tag[80];
      snprintf(tag, sizeof tag, "short case %d (%s, %lld planes, W %lld)", t, kKindName[kind],
               (long long)(c.n * c.c), (long long)c.q.in[c.q.nsp - 1]);
      check_agreement(&c, x, ref, tag);
      tu_free(x);
      tu_free(ref);
    }
  }
}

/* The catalog's parameter sets at reduced N*C (the full sizes run in `nkl check`). */
static void test_catalog_shapes(void) {
  /* kind, nsp, in[3], k[3], s[3], p[3], d[3], ceil, cip */
  static const struct {
    kind_t kind;
    int nsp;
    int64_t in[3], k[3], s[3], p[3], d[3];
    int ceil, cip;
  } kRows[] = {
      {AVGP, 3, {8, 28, 28}, {2, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, 0},
      {AVGP, 3, {10, 20, 22}, {2, 2, 3}, {2, 2, 2}, {0, 1, 1}, {1, 1, 1}, 0, 1},
      {AVGP, 1, {4096}, {3}, {2}, {1}, {1}, 0, 1},
      {AVGP, 1, {2048}, {4}, {2}, {1}, {1}, 1, 0},
      {AVGP, 1, {32000}, {5}, {4}, {2}, {1}, 0, 1},
      {AVGP, 2, {55, 57}, {3, 5}, {2, 2}, {1, 2}, {1, 1}, 1, 0},
      {AVGP, 2, {56, 56}, {5, 5}, {2, 2}, {2, 2}, {1, 1}, 0, 1},
      {AVGP, 3, {16, 56, 56}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 0, 1},
      {MAXP, 3, {16, 112, 112}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}, 0, 0},
      {MAXP, 3, {16, 56, 56}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 0, 0},
      {MAXP, 2, {56, 56}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, 0, 0},
      {MAXP, 3, {32, 112, 112}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, 0},
      {MAXP, 2, {55, 55}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, 1, 0},
      {MAXP, 2, {112, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 0, 0},
      {MAXP, 1, {2048}, {5}, {2}, {2}, {2}, 1, 0},
      {MAXP, 1, {4096}, {3}, {3}, {0}, {1}, 0, 0},
      {MAXP, 1, {128}, {128}, {1}, {0}, {1}, 0, 0},
  };
  for (size_t r = 0; r < sizeof kRows / sizeof kRows[0]; r++)
    for (int d = 0; d < 3; d++) {
      pcase c;
      memset(&c, 0, sizeof c);
      c.kind = kRows[r].kind, c.dt = kDt[d], c.n = 1, c.c = 3, c.q.nsp = kRows[r].nsp;
      for (int i = 0; i < c.q.nsp; i++)
        c.q.in[i] = kRows[r].in[i], c.q.k[i] = kRows[r].k[i], c.q.s[i] = kRows[r].s[i],
        c.q.p[i] = kRows[r].p[i], c.q.d[i] = kRows[r].d[i];
      c.q.ceil_mode = kRows[r].ceil, c.q.count_include_pad = kRows[r].cip;
      CHECK(finish(&c), "row %zu", r);
      run(&c, PLAIN, r, "catalog");
      /* and bit for bit on every ISA and thread count (the kernels compile some of these
       * windows and tap-row counts as constants) */
      void *x = make_input(&c, SPECIALS, 100 + r);
      void *ref = scalar_ref(&c, x);
      check_agreement(&c, x, ref, "catalog");
      tu_free(x);
      tu_free(ref);
    }
  static const int64_t kAd[][4] = {{7, 7, 1, 1}, {55, 57, 7, 7}, {56, 56, 6, 6}};
  for (size_t r = 0; r < 3; r++)
    for (kind_t kind = AMAXP; kind <= AAVGP; kind++) {
      pcase c;
      memset(&c, 0, sizeof c);
      c.kind = kind, c.dt = kDt[r], c.n = 2, c.c = 5, c.q.nsp = 2;
      c.q.in[0] = kAd[r][0], c.q.in[1] = kAd[r][1], c.q.out[0] = kAd[r][2], c.q.out[1] = kAd[r][3];
      finish(&c);
      run(&c, PLAIN, 3, "catalog-adaptive");
    }
}

/* Pair mode (W window 2 wide, stride 2, no W padding: vertical and horizontal steps fused):
 * widths around the 16-output vector (the unused last column of odd widths; the last rows
 * of x, whose loads would run past its end, take the row-buffer path), 1-d to 3-d, with D/H
 * padding and ceil mode (partial windows in D/H only), NaN/Inf inputs. */
static void pair_windows(kind_t kind, nkl_dtype dt) {
  static const int64_t kW[] = {2, 3, 31, 32, 33, 34, 63, 64, 65, 66, 112};
  for (size_t j = 0; j < sizeof kW / sizeof kW[0]; j++)
    for (int nsp = 1; nsp <= 3; nsp++) {
      pcase c = new_case(kind, dt, 2, 3, nsp);
      for (int i = 0; i < nsp; i++) {
        const bool w = i == nsp - 1;
        c.q.in[i] = w ? kW[j] : 5 + i, c.q.k[i] = 2, c.q.s[i] = 2, c.q.d[i] = 1;
        c.q.p[i] = !w && j % 2;
      }
      c.q.ceil_mode = j % 3 == 1, c.q.count_include_pad = j % 4 == 0;
      CHECK(finish(&c), "pair case %zu", j);
      run(&c, PLAIN, 90 + j, "pairs");
      run(&c, SPECIALS, 91 + j, "pairs-nan");
    }
}
static void test_pair_windows(void) { each_isa_dtype_kind(pair_windows); }

/* The comparison itself must be able to fail: one ulp off in one avg output is caught. */
static void test_oracle_detects_errors(void) {
  pcase c;
  memset(&c, 0, sizeof c);
  c.kind = AVGP, c.dt = NKL_BF16, c.n = 1, c.c = 1, c.q.nsp = 2;
  c.q.in[0] = c.q.in[1] = 8;
  c.q.k[0] = c.q.k[1] = c.q.s[0] = c.q.s[1] = 2, c.q.d[0] = c.q.d[1] = 1;
  finish(&c);
  void *x = make_input(&c, PLAIN, 3);
  uint16_t y[16];
  CHECK_STATUS(call(&c, x, y), NKL_OK);
  double xd[64], yd[16], mag[16];
  for (int i = 0; i < 64; i++) xd[i] = nkl_get(x, NKL_BF16, i);
  oracle_pool_plane(&c.q, xd, yd, mag);
  nkl_cmp cmp;
  nkl_cmp_init(&cmp);
  for (int i = 0; i < 16; i++)
    nkl_cmp_add(&cmp, nkl_get(y, NKL_BF16, i), yd[i],
                oracle_pool_tolerance(&c.q, NKL_BF16, yd[i], mag[i]), i);
  CHECK(cmp.bad == 0, "clean result flagged");
  y[5] = (uint16_t)(y[5] + 2);
  CHECK(!nkl_cmp_add(&cmp, nkl_get(y, NKL_BF16, 5), yd[5],
                     oracle_pool_tolerance(&c.q, NKL_BF16, yd[5], mag[5]), 5),
        "2-ulp error went unnoticed");
  /* and a max pool must be exact: the neighbouring value is an error */
  c.kind = MAXP;
  finish(&c);
  CHECK_STATUS(call(&c, x, y), NKL_OK);
  oracle_pool_plane(&c.q, xd, yd, mag);
  y[3] = (uint16_t)(y[3] + 1);
  CHECK(!nkl_cmp_add(&cmp, nkl_get(y, NKL_BF16, 3), yd[3],
                     oracle_pool_tolerance(&c.q, NKL_BF16, yd[3], mag[3]), 3),
        "1-ulp max error went unnoticed");
  tu_free(x);
}

static void test_output_size(void) {
  int64_t o;
  CHECK_STATUS(nkl_pool_output_size(55, 3, 2, 0, 1, 1, &o), NKL_OK);
  CHECK(o == 27, "alexnet ceil: %lld", (long long)o);
  CHECK_STATUS(nkl_pool_output_size(112, 3, 2, 1, 1, 0, &o), NKL_OK);
  CHECK(o == 56, "resnet: %lld", (long long)o);
  /* ceil mode would start the last window in the right padding: dropped */
  CHECK_STATUS(nkl_pool_output_size(5, 2, 2, 1, 1, 1, &o), NKL_OK);
  CHECK(o == 3, "ceil drop: %lld", (long long)o);
  CHECK_STATUS(nkl_pool_output_size(2, 5, 1, 0, 1, 0, &o), NKL_ERR_BAD_SHAPE);
  CHECK_STATUS(nkl_pool_output_size(9, 3, 0, 0, 1, 0, &o), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_pool_output_size(9, 3, 1, 2, 1, 0, &o), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_pool_output_size(9, 3, 1, 1, 1, 0, NULL), NKL_ERR_NULL_POINTER);
}

static void test_bad_input(void) {
  float x[2 * 3 * 8 * 8], y[2 * 3 * 4 * 4];
  nkl_fill_normal(x, NKL_F32, 384, 1, 1.0);
  for (int i = 0; i < 96; i++) y[i] = 12345.0f;
  int64_t xs[4] = {2, 3, 8, 8}, ys[4] = {2, 3, 4, 4};
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 4, xs, x), ty = nkl_tensor_make(NKL_F32, 4, ys, y), t;
  const nkl_pool_params p0 = {{2, 2}, {2, 2}, {0, 0}, {1, 1}, 0, 1, 0};
  nkl_pool_params p = p0;
  CHECK_STATUS(nkl_maxpool2d_fwd(NULL, &p, &ty), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, NULL, &ty), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_avgpool2d_fwd(&tx, &p, NULL), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_adaptive_maxpool2d_fwd(&tx, NULL), NKL_ERR_NULL_POINTER);
  t = tx, t.data = NULL;
  CHECK_STATUS(nkl_maxpool2d_fwd(&t, &p, &ty), NKL_ERR_NULL_POINTER);
  t = tx, t.dtype = NKL_I32;
  CHECK_STATUS(nkl_maxpool2d_fwd(&t, &p, &ty), NKL_ERR_BAD_DTYPE);
  t = ty, t.dtype = NKL_BF16;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &t), NKL_ERR_BAD_DTYPE);
  CHECK_STATUS(nkl_maxpool1d_fwd(&tx, &p, &ty), NKL_ERR_BAD_RANK);
  CHECK_STATUS(nkl_avgpool3d_fwd(&tx, &p, &ty), NKL_ERR_BAD_RANK);
  t = tx, t.strides[3] = 2;
  CHECK_STATUS(nkl_maxpool2d_fwd(&t, &p, &ty), NKL_ERR_BAD_STRIDE);
  t = nkl_tensor_make(NKL_F32, 4, (int64_t[]){2, 2, 4, 4}, y);
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &t), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_F32, 4, (int64_t[]){2, 3, 4, 3}, y);
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &t), NKL_ERR_BAD_SHAPE);
  CHECK(strstr(nkl_last_error(), "axis 1") != NULL, "message: %s", nkl_last_error());
  t = tx, t.shape[0] = INT64_MAX / 4;
  CHECK_STATUS(nkl_maxpool2d_fwd(&t, &p, &ty), NKL_ERR_OVERFLOW);
  p = p0, p.kernel_size[1] = 0;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.stride[0] = 0;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.padding[0] = 2;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.padding[0] = -1;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.dilation[1] = 0;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.dilation[1] = 2;
  CHECK_STATUS(nkl_avgpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.ceil_mode = 2;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.count_include_pad = -1;
  CHECK_STATUS(nkl_avgpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.divisor_override = -3;
  CHECK_STATUS(nkl_avgpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.divisor_override = 3;
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_PARAM);
  p = p0, p.kernel_size[0] = p.kernel_size[1] = 9; /* input too small: no output */
  CHECK_STATUS(nkl_maxpool2d_fwd(&tx, &p, &ty), NKL_ERR_BAD_SHAPE);
  p = p0;
  t = nkl_tensor_make(NKL_F32, 4, (int64_t[]){1, 3, 8, 8}, x);
  CHECK_STATUS(nkl_maxpool2d_fwd(&t, &p, &ty), NKL_ERR_BAD_SHAPE);
  int64_t xs2[4] = {2, 3, 4, 4};
  nkl_tensor t2 = nkl_tensor_make(NKL_F32, 4, xs2, y + 8);
  nkl_tensor ty2 = nkl_tensor_make(NKL_F32, 4, (int64_t[]){2, 3, 2, 2}, y);
  CHECK_STATUS(nkl_maxpool2d_fwd(&t2, &p, &ty2), NKL_ERR_ALIAS);
  CHECK_STATUS(nkl_adaptive_avgpool2d_fwd(&t2, &ty2), NKL_ERR_ALIAS);
  for (int i = 0; i < 96; i++) CHECK(y[i] == 12345.0f, "y[%d] touched by a failed call", i);
  CHECK(strlen(nkl_last_error()) > 10, "no message");
  CHECK_STATUS(nkl_avgpool2d_fwd(&tx, &p, &ty), NKL_OK);
  CHECK(nkl_last_error()[0] == '\0', "stale message after success: %s", nkl_last_error());
  CHECK(strstr(nkl_last_kernel(), "avgpool_fwd") != NULL, "kernel name: %s", nkl_last_kernel());
}

int main(void) {
  tu_run("output_size_rule", test_output_size);
  tu_run("max_sweep_isas_dtypes_params", test_max_sweep);
  tu_run("avg_sweep_isas_dtypes_params", test_avg_sweep);
  tu_run("adaptive_max_sweep", test_adaptive_max_sweep);
  tu_run("adaptive_avg_sweep", test_adaptive_avg_sweep);
  tu_run("nan_inf_signed_zero_inputs", test_specials);
  tu_run("edge_widths_and_modes", test_edges);
  tu_run("nan_in_every_lane_and_tail", test_nan_positions);
  tu_run("global_windows", test_global_windows);
  tu_run("catalog_parameter_sets", test_catalog_shapes);
  tu_run("signed_zeros", test_signed_zeros);
  tu_run("subnormal_outputs", test_subnormal_outputs);
  tu_run("max_nan_and_zero_pairs", test_max_pairs);
  tu_run("tap_row_lists", test_tap_row_lists);
  tu_run("empty_tap_rows", test_empty_tap_rows);
  tu_run("pair_windows", test_pair_windows);
  tu_run("bitwise_agreement_isas_threads", test_bitwise_agreement);
  tu_run("short_rows", test_short_rows);
  tu_run("oracle_detects_errors", test_oracle_detects_errors);
  tu_run("bad_input", test_bad_input);
  return tu_summary();
}
