/* TopkSelectorFwd against the sort-based oracle: every ISA, many random rows, windows
 * shorter than k / empty / clipped, k = 1 and k = S_kv, duplicate scores, -inf/+inf/NaN and
 * signed zeros, rows whose distribution changes from one to the next, kv groups G > 1,
 * several thread counts; the verifier itself catches wrong answers; every bad input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ROUNDED: normal scores on a 2^-12 grid, a few equal scores per value (ties inside the
 * survivor sort's small buckets, where the insertion pass must keep index order). */
typedef enum {
  NORMAL,
  FEW_VALUES,
  SPECIALS,
  SORTED_UP,
  SORTED_DOWN,
  SCALES,
  ROUNDED,
  CONSTANT
} fill_t;

typedef struct {
  int64_t B, S, S_kv, G, k;
  fill_t fill;
  int windows; /* 0: full rows, 1: random windows (clipped, short, empty) */
} tcase;

static void fill_scores(float *x, const tcase *c, uint64_t seed) {
  const int64_t rows = c->B * c->S, n = rows * c->S_kv * c->G;
  nkl_fill_normal(x, NKL_F32, n, seed, 1.0);
  uint64_t s = seed;
  for (int64_t i = 0; i < n; i++) {
    const int64_t r = i / (c->S_kv * c->G), j = (i / c->G) % c->S_kv;
    switch (c->fill) {
      case FEW_VALUES: x[i] = (float)(nkl_rand_u64(&s) % 5) - 2.0f; break;
      case SPECIALS: {
        const uint64_t u = nkl_rand_u64(&s) % 16;
        const float v[] = {NAN, INFINITY, -INFINITY, -0.0f, 0.0f, -NAN};
        if (u < 6) x[i] = v[u];
        break;
      }
      case SORTED_UP: x[i] = (float)j; break;
      case SORTED_DOWN: x[i] = -(float)j; break;
      case SCALES: x[i] *= (r % 3 == 0) ? 1e6f : (r % 3 == 1) ? 1e-6f : -1.0f; break;
      case ROUNDED: x[i] = ldexpf(rintf(ldexpf(x[i], 12)), -12); break;
      case CONSTANT: x[i] = 0.5f; break;
      default: break;
    }
  }
}

static void run(const tcase *c, uint64_t seed, const char *tag) {
  const int64_t rows = c->B * c->S, n = rows * c->S_kv * c->G, out_n = rows * c->G * c->k;
  float *x = tu_alloc((size_t)n * 4);
  int32_t *st = tu_alloc((size_t)rows * 4), *en = tu_alloc((size_t)rows * 4);
  int32_t *out = tu_alloc((size_t)out_n * 4), *ref = malloc((size_t)c->k * 4);
  fill_scores(x, c, seed);
  uint64_t s = seed ^ 0x5555;
  for (int64_t r = 0; r < rows; r++) {
    st[r] = 0, en[r] = (int32_t)c->S_kv;
    if (c->windows) {
      st[r] = (int32_t)((int64_t)(nkl_rand_u64(&s) % (uint64_t)(c->S_kv + 4)) - 2);
      en[r] = (int32_t)(st[r] + (int64_t)(nkl_rand_u64(&s) % (uint64_t)(2 * c->k + 3)) - 1);
      if (r % 7 == 3) en[r] = st[r]; /* empty */
      if (r % 7 == 5) st[r] = -5, en[r] = (int32_t)c->S_kv + 9;
    }
  }
  memset(out, 0x7F, (size_t)out_n * 4);
  int64_t xs[4] = {c->B, c->S, c->S_kv, c->G}, ws[2] = {c->B, c->S},
          os[4] = {c->B, c->S, c->G, c->k};
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 4, xs, x), ts = nkl_tensor_make(NKL_I32, 2, ws, st),
             te = nkl_tensor_make(NKL_I32, 2, ws, en), to = nkl_tensor_make(NKL_I32, 4, os, out);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, c->k, &to), NKL_OK);
  uint8_t *mark = calloc((size_t)c->S_kv, 1);
  int bad = 0;
  for (int64_t r = 0; r < rows * c->G && bad < 3; r++) {
    const int64_t bs = r / c->G, g = r % c->G;
    const float *row = x + bs * c->S_kv * c->G + g;
    oracle_topk_row(row, c->G, c->S_kv, st[bs], en[bs], c->k, ref);
    char msg[200];
    const bool ok = oracle_topk_verify_row(row, c->G, c->S_kv, st[bs], en[bs], c->k, out + r * c->k,
                                           mark, msg, sizeof msg);
    if (!ok || memcmp(ref, out + r * c->k, (size_t)c->k * 4) != 0) {
      int64_t first = 0;
      while (first < c->k && ref[first] == out[r * c->k + first]) first++;
      CHECK(false,
            "%s S_kv=%lld G=%lld k=%lld fill=%d row %lld window [%d, %d): %s; first diff at slot "
            "%lld (got %d want %d)",
            tag, (long long)c->S_kv, (long long)c->G, (long long)c->k, c->fill, (long long)r,
            st[bs], en[bs], ok ? "verifier passed" : msg, (long long)first,
            first < c->k ? out[r * c->k + first] : 0, first < c->k ? ref[first] : 0);
      bad++;
    }
  }
  CHECK(tu_guard_ok(out), "%s wrote out of bounds", tag);
  free(mark);
  free(ref);
  tu_free(x);
  tu_free(st);
  tu_free(en);
  tu_free(out);
}

