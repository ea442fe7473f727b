/* The fp8 e4m3 encoders of the quantized norms against the independent oracle: the public
 * scalar conversion and every ISA's vector encoder over every bf16 and f16 value (and those
 * scaled into the e4m3 subnormal range), the encoder for lanes known finite, and the code
 * pass's division-free quotient encoder next to every step between codes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#if defined(__x86_64__)
void f32_fp8e4m3_encode__scalar(const float *src, uint8_t *dst, int64_t n);
void f32_fp8e4m3_encode__avx2(const float *src, uint8_t *dst, int64_t n);
void f32_fp8e4m3_encode__avx512(const float *src, uint8_t *dst, int64_t n);
void f32_fp8e4m3_encode_finite__scalar(const float *src, uint8_t *dst, int64_t n);
void f32_fp8e4m3_encode_finite__avx2(const float *src, uint8_t *dst, int64_t n);
void f32_fp8e4m3_encode_finite__avx512(const float *src, uint8_t *dst, int64_t n);
int64_t f32_fp8e4m3_encode_quot__scalar(const float *xy, float post, float s, uint8_t *dst,
                                        int64_t n);
int64_t f32_fp8e4m3_encode_quot__avx2(const float *xy, float post, float s, uint8_t *dst,
                                      int64_t n);
int64_t f32_fp8e4m3_encode_quot__avx512(const float *xy, float post, float s, uint8_t *dst,
                                        int64_t n);
#endif

#if defined(__x86_64__)
/* Runs one ISA's vector encoder over v[0..n) into got (first filled with 0xCC) and checks
 * every code against want; the first five mismatches are reported. */
static void check_encoder(void (*enc)(const float *, uint8_t *, int64_t), const char *what,
                          nkl_isa isa, const float *v, const uint8_t *want, int64_t n,
                          uint8_t *got) {
  memset(got, 0xCC, (size_t)n);
  enc(v, got, n);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (got[i] != want[i] && bad++ < 5)
      CHECK(false, "%s %s(%a) = %02x, oracle %02x", nkl_isa_name(isa), what, v[i], got[i], want[i]);
}
#endif

/* Every bf16 and every f16 value (as f32), plus each of them scaled into the e4m3
 * subnormal range, through every ISA's vector encoder and the public scalar conversion:
 * each code must be the independent oracle's (saturation, ties to even, subnormals, NaN). */
static void test_fp8_encode_exhaustive(void) {
  const int64_t total = 4 * 65536;
  float *v = malloc((size_t)total * 4);
  uint8_t *got = malloc((size_t)total);
  for (int64_t i = 0; i < 65536; i++) {
    v[i] = nkl_bf16_to_f32((uint16_t)i);
    v[65536 + i] = nkl_f16_to_f32((uint16_t)i);
    v[2 * 65536 + i] = v[65536 + i] * 0x1p-10f; /* f16 grid scaled under 2^-6 */
    v[3 * 65536 + i] = v[65536 + i] * 0x1p-4f;
  }
  uint8_t *want = malloc((size_t)total);
  for (int64_t i = 0; i < total; i++) want[i] = oracle_e4m3_encode(v[i]);
  int64_t bad = 0;
  for (int64_t i = 0; i < total; i++)
    if (nkl_f32_to_fp8e4m3(v[i]) != want[i] && bad++ < 5)
      CHECK(false, "nkl_f32_to_fp8e4m3(%a) = %02x, oracle %02x", v[i], nkl_f32_to_fp8e4m3(v[i]),
            want[i]);
#if defined(__x86_64__)
  void (*const enc[3])(const float *, uint8_t *, int64_t) = {
      f32_fp8e4m3_encode__scalar, f32_fp8e4m3_encode__avx2, f32_fp8e4m3_encode__avx512};
  for (int k = 0; k <= (int)nkl_cpu_isa() && k < 3; k++)
    check_encoder(enc[k], "encoder", (nkl_isa)k, v, want, total, got);
  /* the encoder for lanes known finite with |v| < 464 (the quantized norms' common case),
   * on every such value of the set */
  void (*const encf[3])(const float *, uint8_t *, int64_t) = {f32_fp8e4m3_encode_finite__scalar,
                                                              f32_fp8e4m3_encode_finite__avx2,
                                                              f32_fp8e4m3_encode_finite__avx512};
  float *fv = malloc((size_t)total * 4);
  uint8_t *fwant = malloc((size_t)total);
  int64_t nf = 0;
  for (int64_t i = 0; i < total; i++)
    if (isfinite(v[i]) && fabsf(v[i]) < 464.0f) fv[nf] = v[i], fwant[nf++] = want[i];
  CHECK(nf > 100000, "only %lld finite values under 464", (long long)nf);
  for (int k = 0; k <= (int)nkl_cpu_isa() && k < 3; k++)
    check_encoder(encf[k], "finite encoder", (nkl_isa)k, fv, fwant, nf, got);
  free(fv), free(fwant);
#endif
  free(v), free(got), free(want);
}

