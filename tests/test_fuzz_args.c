/* Random arguments through the public entry points: pooling (every parameter, including
 * invalid ones), the row norms, their backward, L2 norm, weight norm and top-k. Tensors
 * get buffers of exactly their size (so AddressSanitizer sees any read past the inputs),
 * outputs guard bytes as well (so a write past them fails without a sanitizer too), shapes that are
 * often right and sometimes not, wrong dtypes, strides, ranks and NULLs. Whatever the status, a
 * call must return one of nkl's statuses, a message that starts with the status's name and then
 * names the function (empty on success), and, on error, leave its output untouched. The seeds are
 * fixed: a failure reproduces. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static uint64_t g_s;
static uint64_t rnd(void) {
  g_s ^= g_s << 13, g_s ^= g_s >> 7, g_s ^= g_s << 17;
  return g_s;
}
static int64_t rr(int64_t lo, int64_t hi) {
  return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}
static bool pct(int p) { return rr(0, 99) < p; }

static const nkl_dtype kDtypes[5] = {NKL_F32, NKL_F16, NKL_BF16, NKL_FP8_E4M3, NKL_I32};

/* A tensor over its own buffer of exactly its size, filled with random bytes; an output's
 * (guarded) has tu_alloc's guard bytes around it. */
typedef struct {
  nkl_tensor t;
  uint8_t *mem;
  size_t bytes;
  bool guarded;
} tens;
static tens make_g(nkl_dtype dt, int rank, const int64_t *shape, bool guarded) {
  tens a;
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= shape[d];
  a.bytes = (size_t)n * nkl_dtype_size(dt);
  a.guarded = guarded;
  a.mem = guarded ? tu_alloc(a.bytes) : malloc(a.bytes);
  for (size_t i = 0; i < a.bytes; i++) a.mem[i] = (uint8_t)rnd();
  a.t = nkl_tensor_make(dt, rank, shape, a.mem);
  return a;
}
static tens make(nkl_dtype dt, int rank, const int64_t *shape) {
  return make_g(dt, rank, shape, false);
}
/* Shape near base[0..rank) (base has at least one entry; ranks past it repeat its last),
 * sometimes another rank, extent or dtype, a broken stride. */
static tens make_near_g(nkl_dtype dt, int rank, const int64_t *base, bool guarded) {
  int64_t sh[NKL_MAX_RANK];
  const int r0 = rank;
  if (pct(4)) rank = (int)rr(0, 4);
  for (int d = 0; d < rank; d++) sh[d] = pct(4) ? rr(1, 9) : base[d < r0 ? d : r0 - 1];
  if (pct(4)) dt = kDtypes[rr(0, 4)];
  tens a = make_g(dt, rank, sh, guarded);
  if (rank > 0 && pct(3)) a.t.strides[rank - 1] = rr(0, 3);
  return a;
}
static tens make_near(nkl_dtype dt, int rank, const int64_t *base) {
  return make_near_g(dt, rank, base, false);
}
static tens make_out(nkl_dtype dt, int rank, const int64_t *base) {
  return make_near_g(dt, rank, base, true);
}
static void drop(tens *a) {
  if (a->guarded)
    tu_free(a->mem);
  else
    free(a->mem);
  a->mem = NULL;
}
static const nkl_tensor *in(tens *a) { return pct(1) ? NULL : &a->t; }
static nkl_tensor *out(tens *a) { return pct(1) ? NULL : &a->t; }

/* The status and message contract of one call; copy: the output's bytes before it. */
static void check_call(nkl_status st, const char *what, const tens *y, const uint8_t *copy) {
  CHECK(st >= NKL_OK && st <= NKL_ERR_INTERNAL, "%s: status %d", what, (int)st);
  const char *m = nkl_last_error();
  if (st == NKL_OK) {
    CHECK(m[0] == '\0', "%s: message after success: %s", what, m);
    return;
  }
  const char *name = nkl_status_name(st);
  const size_t k = strlen(name);
  CHECK(strncmp(m, name, k) == 0 && m[k] == ':' && strlen(m) > k + 4,
        "%s: message does not start with its status: %s", what, m);
  CHECK(strstr(m, what) != NULL, "%s: message does not name the function: %s", what, m);
  if (y && copy) CHECK(memcmp(y->mem, copy, y->bytes) == 0, "%s: output written on error", what);
}
/* The guard bytes of the outputs (checked after every call, whatever its status). */
static void check_guards(const char *what, const tens *const *outs, int n) {
  for (int i = 0; i < n; i++)
    CHECK(tu_guard_ok(outs[i]->mem), "%s: write past output %d's buffer", what, i);
}

