/* Oracle of the RMSNorm / LayerNorm backward: plain double-precision loops over one row,
 * given the forward's statistics. */
#include <math.h>

#include "oracle/oracle.h"

void oracle_rownorm_bwd_row(const double *x, const double *dy, const double *w, int64_t n,
                            double mean, double rstd, bool ln, double *dx, double *dw, double *db,
                            double *tol_scale) {
  double sgz = 0.0, sg = 0.0, agz = 0.0, ag = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double z = (x[i] - mean) * rstd, g = dy[i] * (w ? w[i] : 1.0);
    sgz += g * z, sg += g, agz += fabs(g * z), ag += fabs(g);
  }
  const double c1 = sgz / (double)n, c2 = ln ? sg / (double)n : 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double z = (x[i] - mean) * rstd, g = dy[i] * (w ? w[i] : 1.0);
    dx[i] = rstd * (g - z * c1 - c2);
    /* magnitude of the terms whose f32 rounding the kernel's dx carries */
    if (tol_scale)
      tol_scale[i] =
          rstd * (fabs(g) + fabs(z) * (fabs(c1) + agz / (double)n) + (ln ? ag / (double)n : 0.0));
    if (dw) dw[i] += dy[i] * z;
    if (db) db[i] += dy[i];
  }
}
