/* Calls from several user threads at once. The entry points keep no shared mutable state:
 * the error message, the last kernel's name and the reusable scratch are per calling thread.
 * Each worker repeats a set of calls (the ones that take scratch: quantized norm, norm
 * backward, L2 norm, spectral norm, pooling, top-k) and must get the bits a lone call gets,
 * see only its own error messages, and, when it exits, leave no scratch behind (under
 * `make asan` LeakSanitizer reports a thread's scratch that outlives it). */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nkl.h"
#include "oracle/oracle.h"
#include "testutil.h"

enum { NCALL = 6, WORKERS = 4, WAVES = 3, REPEATS = 6 };

typedef struct {
  void *in[3];         /* inputs of each call, shared read-only by the workers */
  size_t out_bytes[3]; /* sizes of its outputs */
  void *ref[3];        /* the outputs of a lone call */
} call_data;

static call_data g_calls[NCALL];
static nkl_tensor g_x_rq, g_w_rq;                      /* rmsnorm_quant */
static nkl_tensor g_x_lb, g_dy_lb, g_w_lb, g_mu, g_rs; /* layernorm_bwd */
static nkl_tensor g_x_l2;                              /* l2norm */
static nkl_tensor g_w_sn, g_u_sn;                      /* spectral norm */
static nkl_tensor g_x_ap;                              /* avgpool2d */
static nkl_tensor g_sc, g_st, g_en;                    /* top-k */
static const int64_t s_rq[2] = {37, 4099}, s_rq_w[1] = {4099}, s_rq_s[1] = {37};
static const int64_t s_lb[2] = {64, 1000}, s_lb_w[1] = {1000}, s_lb_m[1] = {64};
static const int64_t s_l2[3] = {8, 300, 7}, s_l2_y[1] = {300};
static const int64_t s_sn[2] = {300, 200}, s_sn_u[1] = {300}, s_sn_v[1] = {200}, s_one[1] = {1};
static const int64_t s_ap[4] = {2, 3, 31, 29}, s_ap_y[4] = {2, 3, 16, 15};
static const int64_t s_tk[4] = {1, 16, 3000, 1}, s_tk_w[2] = {1, 16}, s_tk_y[4] = {1, 16, 1, 100};

static void *filled(nkl_dtype dt, int64_t n, uint64_t seed) {
  void *p = malloc((size_t)(n * nkl_dtype_size(dt)));
  nkl_fill_normal(p, dt, n, seed, 1.0);
  return p;
}

static void setup(void) {
  g_x_rq = nkl_tensor_make(NKL_BF16, 2, s_rq, filled(NKL_BF16, 37 * 4099, 1));
  g_w_rq = nkl_tensor_make(NKL_BF16, 1, s_rq_w, filled(NKL_BF16, 4099, 2));
  g_calls[0].out_bytes[0] = 37 * 4099, g_calls[0].out_bytes[1] = 37 * 4;
  g_x_lb = nkl_tensor_make(NKL_F32, 2, s_lb, filled(NKL_F32, 64000, 3));
  g_dy_lb = nkl_tensor_make(NKL_F32, 2, s_lb, filled(NKL_F32, 64000, 4));
  g_w_lb = nkl_tensor_make(NKL_F32, 1, s_lb_w, filled(NKL_F32, 1000, 5));
  g_mu = nkl_tensor_make(NKL_F32, 1, s_lb_m, filled(NKL_F32, 64, 6));
  float *rs = filled(NKL_F32, 64, 7);
  for (int i = 0; i < 64; i++) rs[i] = 1.0f + rs[i] * rs[i];
  g_rs = nkl_tensor_make(NKL_F32, 1, s_lb_m, rs);
  g_calls[1].out_bytes[0] = 64000 * 4, g_calls[1].out_bytes[1] = 4000,
  g_calls[1].out_bytes[2] = 4000;
  g_x_l2 = nkl_tensor_make(NKL_F16, 3, s_l2, filled(NKL_F16, 8 * 300 * 7, 8));
  g_calls[2].out_bytes[0] = 300 * 2;
  g_w_sn = nkl_tensor_make(NKL_F32, 2, s_sn, filled(NKL_F32, 300 * 200, 9));
  g_u_sn = nkl_tensor_make(NKL_F32, 1, s_sn_u, filled(NKL_F32, 300, 10));
  g_calls[3].out_bytes[0] = 300 * 4, g_calls[3].out_bytes[1] = 200 * 4, g_calls[3].out_bytes[2] = 4;
  g_x_ap = nkl_tensor_make(NKL_BF16, 4, s_ap, filled(NKL_BF16, 2 * 3 * 31 * 29, 11));
  g_calls[4].out_bytes[0] = 2 * 3 * 16 * 15 * 2;
  g_sc = nkl_tensor_make(NKL_F32, 4, s_tk, filled(NKL_F32, 16 * 3000, 12));
  int32_t *st = malloc(16 * 4), *en = malloc(16 * 4);
  for (int i = 0; i < 16; i++)
    st[i] = 37 * i, en[i] = 3000 - 61 * i; /* window sizes 3000..1..: some < k */
  g_st = nkl_tensor_make(NKL_I32, 2, s_tk_w, st);
  g_en = nkl_tensor_make(NKL_I32, 2, s_tk_w, en);
  g_calls[5].out_bytes[0] = 16 * 100 * 4;
}

