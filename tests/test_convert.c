/* Dtype conversions: the scalar conversions against independent decoders/encoders written
 * from the format definitions (exhaustive over every 16-bit and 8-bit code), and the
 * vectorised nkl_convert against the scalar ones on every ISA. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Independent decode: sign, exponent field of `eb` bits with bias, mantissa of `mb` bits. */
static double decode(uint32_t code, int eb, int mb, int bias, bool has_inf) {
  const uint32_t sign = code >> (eb + mb), e = (code >> mb) & ((1u << eb) - 1),
                 m = code & ((1u << mb) - 1);
  double v;
  if (e == (1u << eb) - 1 && has_inf)
    v = m ? NAN : INFINITY;
  else if (!has_inf && e == (1u << eb) - 1 && m == (1u << mb) - 1)
    v = NAN; /* e4m3fn */
  else if (e == 0)
    v = ldexp((double)m, 1 - bias - mb);
  else
    v = ldexp((double)((1u << mb) + m), (int)e - bias - mb);
  return sign ? -v : v;
}

/* Independent encode: the nearest finite magnitude code (codes of one sign increase with
 * the value, so a binary search over the decoded codes finds the neighbours), ties to the
 * even code; past the largest finite value plus half an ulp, infinity (f16, bf16). */
static uint32_t encode_ref(double v, int eb, int mb, int bias, bool has_inf) {
  const int bits = 1 + eb + mb;
  const uint32_t sign = (v < 0 || (v == 0 && signbit(v))) ? 1u << (bits - 1) : 0;
  const double a = fabs(v);
  /* finite magnitude codes: 0 .. top */
  const uint32_t top =
      has_inf ? ((((1u << eb) - 1) << mb) - 1) : ((((1u << eb) - 1) << mb) | ((1u << mb) - 2));
  const double maxf = decode(top, eb, mb, bias, has_inf);
  if (has_inf) {
    const double half_ulp = ldexp(1.0, (1 << eb) - 2 - bias - mb - 1);
    if (a >= maxf + half_ulp) return sign | (((1u << eb) - 1) << mb);
  }
  if (a >= maxf) return sign | top;
  uint32_t lo = 0, hi = top; /* decode(lo) <= a < decode(hi) */
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (decode(mid, eb, mb, bias, has_inf) <= a)
      lo = mid;
    else
      hi = mid;
  }
  const double dl = a - decode(lo, eb, mb, bias, has_inf),
               dh = decode(hi, eb, mb, bias, has_inf) - a;
  return sign | (dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi));
}

static void test_decode_exhaustive(void) {
  for (uint32_t c = 0; c < 65536; c++) {
    const double bf = decode(c, 8, 7, 127, true), h = decode(c, 5, 10, 15, true);
    const double gbf = nkl_bf16_to_f32((uint16_t)c), gh = nkl_f16_to_f32((uint16_t)c);
    CHECK((isnan(bf) && isnan(gbf)) || bf == gbf, "bf16 %04x: %g vs %g", c, gbf, bf);
    CHECK((isnan(h) && isnan(gh)) || h == gh, "f16 %04x: %g vs %g", c, gh, h);
  }
  for (uint32_t c = 0; c < 256; c++) {
    const double r = decode(c, 4, 3, 7, false), g = nkl_fp8e4m3_to_f32((uint8_t)c);
    CHECK((isnan(r) && isnan(g)) || r == g, "fp8 %02x: %g vs %g", c, g, r);
  }
}

/* fp8 encoding of every bf16 and every f16 value (the spec's exhaustive check). */
static void test_fp8_encode_exhaustive(void) {
  for (int fmt = 0; fmt < 2; fmt++)
    for (uint32_t c = 0; c < 65536; c++) {
      const float v = fmt ? nkl_f16_to_f32((uint16_t)c) : nkl_bf16_to_f32((uint16_t)c);
      const uint8_t got = nkl_f32_to_fp8e4m3(v);
      if (isnan(v)) {
        CHECK((got & 0x7F) == 0x7F, "fp8(NaN) = %02x", got);
        continue;
      }
      /* saturation: |v| >= 448 (inf included) -> 448 */
      const uint32_t want =
          fabs((double)v) >= 448.0 ? (signbit(v) ? 0xFEu : 0x7Eu) : encode_ref(v, 4, 3, 7, false);
      CHECK(got == want, "fp8(%s %04x = %g) = %02x, want %02x", fmt ? "f16" : "bf16", c, (double)v,
            got, want);
      CHECK((got & 0x7F) != 0x7F, "fp8(%g) emitted a NaN code", (double)v);
    }
}