static void test_pool_args(void) {
  g_s = 0x9E3779B97F4A7C15ull;
  static const char *const names[8] = {
      "maxpool1d_fwd", "maxpool2d_fwd", "maxpool3d_fwd",          "avgpool1d_fwd",
      "avgpool2d_fwd", "avgpool3d_fwd", "adaptive_avgpool2d_fwd", "adaptive_maxpool2d_fwd"};
  for (int it = 0; it < 20000; it++) {
    const int op = (int)rr(0, 7), nsp = op >= 6 ? 2 : op % 3 + 1;
    nkl_pool_params p;
    memset(&p, 0, sizeof p);
    int64_t xs[5], ys[5];
    xs[0] = ys[0] = rr(1, 3), xs[1] = ys[1] = rr(1, 5);
    for (int d = 0; d < 3; d++) {
      p.kernel_size[d] = pct(5) ? rr(-2, 0) : rr(1, 9);
      p.stride[d] = pct(5) ? rr(-2, 0) : rr(1, 5);
      p.padding[d] =
          pct(5) ? rr(-3, 12) : rr(0, p.kernel_size[d] / 2 > 0 ? p.kernel_size[d] / 2 : 0);
      p.dilation[d] = pct(5) ? rr(-1, 0) : rr(1, 3);
    }
    p.ceil_mode = (int)rr(0, 1), p.count_include_pad = (int)rr(0, 1);
    p.divisor_override = pct(20) ? rr(-3, 10) : 0;
    /* usually the rank the op takes, with the output size PyTorch gives */
    const int rank = pct(5) ? (int)rr(3, 5) : 2 + nsp;
    for (int d = 0; d < rank - 2; d++) {
      xs[2 + d] = rr(1, 40);
      int64_t o = rr(1, 12);
      if (op < 6 && d < 3 &&
          nkl_pool_output_size(xs[2 + d], p.kernel_size[d], p.stride[d], p.padding[d],
                               p.dilation[d], p.ceil_mode, &o) != NKL_OK)
        o = rr(1, 5);
      ys[2 + d] = pct(3) ? rr(1, 50) : o;
    }
    if (pct(3)) ys[1] = rr(1, 6);
    const nkl_dtype dt = pct(5) ? NKL_FP8_E4M3 : kDtypes[rr(0, 2)];
    tens x = make(dt, rank, xs), y = make_g(pct(3) ? kDtypes[rr(0, 3)] : dt, rank, ys, true);
    if (pct(3)) x.t.strides[rank - 1] = 2;
    if (pct(2)) y.t.strides[0] = 0;
    uint8_t *copy = malloc(y.bytes);
    memcpy(copy, y.mem, y.bytes);
    const nkl_pool_params *pp = pct(1) ? NULL : &p;
    nkl_status st;
    switch (op) {
      case 0: st = nkl_maxpool1d_fwd(in(&x), pp, out(&y)); break;
      case 1: st = nkl_maxpool2d_fwd(in(&x), pp, out(&y)); break;
      case 2: st = nkl_maxpool3d_fwd(in(&x), pp, out(&y)); break;
      case 3: st = nkl_avgpool1d_fwd(in(&x), pp, out(&y)); break;
      case 4: st = nkl_avgpool2d_fwd(in(&x), pp, out(&y)); break;
      case 5: st = nkl_avgpool3d_fwd(in(&x), pp, out(&y)); break;
      case 6: st = nkl_adaptive_avgpool2d_fwd(in(&x), out(&y)); break;
      default: st = nkl_adaptive_maxpool2d_fwd(in(&x), out(&y)); break;
    }
    check_call(st, names[op], &y, copy);
    const tens *outs[1] = {&y};
    check_guards(names[op], outs, 1);
    free(copy), drop(&x), drop(&y);
  }
}

