/* Oracles of the row norms: plain double-precision loops over one row. */
#include <math.h>

#include "oracle/oracle.h"

double oracle_rmsnorm_row(const double *x, int64_t n, const double *w, double eps, double *y) {
  double ss = 0.0;
  for (int64_t i = 0; i < n; i++) ss += x[i] * x[i];
  const double rstd = 1.0 / sqrt(ss / (double)n + eps);
  for (int64_t i = 0; i < n; i++) y[i] = x[i] * rstd * (w ? w[i] : 1.0);
  return rstd;
}

double oracle_layernorm_row(const double *x, int64_t n, const double *w, const double *b,
                            double eps, double *y, double *mean_out) {
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += x[i];
  const double mean = s / (double)n;
  double v = 0.0;
  for (int64_t i = 0; i < n; i++) v += (x[i] - mean) * (x[i] - mean);
  const double rstd = 1.0 / sqrt(v / (double)n + eps);
  for (int64_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd * (w ? w[i] : 1.0) + (b ? b[i] : 0.0);
  *mean_out = mean;
  return rstd;
}

double rownorm_tolerance(nkl_dtype out, int64_t n, double ref, double xhat_scale, double w,
                         double b) {
  /* f32 sums: n/16 sequential adds per lane plus the 4-level lane tree; a few more roundings
   * for the division, sqrt and the output products. */
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  return nkl_unit_roundoff(out) * fabs(ref) + nkl_denorm_min(out) +
         2.0 * gamma * (xhat_scale * fabs(w) + fabs(b));
}
