/* Oracle of one spectral-norm power iteration: plain double loops, plus error bounds of an
 * f32 implementation that sums W^T u over at most 32 row chunks and W v in 16 lanes. The
 * outputs are f32, so no storage rounding hides the sum errors: the bounds use the
 * probabilistic sqrt(k) growth of k rounded adds (Higham, "Accuracy and Stability",
 * 3.1) with a margin, not the worst-case k, which would be ~1000x looser here. */
#include <math.h>
#include <stdlib.h>

#include "oracle/oracle.h"

double oracle_spectral_power_iter(const void *w, nkl_dtype dt, int64_t O, int64_t I,
                                  const double *u, double eps, double *u_out, double *v_out,
                                  double *tol_u, double *tol_v, double *tol_sigma) {
  double *t = calloc((size_t)I, 8), *at = calloc((size_t)I, 8), *s = calloc((size_t)O, 8);
  for (int64_t o = 0; o < O; o++)
    for (int64_t j = 0; j < I; j++) {
      const double p = nkl_get(w, dt, o * I + j) * u[o];
      t[j] += p, at[j] += fabs(p);
    }
  double nt = 0.0;
  for (int64_t j = 0; j < I; j++) nt += t[j] * t[j];
  nt = fmax(sqrt(nt), eps);
  /* W^T u: chunks of up to O/32 sequential rows, then up to 32 chunks in order */
  const double gO = (3 * sqrt((double)(O / 32 + (O < 32 ? O : 32))) + 8.0) * 0x1p-24;
  const double gI = (3 * sqrt((double)I / 16.0) + 8.0) * 0x1p-24;
  const double gO16 = (3 * sqrt((double)O / 16.0) + 8.0) * 0x1p-24;
  for (int64_t j = 0; j < I; j++) {
    v_out[j] = t[j] / nt;
    tol_v[j] = 2 * gO * at[j] / nt + 4 * gI * fabs(v_out[j]) + 0x1p-23 * fabs(v_out[j]) + 1e-30;
  }
  double ns = 0.0;
  for (int64_t o = 0; o < O; o++) {
    double as = 0.0, prop = 0.0;
    for (int64_t j = 0; j < I; j++) {
      const double wj = nkl_get(w, dt, o * I + j);
      s[o] += wj * v_out[j], as += fabs(wj * v_out[j]), prop += fabs(wj) * tol_v[j];
    }
    tol_u[o] = 4 * gI * as + prop; /* absolute error bound of s[o], scaled below */
    ns += s[o] * s[o];
  }
  ns = sqrt(ns);
  const double d = fmax(ns, eps);
  double sigma = 0.0, es = 0.0;
  for (int64_t o = 0; o < O; o++) {
    u_out[o] = s[o] / d;
    sigma += u_out[o] * s[o];
    es += tol_u[o] * tol_u[o];
    tol_u[o] = tol_u[o] / d + 4 * gO16 * fabs(u_out[o]) + 0x1p-23 * fabs(u_out[o]) + 1e-30;
  }
  *tol_sigma = 4 * sqrt(es) + 4 * gO16 * fabs(sigma) + 1e-30;
  free(t), free(at), free(s);
  return sigma;
}
