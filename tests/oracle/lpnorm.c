/* Oracle of the L1 / L2 norms: plain double loops over x viewed as [A, B, C], B kept. */
#include <math.h>

#include "oracle/oracle.h"

void oracle_lpnorm(const void *x, nkl_dtype dt, int64_t A, int64_t B, int64_t C, int p,
                   double *out) {
  for (int64_t b = 0; b < B; b++) {
    double s = 0.0;
    for (int64_t a = 0; a < A; a++)
      for (int64_t c = 0; c < C; c++) {
        const double v = nkl_get(x, dt, (a * B + b) * C + c);
        s += p == 1 ? fabs(v) : v * v;
      }
    out[b] = p == 1 ? s : sqrt(s);
    /* a result beyond the output dtype's range is inf there (f16 sums of millions of
     * values overflow, as in PyTorch) */
    unsigned char buf[8];
    nkl_set(buf, dt, 0, out[b]);
    if (isinf(nkl_get(buf, dt, 0))) out[b] = nkl_get(buf, dt, 0);
  }
}

double lpnorm_tolerance(nkl_dtype out, int64_t A, int64_t C, double ref) {
  /* 16-lane sums over blocks of 4096 (256 adds per lane + the lane tree), then A * blocks
   * sequential adds of the block sums; sqrt halves the relative error of L2 */
  const int64_t blocks = A * ((C + 4095) / 4096);
  const double gamma = ((double)(C < 4096 ? C : 4096) / 16.0 + 8.0 + (double)blocks) * 0x1p-24;
  return nkl_unit_roundoff(out) * fabs(ref) + nkl_denorm_min(out) + 2 * gamma * fabs(ref);
}