static void test_sweep(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  static const int64_t kSizes[][2] = {
      {1, 1},     {5, 1},      {16, 3},      {17, 16},   {33, 17},    {100, 7},    {300, 1},
      {1000, 10}, {1000, 999}, {1000, 1000}, {2049, 64}, {5000, 300}, {4096, 512}, {20000, 1024}};
  for (int ki = 0; ki < nisa; ki++) {
    nkl_set_max_isa(isas[ki]);
    for (size_t z = 0; z < sizeof kSizes / sizeof kSizes[0]; z++)
      for (int f = NORMAL; f <= CONSTANT; f++)
        for (int w = 0; w < 2; w++) {
          const int64_t S_kv = kSizes[z][0], k = kSizes[z][1];
          if (S_kv * (w ? 9 : 6) > 200000 && f != NORMAL) continue;
          tcase c = {1, S_kv > 4000 ? 3 : 9, S_kv, 1, k, (fill_t)f, w};
          run(&c, 10 + z * 7 + (uint64_t)f, nkl_isa_name(isas[ki]));
        }
  }
}

static void test_groups_and_batches(void) {
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int ki = 0; ki < nisa; ki++) {
    nkl_set_max_isa(isas[ki]);
    for (int64_t G = 1; G <= 3; G++) {
      tcase c = {2, 5, 700, G, 40, NORMAL, 1};
      run(&c, 77 + (uint64_t)G, "groups");
      tcase d = {3, 4, 257, G, 257, SPECIALS, 0}; /* k = S_kv */
      run(&d, 78 + (uint64_t)G, "k=S_kv");
    }
  }
}

/* Many rows on 1, 2 and 3 threads: results are exact, so they must equal the oracle. */
static void test_threads(void) {
  for (int t = 1; t <= 3; t++) {
    nkl_set_num_threads(t);
    tcase c = {2, 40, 3000, 1, 100, SCALES, 0};
    run(&c, 5 + (uint64_t)t, "threads");
    tcase d = {1, 30, 3000, 1, 200, NORMAL, 1};
    run(&d, 9 + (uint64_t)t, "threads-windows");
  }
}

/* The verifier catches a swapped pair, a wrong member and a missing -1. */
static void test_verifier_detects_errors(void) {
  float x[50];
  nkl_fill_normal(x, NKL_F32, 50, 3, 1.0);
  int32_t out[10];
  uint8_t mark[50] = {0};
  char msg[200];
  oracle_topk_row(x, 1, 50, 0, 50, 10, out);
  CHECK(oracle_topk_verify_row(x, 1, 50, 0, 50, 10, out, mark, msg, sizeof msg), "clean: %s", msg);
  int32_t t = out[3];
  out[3] = out[4], out[4] = t;
  CHECK(!oracle_topk_verify_row(x, 1, 50, 0, 50, 10, out, mark, msg, sizeof msg), "swap unnoticed");
  oracle_topk_row(x, 1, 50, 0, 50, 10, out);
  int32_t all[50];
  oracle_topk_row(x, 1, 50, 0, 50, 50, all);
  out[9] = all[10]; /* the 11th instead of the 10th */
  CHECK(!oracle_topk_verify_row(x, 1, 50, 0, 50, 10, out, mark, msg, sizeof msg),
        "wrong member unnoticed");
  oracle_topk_row(x, 1, 50, 3, 8, 10, out);
  CHECK(out[5] == -1 && out[9] == -1, "short window not padded");
  out[7] = 4;
  CHECK(!oracle_topk_verify_row(x, 1, 50, 3, 8, 10, out, mark, msg, sizeof msg),
        "bad padding unnoticed");
  for (int i = 0; i < 50; i++) CHECK(mark[i] == 0, "mark not cleared");
}