/* f32 -> bf16 / f16 on values that exercise ties, subnormals, overflow and NaN. */
static void test_encode_f32(void) {
  uint64_t s = 42;
  for (int i = 0; i < 200000; i++) {
    uint32_t u = (uint32_t)nkl_rand_u64(&s);
    if (i % 3 == 0) u &= 0xFFFF8000u | (1u << 15);                            /* bf16 ties */
    if (i % 5 == 0) u = (u & 0x80000000u) | ((u % 0x1000000u) + 0x33000000u); /* f16 subnormals */
    float v;
    memcpy(&v, &u, 4);
    const uint16_t b = nkl_f32_to_bf16(v), h = nkl_f32_to_f16(v);
    if (isnan(v)) {
      CHECK(isnan(nkl_bf16_to_f32(b)) && isnan(nkl_f16_to_f32(h)), "NaN lost for %08x", u);
      continue;
    }
    CHECK(b == encode_ref(v, 8, 7, 127, true), "bf16(%08x) = %04x want %04x", u, b,
          encode_ref(v, 8, 7, 127, true));
    CHECK(h == encode_ref(v, 5, 10, 15, true), "f16(%08x = %g) = %04x want %04x", u, (double)v, h,
          encode_ref(v, 5, 10, 15, true));
  }
}

/* nkl_convert on every ISA equals the scalar conversions bit for bit, at many lengths. */
static void test_convert_all_isas(void) {
  const nkl_dtype types[] = {NKL_F32, NKL_F16, NKL_BF16, NKL_FP8_E4M3};
  const int64_t lens[] = {1, 7, 15, 16, 17, 33, 100, 4099};
  nkl_isa isas[NKL_ISA_COUNT];
  const int nisa = tu_isas(isas);
  for (int k = 0; k < nisa; k++) {
    nkl_set_max_isa(isas[k]);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++)
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
          const int64_t n = lens[l];
          float *f = tu_alloc((size_t)n * 4);
          void *src = tu_alloc((size_t)n * 4), *dst = tu_alloc((size_t)n * 4);
          nkl_fill_normal(f, NKL_F32, n, (uint64_t)(n + a), 100.0);
          if (n > 3) f[1] = NAN, f[2] = INFINITY, f[3] = -1e-7f;
          /* f32 subnormals (bf16 keeps them; vcvtneps2bf16 alone would flush them) */
          for (int64_t i = 4; i < n; i += 5)
            f[i] = (i % 2 ? -1.0f : 1.0f) * 1e-39f * (float)(i % 11);
          for (int64_t i = 0; i < n; i++) nkl_set(src, types[a], i, f[i]);
          nkl_tensor ts = nkl_tensor_make(types[a], 1, &n, src);
          nkl_tensor td = nkl_tensor_make(types[b], 1, &n, dst);
          CHECK_STATUS(nkl_convert(&ts, &td), NKL_OK);
          for (int64_t i = 0; i < n; i++) {
            double want = nkl_get(src, types[a], i);
            unsigned char one[4];
            nkl_set(one, types[b], 0, want);
            const double w = nkl_get(one, types[b], 0), g = nkl_get(dst, types[b], i);
            CHECK((isnan(w) && isnan(g)) || w == g, "%s %s->%s n=%lld i=%lld: %g vs %g",
                  nkl_isa_name(isas[k]), nkl_dtype_name(types[a]), nkl_dtype_name(types[b]),
                  (long long)n, (long long)i, g, w);
          }
          CHECK(tu_guard_ok(dst), "convert wrote out of bounds");
          tu_free(f);
          tu_free(src);
          tu_free(dst);
        }
  }
}

static void test_convert_bad_input(void) {
  int64_t n = 4, m = 5;
  float a[8] = {0};
  uint16_t b[8] = {0};
  nkl_tensor ts = nkl_tensor_make(NKL_F32, 1, &n, a), td = nkl_tensor_make(NKL_BF16, 1, &n, b);
  CHECK_STATUS(nkl_convert(NULL, &td), NKL_ERR_NULL_POINTER);
  nkl_tensor bad = td;
  bad.shape[0] = m;
  CHECK_STATUS(nkl_convert(&ts, &bad), NKL_ERR_BAD_SHAPE);
  bad = td;
  bad.dtype = NKL_I32;
  CHECK_STATUS(nkl_convert(&ts, &bad), NKL_ERR_BAD_DTYPE);
  bad = td;
  bad.data = NULL;
  CHECK_STATUS(nkl_convert(&ts, &bad), NKL_ERR_NULL_POINTER);
  CHECK(strstr(nkl_last_error(), "dst") != NULL, "message names the argument: %s",
        nkl_last_error());
}

int main(void) {
  tu_run("decode_exhaustive", test_decode_exhaustive);
  tu_run("fp8_encode_exhaustive_bf16_f16", test_fp8_encode_exhaustive);
  tu_run("encode_f32_to_bf16_f16", test_encode_f32);
  tu_run("convert_all_isas", test_convert_all_isas);
  tu_run("convert_bad_input", test_convert_bad_input);
  return tu_summary();
}
