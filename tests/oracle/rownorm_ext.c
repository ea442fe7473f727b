/* Oracles of the row-norm variants (Gemma, fused add, quantized, weight norm) and an
 * independent fp8 e4m3 encoder: plain double-precision loops. AdaLN, group RMSNorm and
 * QK-norm need nothing new: they are oracle_layernorm_row / oracle_rmsnorm_row with a
 * per-row weight. */
#include <math.h>
#include <stdlib.h>

#include "oracle/oracle.h"

double oracle_gemma_rmsnorm_row(const double *x, int64_t n, const double *w, double eps,
                                double *y) {
  double ss = 0.0;
  for (int64_t i = 0; i < n; i++) ss += x[i] * x[i];
  const double rstd = 1.0 / sqrt(ss / (double)n + eps);
  for (int64_t i = 0; i < n; i++) y[i] = x[i] * rstd * (1.0 + w[i]);
  return rstd;
}

void oracle_fused_add_row(const double *x, const double *res, int64_t n, nkl_dtype dt, double *r) {
  /* the sum rounded to the storage type (exact in double for f16/bf16/f32 operands up to a
   * final rounding that matches f32 addition followed by the dtype rounding) */
  float t;
  for (int64_t i = 0; i < n; i++) {
    nkl_set(&t, NKL_F32, 0, x[i] + res[i]);
    unsigned char buf[8];
    nkl_set(buf, dt, 0, (double)t);
    r[i] = nkl_get(buf, dt, 0);
  }
}

/* Value of the e4m3 code c (sign, 4 exponent bits with bias 7, 3 mantissa bits). */
static double e4m3_value(int c) {
  const int e = (c >> 3) & 15, m = c & 7;
  const double mag = e == 0 ? m * ldexp(1.0, -9) : (1.0 + m / 8.0) * ldexp(1.0, e - 7);
  return (c & 0x80) ? -mag : mag;
}

uint8_t oracle_e4m3_encode(double v) {
  const int sign = signbit(v) ? 0x80 : 0;
  if (isnan(v)) return (uint8_t)(sign | 0x7F);
  const double a = fabs(v);
  if (a >= 448.0) return (uint8_t)(sign | 0x7E); /* saturate (infinities included) */
  if (a < 0x1p-6) /* subnormal grid k * 2^-9; rint rounds half to even; k = 8 is 2^-6 */
    return (uint8_t)(sign | (int)rint(a * 512.0));
  /* normal: a = 2^e * k / 8 with k in [8, 16); round k half to even (exact in double) */
  int e = ilogb(a);
  int k = (int)rint(ldexp(a, 3 - e));
  if (k == 16) k = 8, e++;
  if (e > 8 || (e == 8 && k > 15)) return (uint8_t)(sign | 0x7E);
  return (uint8_t)(sign | ((e + 7) << 3) | (k - 8));
}

double oracle_e4m3_decode(uint8_t c) {
  if ((c & 0x7F) == 0x7F) return NAN;
  return e4m3_value(c);
}

double oracle_quant_row(const double *y, int64_t n, double scale_floor, double *q) {
  double amax = 0.0;
  bool nan = false;
  for (int64_t i = 0; i < n; i++) {
    if (isnan(y[i])) nan = true;
    if (fabs(y[i]) > amax) amax = fabs(y[i]);
  }
  const double scale = nan ? NAN : fmax(amax, scale_floor) / 448.0;
  for (int64_t i = 0; i < n; i++) q[i] = oracle_e4m3_decode(oracle_e4m3_encode(y[i] / scale));
  return scale;
}

double oracle_weightnorm_row(const double *v, int64_t n, double g, double *out) {
  double ss = 0.0;
  for (int64_t i = 0; i < n; i++) ss += v[i] * v[i];
  const double norm = sqrt(ss);
  for (int64_t i = 0; i < n; i++) out[i] = v[i] * g / norm;
  return norm;
}

void oracle_check_quant_row(nkl_cmp *cmp, const double *yref, int64_t n, double y_tol,
                            double scale_floor, const uint8_t *q, float scale, int64_t index0) {
  double *qr = malloc((size_t)n * sizeof(double));
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  const double s = oracle_quant_row(yref, n, scale_floor, qr);
  const double s_tol = y_tol / 448.0 + 4 * gamma * fabs(s);
  nkl_cmp_add(cmp, scale, s, s_tol, -1);
  for (int64_t i = 0; i < n; i++) {
    /* the code must lie between the codes of v -+ t, t the error bound of y / scale */
    const double v = yref[i] / s, t = y_tol / s + fabs(v) * (s_tol / s + 0x1p-23);
    const double lo = oracle_e4m3_decode(oracle_e4m3_encode(v - t));
    const double hi = oracle_e4m3_decode(oracle_e4m3_encode(v + t));
    nkl_cmp_add(cmp, oracle_e4m3_decode(q[i]), qr[i], fmax(fabs(hi - qr[i]), fabs(qr[i] - lo)),
                index0 + i);
  }
  free(qr);
}