/* The code pass encodes y / s without dividing where that gives the same code (AVX-512,
 * vf_store_e4m3_quot_x4), with RMSNormQuant's y = RN(xy * post) folded into the reciprocal:
 * checked against RN(RN(xy * post) / s) and the oracle's encoder on quotients within 12
 * ulps of every step between e4m3 codes (the midpoints, subnormal ones included) and on
 * random ones, for scales across the exponent range and several post factors (1 is
 * LayerNormQuant's pass). Two cases must take the unfolded reciprocal: scales below 2^-120,
 * where y can be subnormal with a normal code, and 0x1.fffffep+9 / 0x1.1p-120, which
 * overflows the folded one. The near-step lanes are spread
 * among random ones, so groups take both paths; the division-free path must take most
 * groups of the random set (it is not just declining everything). */
static void test_fp8_encode_quotient(void) {
  enum { MAXN = 1 << 16 };
  float *xy = malloc(MAXN * sizeof(float));
  uint8_t *want = malloc(MAXN), *got = malloc(MAXN);
  /* the steps: midpoints between adjacent non-negative e4m3 values */
  float mid[128];
  int nmid = 0;
  for (int c = 0; c < 0x7E; c++)
    mid[nmid++] = 0.5f * (oracle_e4m3_decode((uint8_t)c) + oracle_e4m3_decode((uint8_t)(c + 1)));
  const float scales[] = {1.0f,           0x1.8p-126f, 0x1.234568p-20f, 0x1.fffffep-3f,
                          0x1.6a09e6p+0f, 0x1.3p+7f,   0x1.c71c72p+17f, 0x1.5555p-9f,
                          3.14159274f,    0x1.1p-120f, 0x1p-126f};
  /* 0.75 / 2^-126 folds to a normal reciprocal, but y = RN(xy * 0.75) is subnormal for
   * quotients below 4: e.g. xy = 185686 * 2^-149 gives y / s = 17 * 2^-10 exactly (a tie
   * between codes 8 and 9, so 8) where the folded quotient is 32 ulps above it (9). */
  const float posts[] = {1.0f, 0x1.6a09e6p-3f, 37.25f, 0x1.fffffep+9f, 0.75f};
  uint64_t st = 0x9E3779B97F4A7C15ull;
  for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++)
    for (size_t pi = 0; pi < sizeof posts / sizeof posts[0]; pi++) {
      const float sc = scales[si], post = posts[pi];
      int64_t n = 0, nrand = 0;
      for (int m = 0; m < nmid; m++)
        for (int d = -12; d <= 12; d++) {
          /* q = the midpoint moved d ulps; xy = RN(q * s / post), then moved -1, 0, +1 ulp */
          float q = mid[m];
          for (int k = 0; k < (d < 0 ? -d : d); k++) q = nextafterf(q, d < 0 ? 0.0f : 1e9f);
          const float x0 = (float)((double)q * sc / post);
          for (int e = -1; e <= 1 && n + 4 < MAXN; e++) {
            const float xx = e ? nextafterf(x0, e < 0 ? 0.0f : 1e30f) : x0;
            if (!((xx * post) / sc <= 448.0f * (1.0f + 0x1p-22f))) continue;
            xy[n] = (n & 1) ? -xx : xx;
            n++;
            /* three random lanes in [-448 s, 448 s] / post after each constructed one */
            for (int r = 0; r < 3; r++) {
              st = st * 6364136223846793005ull + 1442695040888963407ull;
              xy[n++] = (float)(((double)(st >> 40) / 16777216.0 * 2.0 - 1.0) * 448.0 * sc / post);
            }
          }
        }
      /* then a block of random lanes only */
      for (; n < MAXN; n++, nrand++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        xy[n] = (float)(((double)(st >> 40) / 16777216.0 * 2.0 - 1.0) * 448.0 * sc / post);
      }
      for (int64_t i = 0; i < n; i++) {
        const float y = xy[i] * post; /* RN(xy * post), as the kernel's y */
        want[i] = oracle_e4m3_encode(y / sc);
      }
#if defined(__x86_64__)
      int64_t (*const enc[3])(const float *, float, float, uint8_t *, int64_t) = {
          f32_fp8e4m3_encode_quot__scalar, f32_fp8e4m3_encode_quot__avx2,
          f32_fp8e4m3_encode_quot__avx512};
      for (int k = 0; k <= (int)nkl_cpu_isa() && k < 3; k++) {
        memset(got, 0xCC, (size_t)n);
        const int64_t fast = enc[k](xy, post, sc, got, n);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++)
          if (got[i] != want[i] && bad++ < 5)
            CHECK(false, "%s quotient encoder(%a * %a / %a) = %02x, oracle %02x",
                  nkl_isa_name((nkl_isa)k), xy[i], post, sc, got[i], want[i]);
        /* AVX2 and AVX-512 have the division-free path: it must carry most of the random
         * groups */
        if (k == NKL_ISA_AVX2 || k == NKL_ISA_AVX512)
          CHECK(fast >= nrand / 64 * 9 / 10 && fast < n / 64,
                "scale %a post %a: %lld of %lld groups division-free (%lld random)", sc, post,
                (long long)fast, (long long)(n / 64), (long long)(nrand / 64));
      }
#endif
    }
  free(xy), free(want), free(got);
}

int main(void) {
  tu_run("fp8_encode_exhaustive_bf16_f16", test_fp8_encode_exhaustive);
  tu_run("fp8_encode_quotient", test_fp8_encode_quotient);
  return tu_summary();
}
