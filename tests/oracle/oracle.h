/* Independent double-precision references ("oracles") for every operator, plus the data
 * helpers shared by the tests and `nkl check`. These are the simplest loops that state the
 * math of ../shared/spec/operators.md; they never call the library's kernels. */
#ifndef NKL_ORACLE_H
#define NKL_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "nkl.h"

/* ---- data helpers (util.c) ----------------------------------------------------------- */

/* Element i of a buffer of dtype dt, exactly, as a double; and the reverse (rounded to
 * nearest even by the library's scalar conversions). */
double nkl_get(const void *p, nkl_dtype dt, int64_t i);
void nkl_set(void *p, nkl_dtype dt, int64_t i, double v);

/* Seeded, reproducible standard-normal fill (splitmix64 + Box-Muller), times scale. */
void nkl_fill_normal(void *p, nkl_dtype dt, int64_t n, uint64_t seed, double scale);
void nkl_fill_uniform(void *p, nkl_dtype dt, int64_t n, uint64_t seed, double lo, double hi);
uint64_t nkl_rand_u64(uint64_t *state);

/* Machine epsilon (unit roundoff, half an ulp at 1) of a storage type: 2^-24 f32, 2^-11
 * f16, 2^-8 bf16, 2^-4 fp8. */
double nkl_unit_roundoff(nkl_dtype dt);
/* Smallest positive subnormal (the absolute rounding step near zero) of a storage type. */
double nkl_denorm_min(nkl_dtype dt);

/* ---- comparison ---------------------------------------------------------------------- */

/* got vs ref with tolerance tol: NaN must match NaN, an infinity must match itself, and
 * otherwise |got - ref| <= tol. Records the worst element by err/tol. */
typedef struct nkl_cmp {
  int64_t checked, bad;
  double max_err;    /* largest |got - ref| over finite pairs */
  double max_ratio;  /* largest |got - ref| / tol */
  double worst_tol;  /* the tolerance at the worst element */
  int64_t worst;     /* index of the worst element (-1 if none) */
  double worst_got, worst_ref;
} nkl_cmp;

void nkl_cmp_init(nkl_cmp *c);
bool nkl_cmp_add(nkl_cmp *c, double got, double ref, double tol, int64_t index);
void nkl_cmp_merge(nkl_cmp *into, const nkl_cmp *from);

/* ---- row norms (rownorm.c) ----------------------------------------------------------- */

/* One row of n values: y = x * rsqrt(mean(x^2) + eps) * w; returns rstd. w may be NULL. */
double oracle_rmsnorm_row(const double *x, int64_t n, const double *w, double eps, double *y);
/* One row: y = (x - mean) / sqrt(var + eps) * w + b (biased var); returns rstd, sets *mean.
 * w and b may be NULL. */
double oracle_layernorm_row(const double *x, int64_t n, const double *w, const double *b,
                            double eps, double *y, double *mean);

/* Tolerance of a row-norm output element: rounding of the output dtype plus the error of
 * f32 sums over n terms (16 lane partial sums, n/16 terms each) carried through x - mean,
 * rstd and the affine. xhat_scale = (|x| + |mean|) * rstd + 1. */
double rownorm_tolerance(nkl_dtype out, int64_t n, double ref, double xhat_scale, double w,
                         double b);

/* ---- pooling (pool.c) ---------------------------------------------------------------- */

/* One pooling problem over up to three spatial axes (unused leading axes: in = out = k = s =
 * d = 1, p = 0), PyTorch semantics. */
typedef struct oracle_pool {
  int nsp;                  /* 1, 2 or 3 spatial axes, stored in [0, nsp) */
  bool avg, adaptive;
  int64_t in[3], out[3];    /* out: from oracle_pool_out_size, or chosen (adaptive) */
  int64_t k[3], s[3], p[3], d[3];
  bool ceil_mode, count_include_pad;
  int64_t divisor_override; /* 0: none */
} oracle_pool;

/* PyTorch's pooling_output_shape (may return < 1 for an input that is too small). */
int64_t oracle_pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode);
/* One (n, c) plane: x holds prod(in) values, y gets prod(out); mag (optional) gets, per
 * output, sum|x| over the window / divisor (avg) for the tolerance. */
void oracle_pool_plane(const oracle_pool *q, const double *x, double *y, double *mag);
/* Tolerance of an output: max pools are exact (0); averages allow the output rounding plus
 * f32 summation error over the window. */
double oracle_pool_tolerance(const oracle_pool *q, nkl_dtype out, double ref, double mag);

/* ---- top-k selector (topk.c) --------------------------------------------------------- */

/* One row by sorting: x[j * stride] for j in [start, end) ∩ [0, s_kv), ordered by
 * descending score (NaN first, -0 == +0), ties by ascending j; out[0..k) = the first k
 * positions, -1 past the window's size. */
void oracle_topk_row(const float *x, int64_t stride, int64_t s_kv, int64_t start, int64_t end,
                     int64_t k, int32_t *out);
/* Checks a result in one pass without sorting: positions inside the window, distinct, in
 * that order, -1 exactly in the slots past the window's size, and no unselected position
 * that would rank before the last selected one. mark: s_kv zeroed bytes (left zeroed).
 * Returns true if correct, else false with a message. */
bool oracle_topk_verify_row(const float *x, int64_t stride, int64_t s_kv, int64_t start,
                            int64_t end, int64_t k, const int32_t *got, uint8_t *mark,
                            char *msg, size_t len);

#endif