/* Call c into out[]; returns its status. */
static nkl_status run_call(int c, void *const *out) {
  switch (c) {
    case 0: {
      nkl_tensor q = nkl_tensor_make(NKL_FP8_E4M3, 2, s_rq, out[0]);
      nkl_tensor s = nkl_tensor_make(NKL_F32, 1, s_rq_s, out[1]);
      return nkl_rmsnorm_quant_fwd(&g_x_rq, &g_w_rq, 1e-6f, 1e-12f, &q, &s);
    }
    case 1: {
      nkl_tensor dx = nkl_tensor_make(NKL_F32, 2, s_lb, out[0]);
      nkl_tensor dw = nkl_tensor_make(NKL_F32, 1, s_lb_w, out[1]);
      nkl_tensor db = nkl_tensor_make(NKL_F32, 1, s_lb_w, out[2]);
      return nkl_layernorm_bwd(&g_x_lb, &g_dy_lb, &g_w_lb, &g_mu, &g_rs, &dx, &dw, &db);
    }
    case 2: {
      const int dims[2] = {0, 2};
      nkl_tensor y = nkl_tensor_make(NKL_F16, 1, s_l2_y, out[0]);
      return nkl_l2norm_fwd(&g_x_l2, dims, 2, &y);
    }
    case 3: {
      nkl_tensor u = nkl_tensor_make(NKL_F32, 1, s_sn_u, out[0]);
      nkl_tensor v = nkl_tensor_make(NKL_F32, 1, s_sn_v, out[1]);
      nkl_tensor s = nkl_tensor_make(NKL_F32, 1, s_one, out[2]);
      return nkl_spectral_norm_power_iter_fwd(&g_w_sn, &g_u_sn, 1e-12f, &u, &v, &s);
    }
    case 4: {
      const nkl_pool_params p = {.kernel_size = {3, 3},
                                 .stride = {2, 2},
                                 .padding = {1, 1},
                                 .dilation = {1, 1},
                                 .ceil_mode = 1,
                                 .count_include_pad = 0};
      nkl_tensor y = nkl_tensor_make(NKL_BF16, 4, s_ap_y, out[0]);
      return nkl_avgpool2d_fwd(&g_x_ap, &p, &y);
    }
    default: {
      nkl_tensor y = nkl_tensor_make(NKL_I32, 4, s_tk_y, out[0]);
      return nkl_topk_selector_fwd(&g_sc, &g_st, &g_en, 100, &y);
    }
  }
}

typedef struct {
  int id;
  int failures;
  char first[256];
} worker;

static void note(worker *w, const char *what) {
  if (!w->failures++) snprintf(w->first, sizeof w->first, "worker %d: %s", w->id, what);
}

