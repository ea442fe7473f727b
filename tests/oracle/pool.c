/* Oracle of the pools: for each output, visit its window tap by tap in double precision,
 * exactly as PyTorch's CPU reference loops state it. */
#include <math.h>

#include "oracle/oracle.h"

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

int64_t oracle_pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                             bool ceil_mode) {
  int64_t o = floor_div(in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  return o;
}

/* Window of output o on axis a: taps start + t*step for t < n, and the avg counts. */
typedef struct {
  int64_t start, n, step, padded, valid;
} win;

static win window(const oracle_pool *q, int a, int64_t o) {
  win w;
  if (a >= q->nsp) return (win){0, 1, 1, 1, 1};
  if (q->adaptive) {
    w.start = (int64_t)floor((double)o * (double)q->in[a] / (double)q->out[a]);
    const int64_t end = (int64_t)ceil((double)(o + 1) * (double)q->in[a] / (double)q->out[a]);
    w.n = end - w.start, w.step = 1, w.padded = w.valid = w.n;
    return w;
  }
  w.start = o * q->s[a] - q->p[a];
  w.n = q->k[a];
  w.step = q->d[a];
  int64_t pend = w.start + q->k[a];
  if (pend > q->in[a] + q->p[a]) pend = q->in[a] + q->p[a];
  w.padded = pend - w.start;
  const int64_t lo = w.start < 0 ? 0 : w.start;
  const int64_t hi = w.start + q->k[a] < q->in[a] ? w.start + q->k[a] : q->in[a];
  w.valid = hi - lo;
  return w;
}

void oracle_pool_plane(const oracle_pool *q, const double *x, double *y, double *mag) {
  const int64_t I0 = q->nsp > 2 ? q->in[q->nsp - 3] : 1, I1 = q->nsp > 1 ? q->in[q->nsp - 2] : 1;
  const int64_t I2 = q->in[q->nsp - 1];
  (void)I0;
  const int64_t O0 = q->nsp > 2 ? q->out[0] : 1, O1 = q->nsp > 1 ? q->out[q->nsp - 2] : 1;
  const int64_t O2 = q->out[q->nsp - 1];
  const int a0 = q->nsp > 2 ? 0 : 9, a1 = q->nsp > 1 ? q->nsp - 2 : 9, a2 = q->nsp - 1;
  int64_t idx = 0;
  for (int64_t o0 = 0; o0 < O0; o0++)
    for (int64_t o1 = 0; o1 < O1; o1++)
      for (int64_t o2 = 0; o2 < O2; o2++, idx++) {
        const win w0 = window(q, a0, o0), w1 = window(q, a1, o1), w2 = window(q, a2, o2);
        double m = -INFINITY, sum = 0.0, abs_sum = 0.0;
        for (int64_t t0 = 0; t0 < w0.n; t0++) {
          const int64_t i0 = w0.start + t0 * w0.step;
          if (i0 < 0 || i0 >= (a0 == 9 ? 1 : q->in[a0])) continue;
          for (int64_t t1 = 0; t1 < w1.n; t1++) {
            const int64_t i1 = w1.start + t1 * w1.step;
            if (i1 < 0 || i1 >= (a1 == 9 ? 1 : q->in[a1])) continue;
            for (int64_t t2 = 0; t2 < w2.n; t2++) {
              const int64_t i2 = w2.start + t2 * w2.step;
              if (i2 < 0 || i2 >= I2) continue;
              const double v = x[(i0 * I1 + i1) * I2 + i2];
              if (v > m || isnan(v)) m = v;
              sum += v;
              abs_sum += fabs(v);
            }
          }
        }
        double div = (double)(q->count_include_pad ? w0.padded * w1.padded * w2.padded
                                                   : w0.valid * w1.valid * w2.valid);
        if (q->adaptive) div = (double)(w0.n * w1.n * w2.n);
        if (q->divisor_override) div = (double)q->divisor_override;
        y[idx] = q->avg ? sum / div : m;
        if (mag) mag[idx] = q->avg ? abs_sum / div : fabs(m);
      }
}

double oracle_pool_tolerance(const oracle_pool *q, nkl_dtype out, double ref, double mag) {
  if (!q->avg) return 0.0;
  int64_t taps = 1;
  for (int a = 0; a < q->nsp; a++) taps *= q->adaptive ? q->in[a] / q->out[a] + 2 : q->k[a];
  /* f32: one rounding per add (taps), the division, and the f32 -> out rounding */
  return nkl_unit_roundoff(out) * fabs(ref) + nkl_denorm_min(out) +
         (double)(taps + 4) * 0x1p-24 * mag;
}
