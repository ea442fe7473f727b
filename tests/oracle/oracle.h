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
  double max_err;   /* largest |got - ref| over finite pairs */
  double max_ratio; /* largest |got - ref| / tol */
  double worst_tol; /* the tolerance at the worst element */
  int64_t worst;    /* index of the worst element (-1: none, or a statistic) */
  bool has_worst;   /* a worst element has been recorded */
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

/* ---- row-norm variants (rownorm_ext.c) ----------------------------------------------- */

/* y = x * rsqrt(mean(x^2) + eps) * (1 + w); returns rstd. */
double oracle_gemma_rmsnorm_row(const double *x, int64_t n, const double *w, double eps, double *y);
/* r = x + res rounded to the storage type dt. */
void oracle_fused_add_row(const double *x, const double *res, int64_t n, nkl_dtype dt, double *r);
/* Independent e4m3 encoder (nearest of the finite codes, ties to even, saturating at 448,
 * NaN -> 0x7F with the sign) and decoder. */
uint8_t oracle_e4m3_encode(double v);
double oracle_e4m3_decode(uint8_t c);
/* Per-row quantization of y: scale = max(max|y|, floor) / 448 (NaN if any y is NaN); q =
 * the decoded e4m3 value of y / scale. Returns scale. */
double oracle_quant_row(const double *y, int64_t n, double scale_floor, double *q);
/* Checks one quantized row (codes q, scale) against oracle_quant_row(yref), y_tol bounding
 * the f32 error of the y the kernel quantized: scale within y_tol / 448 plus rounding, and
 * each code between the codes of (y -+ error) / scale. Element indices start at index0. */
void oracle_check_quant_row(nkl_cmp *cmp, const double *yref, int64_t n, double y_tol,
                            double scale_floor, const uint8_t *q, float scale, int64_t index0);
/* Weight norm of one row: out = v * g / ||v||; returns ||v||. */
double oracle_weightnorm_row(const double *v, int64_t n, double g, double *out);

/* ---- row-norm backward (rownorm_bwd.c) ----------------------------------------------- */

/* One row of the RMSNorm (ln = false, mean ignored) / LayerNorm backward given the
 * forward's mean and rstd: writes dx, adds dy * z to dw[] and dy to db[] (each may be
 * NULL), and, if tol_scale is not NULL, the magnitude of dx's rounded terms per element. */
void oracle_rownorm_bwd_row(const double *x, const double *dy, const double *w, int64_t n,
                            double mean, double rstd, bool ln, double *dx, double *dw, double *db,
                            double *tol_scale);

/* ---- L1 / L2 norms (lpnorm.c) --------------------------------------------------------- */

/* x (dtype dt, contiguous) viewed as [A, B, C]: out[b] = sum over a, c of |x| (p = 1) or
 * sqrt(sum x^2) (p = 2); +inf where that exceeds dt's range (the output has x's dtype). */
void oracle_lpnorm(const void *x, nkl_dtype dt, int64_t A, int64_t B, int64_t C, int p,
                   double *out);
/* Tolerance of one L1/L2 output of magnitude ref (all terms are non-negative, so the f32
 * sum error is relative to the result). */
double lpnorm_tolerance(nkl_dtype out, int64_t A, int64_t C, double ref);

/* ---- spectral norm (spectral.c) ---------------------------------------------------------- */

/* One power iteration over w [O, I] (dtype dt) from u [O]: v_out = normalize(w^T u),
 * u_out = normalize(w v_out), returns sigma = u_out . (w v_out); normalize(a) =
 * a / max(||a||, eps). Also per-element absolute tolerances for an f32 implementation. */
double oracle_spectral_power_iter(const void *w, nkl_dtype dt, int64_t O, int64_t I,
                                  const double *u, double eps, double *u_out, double *v_out,
                                  double *tol_u, double *tol_v, double *tol_sigma);
/* ---- pooling (pool.c) ---------------------------------------------------------------- */

/* One pooling problem over up to three spatial axes (unused leading axes: in = out = k = s =
 * d = 1, p = 0), PyTorch semantics. */
typedef struct oracle_pool {
  int nsp; /* 1, 2 or 3 spatial axes, stored in [0, nsp) */
  bool avg, adaptive;
  int64_t in[3], out[3]; /* out: from oracle_pool_out_size, or chosen (adaptive) */
  int64_t k[3], s[3], p[3], d[3];
  bool ceil_mode, count_include_pad;
  int64_t divisor_override; /* 0: none */
} oracle_pool;

/* PyTorch's pooling_output_shape (may return < 1 for an input that is too small). */
int64_t oracle_pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                             bool ceil_mode);
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
                            int64_t end, int64_t k, const int32_t *got, uint8_t *mark, char *msg,
                            size_t len);

#endif