static void *work(void *arg) {
  worker *w = arg;
  void *out[NCALL][3] = {{0}};
  for (int c = 0; c < NCALL; c++)
    for (int j = 0; j < 3; j++)
      if (g_calls[c].out_bytes[j]) out[c][j] = malloc(g_calls[c].out_bytes[j]);
  for (int r = 0; r < REPEATS; r++) {
    for (int k = 0; k < NCALL; k++) {
      const int c = (k + w->id + r) % NCALL; /* the workers run different calls at a time */
      for (int j = 0; j < 3; j++)
        if (out[c][j]) memset(out[c][j], 0x5A, g_calls[c].out_bytes[j]);
      if (run_call(c, out[c]) != NKL_OK) note(w, nkl_last_error());
      if (nkl_last_error()[0]) note(w, "message left after a successful call");
      for (int j = 0; j < 3; j++)
        if (out[c][j] && memcmp(out[c][j], g_calls[c].ref[j], g_calls[c].out_bytes[j]))
          note(w, "output differs from a lone call's");
    }
    /* an error of this thread's own: its message, untouched by the other workers' calls */
    nkl_tensor bad = g_x_lb;
    bad.dtype = (r + w->id) % 2 ? NKL_I32 : NKL_FP8_E4M3;
    nkl_tensor y = nkl_tensor_make(NKL_F32, 2, s_lb, out[1][0]);
    if (nkl_rmsnorm_fwd(&bad, NULL, 1e-6f, &y, NULL) != NKL_ERR_BAD_DTYPE)
      note(w, "bad dtype accepted");
    for (int spin = 0; spin < 3; spin++)
      (void)run_call((w->id + spin) % NCALL, out[(w->id + spin) % NCALL]);
    nkl_tensor bad2 = g_x_lb;
    bad2.dtype = (r + w->id) % 2 ? NKL_I32 : NKL_FP8_E4M3;
    if (nkl_rmsnorm_fwd(&bad2, NULL, 1e-6f, &y, NULL) != NKL_ERR_BAD_DTYPE ||
        !strstr(nkl_last_error(), (r + w->id) % 2 ? "x dtype i32" : "x dtype fp8e4m3"))
      note(w, nkl_last_error());
  }
  for (int c = 0; c < NCALL; c++)
    for (int j = 0; j < 3; j++) free(out[c][j]);
  return NULL;
}

static void test_concurrent_calls(void) {
  for (int c = 0; c < NCALL; c++) {
    for (int j = 0; j < 3; j++)
      if (g_calls[c].out_bytes[j]) g_calls[c].ref[j] = calloc(1, g_calls[c].out_bytes[j]);
    CHECK(run_call(c, g_calls[c].ref) == NKL_OK, "call %d alone: %s", c, nkl_last_error());
  }
  for (int wave = 0; wave < WAVES; wave++) {
    pthread_t t[WORKERS];
    worker w[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
      w[i] = (worker){.id = i};
      CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < WORKERS; i++) {
      pthread_join(t[i], NULL);
      CHECK(w[i].failures == 0, "wave %d: %d failures, first: %s", wave, w[i].failures, w[i].first);
    }
  }
}

/* Calls made inside the caller's own OpenMP parallel region (nested parallelism off, the
 * default): each runs on its thread alone and still returns a lone call's bits. */
static void test_inside_omp_region(void) {
  int failures = 0;
  char first[256] = "";
#pragma omp parallel num_threads(2) reduction(+ : failures)
  {
    worker w = {.id = 7};
    work(&w);
    failures += w.failures;
#pragma omp critical
    if (w.failures && !first[0]) snprintf(first, sizeof first, "%s", w.first);
  }
  CHECK(failures == 0, "%d failures inside an OpenMP parallel region, first: %s", failures, first);
}

int main(void) {
  setup();
  tu_run("concurrent_calls", test_concurrent_calls);
  tu_run("inside_omp_region", test_inside_omp_region);
  return tu_summary();
}