static void test_bad_input(void) {
  float x[2 * 3 * 10];
  int32_t st[6] = {0}, en[6] = {10, 10, 10, 10, 10, 10}, out[2 * 3 * 4];
  nkl_fill_normal(x, NKL_F32, 60, 1, 1.0);
  for (int i = 0; i < 24; i++) out[i] = 12345;
  int64_t xs[4] = {2, 3, 10, 1}, ws[2] = {2, 3}, os[4] = {2, 3, 1, 4};
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 4, xs, x), ts = nkl_tensor_make(NKL_I32, 2, ws, st),
             te = nkl_tensor_make(NKL_I32, 2, ws, en), to = nkl_tensor_make(NKL_I32, 4, os, out), t;
  CHECK_STATUS(nkl_topk_selector_fwd(NULL, &ts, &te, 4, &to), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, NULL, &te, 4, &to), NKL_ERR_NULL_POINTER);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, 4, NULL), NKL_ERR_NULL_POINTER);
  t = tx, t.dtype = NKL_F16;
  CHECK_STATUS(nkl_topk_selector_fwd(&t, &ts, &te, 4, &to), NKL_ERR_BAD_DTYPE);
  t = ts, t.dtype = NKL_F32;
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &t, &te, 4, &to), NKL_ERR_BAD_DTYPE);
  t = to, t.dtype = NKL_F32;
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, 4, &t), NKL_ERR_BAD_DTYPE);
  t = nkl_tensor_make(NKL_F32, 3, xs, x);
  CHECK_STATUS(nkl_topk_selector_fwd(&t, &ts, &te, 4, &to), NKL_ERR_BAD_RANK);
  t = nkl_tensor_make(NKL_I32, 1, ws, en);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &t, 4, &to), NKL_ERR_BAD_RANK);
  t = tx, t.strides[2] = 2;
  CHECK_STATUS(nkl_topk_selector_fwd(&t, &ts, &te, 4, &to), NKL_ERR_BAD_STRIDE);
  t = nkl_tensor_make(NKL_I32, 2, (int64_t[]){2, 2}, st);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &t, &te, 4, &to), NKL_ERR_BAD_SHAPE);
  t = nkl_tensor_make(NKL_I32, 4, (int64_t[]){2, 3, 1, 3}, out);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, 4, &t), NKL_ERR_BAD_SHAPE);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, 0, &to), NKL_ERR_BAD_PARAM);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, 11, &to), NKL_ERR_BAD_PARAM);
  t = tx, t.shape[0] = INT64_MAX / 8;
  CHECK_STATUS(nkl_topk_selector_fwd(&t, &ts, &te, 4, &to), NKL_ERR_OVERFLOW);
  t = nkl_tensor_make(NKL_I32, 4, os, x); /* indices inside the scores */
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, 4, &t), NKL_ERR_ALIAS);
  for (int i = 0; i < 24; i++) CHECK(out[i] == 12345, "out[%d] touched by a failed call", i);
  CHECK_STATUS(nkl_topk_selector_fwd(&tx, &ts, &te, 4, &to), NKL_OK);
  CHECK(nkl_last_error()[0] == '\0', "stale message: %s", nkl_last_error());
  CHECK(strstr(nkl_last_kernel(), "topk_selector_fwd") != NULL, "kernel: %s", nkl_last_kernel());
}

int main(void) {
  tu_run("sweep_isas_sizes_fills_windows", test_sweep);
  tu_run("kv_groups_batches_k_eq_s_kv", test_groups_and_batches);
  tu_run("thread_counts", test_threads);
  tu_run("verifier_detects_errors", test_verifier_detects_errors);
  tu_run("bad_input", test_bad_input);
  return tu_summary();
}
