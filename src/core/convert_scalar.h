/* Exact scalar conversions between f32 and the storage types. These are the reference the
 * vector shims must match bit for bit (tests/test_convert.c checks all 2^16 / 2^8 codes).
 * All rounding is round-to-nearest-even; NaN stays NaN (quiet). */
#ifndef NKL_CORE_CONVERT_SCALAR_H
#define NKL_CORE_CONVERT_SCALAR_H

#include <stdint.h>
#include <string.h>

static inline uint32_t nkl__f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float nkl__bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* bf16 is the top half of an f32. */
static inline float nkl__bf16_to_f32(uint16_t v) { return nkl__bits_f32((uint32_t)v << 16); }

/* Round to nearest even on the 16 dropped bits: add 0x7FFF plus the lowest kept bit. NaN
 * is quietened instead (the add could carry a NaN payload into the infinity pattern). */
static inline uint16_t nkl__f32_to_bf16(float f) {
  const uint32_t u = nkl__f32_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x0040u);
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/* IEEE binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. */
static inline float nkl__f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  if (exp == 0x1F) return nkl__bits_f32(sign | 0x7F800000u | (man << 13) | (man ? 0x400000u : 0));
  if (exp != 0) return nkl__bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
  /* zero or subnormal: man * 2^-24, exact in f32 */
  const float mag = (float)man * 0x1p-24f;
  return sign ? -mag : mag;
}

static inline uint16_t nkl__f32_to_f16(float f) {
  const uint32_t u = nkl__f32_bits(f);
  const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x3FFu)); /* NaN */
  if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u); /* rounds to >= 65520: inf */
  if (a < 0x38800000u) {
    /* below 2^-14: subnormal result m * 2^-24. Adding 0.5 (ulp 2^-24 at that exponent)
     * lets the FPU do the round-to-nearest-even, then the low bits are the code. */
    const float t = nkl__bits_f32(a) + 0.5f;
    return (uint16_t)(sign | (uint16_t)(nkl__f32_bits(t) - 0x3F000000u));
  }
  /* normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to even */
  const uint32_t r = a + 0x0FFFu + ((a >> 13) & 1u) - (112u << 23);
  return (uint16_t)(sign | (r >> 13));
}

/* fp8 e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa; no inf; 0x7F/0xFF are NaN. */
static inline float nkl__fp8e4m3_to_f32(uint8_t v) {
  const uint32_t sign = (uint32_t)(v & 0x80u) << 24;
  const uint32_t exp = (v >> 3) & 0xFu, man = v & 7u;
  if (exp == 0xF && man == 7) return nkl__bits_f32(sign | 0x7FC00000u);
  if (exp != 0) return nkl__bits_f32(sign | ((exp + 120u) << 23) | (man << 20));
  const float mag = (float)man * 0x1p-9f;
  return sign ? -mag : mag;
}

/* Saturates |v| to 448 (inf included), rounds to nearest even, never emits a NaN code for
 * a non-NaN input. */
static inline uint8_t nkl__f32_to_fp8e4m3(float f) {
  const uint32_t u = nkl__f32_bits(f);
  const uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
  const uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return (uint8_t)(sign | 0x7Fu);
  if (a >= 0x43E00000u) return (uint8_t)(sign | 0x7Eu); /* >= 448 */
  if (a < 0x3C800000u) {
    /* below 2^-6: subnormal m * 2^-9 (m = 8 is the smallest normal, code 0x08). Adding
     * 2^14 (ulp 2^-9) rounds to nearest even in the FPU. */
    const float t = nkl__bits_f32(a) + 16384.0f;
    return (uint8_t)(sign | (uint8_t)(nkl__f32_bits(t) - 0x46800000u));
  }
  /* normal: round the 20 dropped bits to even, rebias 127 -> 7. 448..464 never gets here. */
  const uint32_t r = a + 0x7FFFFu + ((a >> 20) & 1u) - (120u << 23);
  return (uint8_t)(sign | (r >> 20));
}

/* Order keys of 16-bit floats (f16, bf16), for max reductions done on 16-bit integers (32
 * lanes per 512-bit register, one vpmaxsw per tap). key16 maps a float's bits to an int16
 * whose signed order is the numeric order with -0 below +0 and every NaN, of either sign,
 * above +inf: non-negative floats keep their bits, negative ones get their magnitude bits
 * complemented (a larger magnitude sorts lower), and all is shifted down by c = 0x7FFF - inf
 * (inf: the +inf bits, 0x7F80 bf16, 0x7C00 f16) modulo 2^16, so the negative NaNs, which
 * sort at the bottom before the shift, wrap around to the top. -inf maps to INT16_MIN.
 * unkey16 inverts it (bits in, bits out: a NaN keeps its payload and sign). */
static inline int nkl__key16_c(uint16_t inf_bits) { return 0x7FFF - inf_bits; }
static inline int16_t nkl__key16(uint16_t x, int c) {
  const uint16_t m = (x & 0x8000u) ? (uint16_t)(x ^ 0x7FFFu) : x;
  return (int16_t)(uint16_t)(m - (uint16_t)c);
}
static inline uint16_t nkl__unkey16(int16_t k, int c) {
  const uint16_t m = (uint16_t)((uint16_t)k + (uint16_t)c);
  return (m & 0x8000u) ? (uint16_t)(m ^ 0x7FFFu) : m;
}

#endif /* NKL_CORE_CONVERT_SCALAR_H */