static void test_norm_topk_args(void) {
  g_s = 0xD1B54A32D192ED03ull;
  for (int it = 0; it < 4000; it++) {
    const int64_t M = rr(1, 6), N = rr(1, 70);
    const nkl_dtype dt = kDtypes[rr(0, 2)];
    const int64_t xs[2] = {M, N}, vs[1] = {N}, ms[1] = {M};
    tens x = make_near(dt, 2, xs), y = make_out(dt, 2, xs), w = make_near(dt, 1, vs),
         b = make_near(dt, 1, vs), s1 = make_near(NKL_F32, 1, ms), s2 = make_near(NKL_F32, 1, ms),
         q = make_out(NKL_FP8_E4M3, 2, xs), dw = make_out(dt, 1, vs), dy = make_near(dt, 2, xs);
    const float eps = pct(5) ? -1.0f : 1e-5f;
    const int op = (int)rr(0, 6);
    uint8_t *copy = malloc(y.bytes + q.bytes + 1);
    memcpy(copy, y.mem, y.bytes);
    memcpy(copy + y.bytes, q.mem, q.bytes);
    nkl_status st;
    const char *name;
    tens *watched = &y;
    if (op == 0) {
      name = "rmsnorm_fwd";
      st =
          nkl_rmsnorm_fwd(in(&x), pct(15) ? NULL : in(&w), eps, out(&y), pct(50) ? NULL : out(&s1));
    } else if (op == 1) {
      name = "layernorm_fwd";
      st = nkl_layernorm_fwd(in(&x), pct(15) ? NULL : in(&w), pct(15) ? NULL : in(&b), eps, out(&y),
                             pct(50) ? NULL : out(&s1), pct(50) ? NULL : out(&s2));
    } else if (op == 2) {
      name = "rmsnorm_quant_fwd", watched = &q;
      memcpy(copy, q.mem, q.bytes);
      st = nkl_rmsnorm_quant_fwd(in(&x), pct(15) ? NULL : in(&w), eps, 1e-12f, out(&q), out(&s1));
    } else if (op == 3) {
      name = "layernorm_bwd";
      st = nkl_layernorm_bwd(in(&x), in(&dy), pct(15) ? NULL : in(&w), in(&s1), in(&s2), out(&y),
                             pct(15) ? NULL : out(&dw), NULL);
    } else if (op == 4) {
      name = "l2norm_fwd";
      const int dims[3] = {(int)rr(-3, 2), (int)rr(-3, 2), (int)rr(-3, 2)};
      st = nkl_l2norm_fwd(in(&x), pct(2) ? NULL : dims, (int)rr(0, 3), out(&y));
    } else if (op == 5) {
      name = "weightnorm_fwd";
      st = nkl_weightnorm_fwd(in(&x), in(&w), out(&y), pct(50) ? NULL : out(&s1));
    } else {
      name = "topk_selector_fwd";
      const int64_t k = rr(-1, N + 2), ss[4] = {1, M, N, 1}, se[2] = {1, M},
                    is[4] = {1, M, 1, k > 0 ? k : 1};
      tens sc = make_near(NKL_F32, 4, ss), lo = make_near(NKL_I32, 2, se),
           hi = make_near(NKL_I32, 2, se), ix = make_out(NKL_I32, 4, is);
      /* windows mostly inside [0, S_kv], some reversed or outside */
      for (int64_t i = 0; i < M && lo.t.dtype == NKL_I32 && lo.bytes >= (size_t)M * 4; i++)
        ((int32_t *)lo.mem)[i] = (int32_t)rr(-2, N);
      for (int64_t i = 0; i < M && hi.t.dtype == NKL_I32 && hi.bytes >= (size_t)M * 4; i++)
        ((int32_t *)hi.mem)[i] = (int32_t)rr(-1, N + 2);
      uint8_t *icopy = malloc(ix.bytes);
      memcpy(icopy, ix.mem, ix.bytes);
      st = nkl_topk_selector_fwd(in(&sc), in(&lo), in(&hi), k, out(&ix));
      check_call(st, name, &ix, icopy);
      const tens *outs[1] = {&ix};
      check_guards(name, outs, 1);
      free(icopy), drop(&sc), drop(&lo), drop(&hi), drop(&ix);
      watched = NULL;
    }
    if (watched) {
      check_call(st, name, watched, copy);
      const tens *outs[3] = {&y, &q, &dw};
      check_guards(name, outs, 3);
    }
    free(copy);
    drop(&x), drop(&y), drop(&w), drop(&b), drop(&s1), drop(&s2), drop(&q), drop(&dw), drop(&dy);
  }
}

int main(void) {
  tu_run("pool_random_arguments", test_pool_args);
  tu_run("norm_topk_random_arguments", test_norm_topk_args);
  return tu_summary();
}
