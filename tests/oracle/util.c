#include <math.h>
#include <string.h>

#include "oracle/oracle.h"

double nkl_get(const void *p, nkl_dtype dt, int64_t i) {
  switch (dt) {
    case NKL_F32: return ((const float *)p)[i];
    case NKL_F16: return nkl_f16_to_f32(((const uint16_t *)p)[i]);
    case NKL_BF16: return nkl_bf16_to_f32(((const uint16_t *)p)[i]);
    case NKL_FP8_E4M3: return nkl_fp8e4m3_to_f32(((const uint8_t *)p)[i]);
    case NKL_I8: return ((const int8_t *)p)[i];
    case NKL_I32: return ((const int32_t *)p)[i];
    default: return NAN;
  }
}

void nkl_set(void *p, nkl_dtype dt, int64_t i, double v) {
  switch (dt) {
    case NKL_F32: ((float *)p)[i] = (float)v; break;
    case NKL_F16: ((uint16_t *)p)[i] = nkl_f32_to_f16((float)v); break;
    case NKL_BF16: ((uint16_t *)p)[i] = nkl_f32_to_bf16((float)v); break;
    case NKL_FP8_E4M3: ((uint8_t *)p)[i] = nkl_f32_to_fp8e4m3((float)v); break;
    case NKL_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case NKL_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    default: break;
  }
}

uint64_t nkl_rand_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double unit(uint64_t *s) { return ((double)(nkl_rand_u64(s) >> 11) + 0.5) * 0x1p-53; }

void nkl_fill_normal(void *p, nkl_dtype dt, int64_t n, uint64_t seed, double scale) {
  uint64_t s = seed * 0x2545F4914F6CDD1Dull + 1;
  for (int64_t i = 0; i < n; i += 2) {
    const double r = sqrt(-2.0 * log(unit(&s))), t = 6.283185307179586 * unit(&s);
    nkl_set(p, dt, i, scale * r * cos(t));
    if (i + 1 < n) nkl_set(p, dt, i + 1, scale * r * sin(t));
  }
}

void nkl_fill_uniform(void *p, nkl_dtype dt, int64_t n, uint64_t seed, double lo, double hi) {
  uint64_t s = seed * 0x2545F4914F6CDD1Dull + 7;
  for (int64_t i = 0; i < n; i++) nkl_set(p, dt, i, lo + (hi - lo) * unit(&s));
}

double nkl_unit_roundoff(nkl_dtype dt) {
  switch (dt) {
    case NKL_F32: return 0x1p-24;
    case NKL_F16: return 0x1p-11;
    case NKL_BF16: return 0x1p-8;
    case NKL_FP8_E4M3: return 0x1p-4;
    default: return 0.0;
  }
}

double nkl_denorm_min(nkl_dtype dt) {
  switch (dt) {
    case NKL_F32: return 0x1p-149;
    case NKL_F16: return 0x1p-24;
    case NKL_BF16: return 0x1p-133;
    case NKL_FP8_E4M3: return 0x1p-9;
    default: return 0.0;
  }
}

void nkl_cmp_init(nkl_cmp *c) {
  memset(c, 0, sizeof *c);
  c->worst = -1;
}

bool nkl_cmp_add(nkl_cmp *c, double got, double ref, double tol, int64_t index) {
  c->checked++;
  bool ok;
  double err = 0.0, ratio = 0.0;
  if (isnan(ref) || isnan(got)) {
    ok = isnan(ref) && isnan(got);
    ratio = ok ? 0.0 : INFINITY;
  } else if (isinf(ref) || isinf(got)) {
    ok = got == ref;
    ratio = ok ? 0.0 : INFINITY;
  } else {
    err = fabs(got - ref);
    ok = err <= tol;
    ratio = tol > 0 ? err / tol : (err > 0 ? INFINITY : 0.0);
    if (err > c->max_err) c->max_err = err;
  }
  if (!ok) c->bad++;
  if (!c->has_worst || ratio > c->max_ratio) {
    c->has_worst = true;
    c->max_ratio = ratio;
    c->worst = index;
    c->worst_got = got;
    c->worst_ref = ref;
    c->worst_tol = tol;
  }
  return ok;
}

void nkl_cmp_merge(nkl_cmp *into, const nkl_cmp *from) {
  into->checked += from->checked;
  into->bad += from->bad;
  if (from->max_err > into->max_err) into->max_err = from->max_err;
  if (from->has_worst && (!into->has_worst || from->max_ratio > into->max_ratio)) {
    into->has_worst = true;
    into->max_ratio = from->max_ratio;
    into->worst = from->worst;
    into->worst_got = from->worst_got;
    into->worst_ref = from->worst_ref;
    into->worst_tol = from->worst_tol;
  }
}
