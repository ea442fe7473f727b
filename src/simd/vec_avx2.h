/* AVX2 + FMA + F16C shim: the 16-lane logical vector is two ymm registers (lo = lanes
 * 0..7, hi = lanes 8..15). Same lane semantics as vec_scalar.h. */
#ifndef NKL_VEC_AVX2_H
#define NKL_VEC_AVX2_H

#include <immintrin.h>

#include "core/convert_scalar.h"

#define NKL_ISA_SUFFIX avx2
#define VF_LANES 16

typedef struct {
  __m256 lo, hi;
} vf;

static inline vf vf_make(__m256 lo, __m256 hi) {
  vf r = {lo, hi};
  return r;
}
static inline vf vf_set1(float x) { return vf_make(_mm256_set1_ps(x), _mm256_set1_ps(x)); }
static inline vf vf_zero(void) { return vf_make(_mm256_setzero_ps(), _mm256_setzero_ps()); }
static inline vf vf_add(vf a, vf b) {
  return vf_make(_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi));
}
static inline vf vf_sub(vf a, vf b) {
  return vf_make(_mm256_sub_ps(a.lo, b.lo), _mm256_sub_ps(a.hi, b.hi));
}
static inline vf vf_mul(vf a, vf b) {
  return vf_make(_mm256_mul_ps(a.lo, b.lo), _mm256_mul_ps(a.hi, b.hi));
}
static inline vf vf_div(vf a, vf b) {
  return vf_make(_mm256_div_ps(a.lo, b.lo), _mm256_div_ps(a.hi, b.hi));
}
static inline vf vf_abs(vf a) {
  const __m256 m = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  return vf_make(_mm256_and_ps(a.lo, m), _mm256_and_ps(a.hi, m));
}
/* max(acc, |b|) on the bit patterns, NaN winning (see vec_scalar.h). */
static inline __m256 nkl__absmax8(__m256 acc, __m256 b) {
  const __m256i ub = _mm256_and_si256(_mm256_castps_si256(b), _mm256_set1_epi32(0x7FFFFFFF));
  return _mm256_castsi256_ps(_mm256_max_epu32(_mm256_castps_si256(acc), ub));
}
static inline vf vf_absmax(vf acc, vf b) {
  return vf_make(nkl__absmax8(acc.lo, b.lo), nkl__absmax8(acc.hi, b.hi));
}
static inline float vf_reduce_absmax(vf a) {
  const __m256i m = _mm256_max_epu32(_mm256_castps_si256(a.lo), _mm256_castps_si256(a.hi));
  uint32_t t[8], r = 0;
  _mm256_storeu_si256((__m256i *)t, m);
  for (int i = 0; i < 8; i++) r = t[i] > r ? t[i] : r;
  return nkl__bits_f32(r);
}

static inline vf vf_load_f32(const float *p) {
  return vf_make(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8));
}
/* bf16 -> f32 of p[0..7]: the 16 bytes broadcast to both 128-bit halves, then one byte
 * shuffle puts element 4h + i into the high half of lane i of half h (zeros below). Not the
 * widen + shift of the obvious sequence: Zen 1 and 2 run vector shifts on one pipe, and the
 * broadcast is a plain load. */
static inline __m256 nkl__bf16x8_load_f32(const uint16_t *p) {
  const __m256i b = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
  const __m256i to_high =
      _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7, -1, -1, 8, 9, -1, -1,
                       10, 11, -1, -1, 12, 13, -1, -1, 14, 15);
  return _mm256_castsi256_ps(_mm256_shuffle_epi8(b, to_high));
}
static inline vf vf_load_bf16(const uint16_t *p) {
  return vf_make(nkl__bf16x8_load_f32(p), nkl__bf16x8_load_f32(p + 8));
}
static inline vf vf_load_f16(const uint16_t *p) {
  return vf_make(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)),
                 _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 8))));
}

static inline void vf_store_f32(float *p, vf a) {
  _mm256_storeu_ps(p, a.lo);
  _mm256_storeu_ps(p + 8, a.hi);
}
/* f32 -> bf16, round to nearest even: (u + 0x7FFF + ((u >> 16) & 1)) >> 16; NaN lanes
 * become (u >> 16) | 0x40 (quiet), taken as (u | 0x400000) >> 16 by a blend before the one
 * shift (an unordered compare finds them in one operation). Matches nkl__f32_to_bf16. */
static inline __m256i nkl__f32x8_to_bf16_epi32(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  const __m256i rne = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb);
  const __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x400000));
  const __m256i isnan = _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  return _mm256_srli_epi32(_mm256_blendv_epi8(rne, quiet, isnan), 16);
}
/* The same for lanes known not to be NaN (Inf is fine): the rounding sum alone, 5 operations
 * instead of 8. */
static inline __m256i nkl__f32x8_to_bf16_epi32_nonnan(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  return _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb),
                           16);
}
static inline __attribute__((always_inline)) __m256i nkl__f32x16_to_bf16(vf a, int nonnan) {
  const __m256i lo =
      nonnan ? nkl__f32x8_to_bf16_epi32_nonnan(a.lo) : nkl__f32x8_to_bf16_epi32(a.lo);
  const __m256i hi =
      nonnan ? nkl__f32x8_to_bf16_epi32_nonnan(a.hi) : nkl__f32x8_to_bf16_epi32(a.hi);
  /* packus interleaves 128-bit lanes; the permute puts lanes 0..15 back in order */
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8);
}
static inline __attribute__((always_inline)) void vf_store_bf16(uint16_t *p, vf a) {
  _mm256_storeu_si256((__m256i *)p, nkl__f32x16_to_bf16(a, 0));
}
/* vf_store_bf16 / vf_stream_bf16 of a vector without NaN lanes (see vf_store_nonnan). */
#define VF_HAVE_BF16_NONNAN 1
static inline __attribute__((always_inline)) void vf_store_bf16_nonnan(uint16_t *p, vf a) {
  _mm256_storeu_si256((__m256i *)p, nkl__f32x16_to_bf16(a, 1));
}
static inline __attribute__((always_inline)) void vf_stream_bf16_nonnan(uint16_t *p, vf a) {
  _mm256_stream_si256((__m256i *)p, nkl__f32x16_to_bf16(a, 1));
}
/* Both halves in one register, so a streamed store needs no round trip through memory (two
 * 16-byte stores read back as one 32-byte load miss store forwarding: ~30% slower f16
 * RMSNorm rows on Zen 2). */
static inline __m256i nkl__f32x16_to_f16(vf a) {
  return _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm256_cvtps_ph(a.lo, _MM_FROUND_TO_NEAREST_INT)),
      _mm256_cvtps_ph(a.hi, _MM_FROUND_TO_NEAREST_INT), 1);
}
static inline __attribute__((always_inline)) void vf_store_f16(uint16_t *p, vf a) {
  _mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(a.lo, _MM_FROUND_TO_NEAREST_INT));
  _mm_storeu_si128((__m128i *)(p + 8), _mm256_cvtps_ph(a.hi, _MM_FROUND_TO_NEAREST_INT));
}

/* f32 -> fp8 e4m3 codes of 8 lanes as 32-bit integers (the algorithm of vec_avx512.h).
 * The magnitude code of finite |x| < 464 from abs = |x|'s bits: normal values round the 20
 * dropped bits to even and rebias 127 -> 7; below 2^-6 the FPU rounds |x| + 2^14 to the
 * subnormal step. */
static inline __m256i nkl__e4m3_magnitude8(__m256i abs) {
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(abs, 20), _mm256_set1_epi32(1));
  const __m256i normal = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(abs, _mm256_set1_epi32(0x7FFFF - (120 << 23))), lsb), 20);
  const __m256i sub = _mm256_sub_epi32(
      _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(abs), _mm256_set1_ps(16384.0f))),
      _mm256_set1_epi32(0x46800000));
  return _mm256_blendv_epi8(normal, sub, _mm256_cmpgt_epi32(_mm256_set1_epi32(0x3C800000), abs));
}
static inline __m256i nkl__e4m3_sign8(__m256i u) {
  return _mm256_and_si256(_mm256_srli_epi32(u, 24), _mm256_set1_epi32(0x80));
}
/* Any f32: the magnitude saturates above 448 (code 0x7E) and NaN is 0x7F. */
static inline __m256i nkl__f32x8_to_e4m3_epi32(__m256 x) {
  const __m256i u = _mm256_castps_si256(x);
  const __m256i abs = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
  __m256i c = nkl__e4m3_magnitude8(abs);
  c = _mm256_blendv_epi8(c, _mm256_set1_epi32(0x7E),
                         _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x43DFFFFF)));
  c = _mm256_blendv_epi8(c, _mm256_set1_epi32(0x7F),
                         _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7F800000)));
  return _mm256_or_si256(c, nkl__e4m3_sign8(u));
}
static inline void vf_store_e4m3(uint8_t *p, vf a) {
  /* 32 -> 16 bits (packus interleaves 128-bit lanes; the permute restores the order),
   * then 16 -> 8 bits across the two halves */
  const __m256i w = _mm256_permute4x64_epi64(
      _mm256_packus_epi32(nkl__f32x8_to_e4m3_epi32(a.lo), nkl__f32x8_to_e4m3_epi32(a.hi)), 0xD8);
  _mm_storeu_si128((__m128i *)p,
                   _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1)));
}

/* Lanes finite with |a| < 464 (see vec_scalar.h): the same encoder here. */
static inline void vf_store_e4m3_finite(uint8_t *p, vf a) { vf_store_e4m3(p, a); }

/* The bytes of two vectors a, b packed 32 -> 16 -> 8 bits (a.lo = lanes 0..7, a.hi = 8..15)
 * come out with 4-lane groups interleaved (128-bit lane L holds a[4L..], a[8 + 4L..],
 * b[4L..], b[8 + 4L..]); one vpermd puts the groups back in order. */
static inline __m256i nkl__e4m3_order(__m256i bytes) {
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
/* The 32 byte codes of two vectors a, b (32-bit codes) in order. */
static inline __m256i nkl__e4m3_pack2(__m256i alo, __m256i ahi, __m256i blo, __m256i bhi) {
  return nkl__e4m3_order(
      _mm256_packus_epi16(_mm256_packus_epi32(alo, ahi), _mm256_packus_epi32(blo, bhi)));
}
/* 64 code bytes c[0..1] at p (nt: non-temporal, p 64-byte aligned). */
static inline void nkl__e4m3_store_line(uint8_t *p, __m256i c0, __m256i c1, int nt) {
  if (nt) {
    _mm256_stream_si256((__m256i *)p, c0);
    _mm256_stream_si256((__m256i *)(p + 32), c1);
  } else {
    _mm256_storeu_si256((__m256i *)p, c0);
    _mm256_storeu_si256((__m256i *)(p + 32), c1);
  }
}

/* vf_store_e4m3_finite of y[0..3] at p, p + 16, p + 32, p + 48 (see vec_common.h). */
#define VF_HAVE_E4M3_X4 1
/* ls: lane-swapped vectors, which this ISA does not make (vf_lane_swap is the identity) */
static inline void vf_store_e4m3_finite_x4(uint8_t *p, const vf *y, int ls, int nt) {
  (void)ls;
  const __m256i m = _mm256_set1_epi32(0x7FFFFFFF);
  __m256i c[8];
  for (int j = 0; j < 8; j++) {
    const __m256i u = _mm256_castps_si256(j & 1 ? y[j / 2].hi : y[j / 2].lo);
    c[j] = _mm256_or_si256(nkl__e4m3_magnitude8(_mm256_and_si256(u, m)), nkl__e4m3_sign8(u));
  }
  nkl__e4m3_store_line(p, nkl__e4m3_pack2(c[0], c[1], c[2], c[3]),
                       nkl__e4m3_pack2(c[4], c[5], c[6], c[7]), nt);
}

/* The division-free encoder of vec_avx512.h (the math is there): the codes of y[j] / s as
 * v = max(|q0|, RN(|q0| / 2 + 2^-7)), q0 = RN(y[j] * rv), rounded half up, rv = RN(1 / s);
 * returns 0 when a lane is within [-8, 7] ulps of a code step (the exact path's): that is,
 * when the 16 bits above the low 4 of t's 20 dropped bits are all zero in some lane, which
 * the running unsigned minimum of those fields finds. Unlike vec_avx512.h it stores the 64
 * codes either way (the caller rewrites a declined group): with no branch before the store,
 * the packs are not sunk below it, which kept every intermediate live and spilled them.
 * Fewer operations than vf_store_e4m3_finite_x4's layout, as AVX2 cores with 128-bit units
 * (Zen 1: this pass was ~45% of LayerNormQuant in cache) pay twice per 256-bit operation and
 * run vector shifts on one pipe: the magnitudes t >> 20 (<= 0x7E) and the signs go through
 * the same pack steps (unsigned saturation keeps the magnitudes, signed saturation keeps the
 * sign of q0's bits as bit 7 of a byte), packed per vector as they are formed so that few
 * registers stay live, and meet in one AND and one OR per 32 codes. */
static inline int vf_store_e4m3_quot_x4(uint8_t *p, const vf *y, vf rv, int ls, int nt) {
  (void)ls;
  const __m256i m = _mm256_set1_epi32(0x7FFFFFFF), k = _mm256_set1_epi32(0x80008 - (120 << 23));
  const __m256i low = _mm256_set1_epi32(0xFFFF0);
  const __m256 half = _mm256_set1_ps(0.5f), base = _mm256_set1_ps(0x1p-7f);
  __m256i mag16[4], sgn16[4], nearmin = _mm256_set1_epi32(-1);
  for (int j = 0; j < 4; j++) {
    __m256i mg[2], u[2];
    for (int h = 0; h < 2; h++) {
      const __m256 q0 = _mm256_mul_ps(h ? y[j].hi : y[j].lo, h ? rv.hi : rv.lo);
      u[h] = _mm256_castps_si256(q0);
      const __m256 a = _mm256_castsi256_ps(_mm256_and_si256(u[h], m));
      const __m256 v = _mm256_max_ps(a, _mm256_fmadd_ps(a, half, base));
      const __m256i t = _mm256_add_epi32(_mm256_castps_si256(v), k);
      nearmin = _mm256_min_epu32(nearmin, _mm256_and_si256(t, low));
      mg[h] = _mm256_srli_epi32(t, 20);
    }
    mag16[j] = _mm256_packus_epi32(mg[0], mg[1]);
    sgn16[j] = _mm256_packs_epi32(u[0], u[1]);
  }
  __m256i c[2];
  for (int l = 0; l < 2; l++) {
    const __m256i mag = _mm256_packus_epi16(mag16[2 * l], mag16[2 * l + 1]);
    const __m256i sgn = _mm256_packs_epi16(sgn16[2 * l], sgn16[2 * l + 1]);
    c[l] =
        nkl__e4m3_order(_mm256_or_si256(mag, _mm256_and_si256(sgn, _mm256_set1_epi8((char)0x80))));
  }
  nkl__e4m3_store_line(p, c[0], c[1], nt);
  return _mm256_testz_si256(_mm256_cmpeq_epi32(nearmin, _mm256_setzero_si256()),
                            _mm256_set1_epi32(-1));
}

/* Non-temporal stores (p aligned to the vector's bytes: 64 for f32, 32 for 16-bit). */
static inline void vf_stream_f32(float *p, vf a) {
  _mm256_stream_ps(p, a.lo);
  _mm256_stream_ps(p + 8, a.hi);
}
static inline void vf_stream_f16(uint16_t *p, vf a) {
  _mm256_stream_si256((__m256i *)p, nkl__f32x16_to_f16(a));
}
static inline void vf_stream_bf16(uint16_t *p, vf a) {
  _mm256_stream_si256((__m256i *)p, nkl__f32x16_to_bf16(a, 0));
}
/* 64 bytes from t (any alignment) to the 64-byte aligned p, non-temporally. */
static inline void vf_stream_line(uint8_t *p, const uint8_t *t) {
  _mm256_stream_si256((__m256i *)p, _mm256_loadu_si256((const __m256i *)t));
  _mm256_stream_si256((__m256i *)(p + 32), _mm256_loadu_si256((const __m256i *)(t + 32)));
}
static inline void vf_stream_fence(void) { _mm_sfence(); }

/* NaN-propagating running max (see vec_scalar.h): vmaxps(x, acc) gives x > acc ? x : acc
 * and returns acc when either is NaN; the blend then takes x where x is NaN. */
static inline __m256 nkl__max_nan8(__m256 acc, __m256 x) {
  return _mm256_blendv_ps(_mm256_max_ps(x, acc), x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}
static inline vf vf_max_nan(vf acc, vf x) {
  return vf_make(nkl__max_nan8(acc.lo, x.lo), nkl__max_nan8(acc.hi, x.hi));
}
/* -0 becomes +0 (x + 0) and NaN lanes the default NaN 0xFFC00000 (see vec_scalar.h). */
static inline __m256 nkl__fix_zero_nan8(__m256 a) {
  a = _mm256_add_ps(a, _mm256_setzero_ps());
  return _mm256_blendv_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32((int)0xFFC00000u)),
                          _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
}
static inline vf vf_fix_zero_nan(vf a) {
  return vf_make(nkl__fix_zero_nan8(a.lo), nkl__fix_zero_nan8(a.hi));
}
/* Even (sel 0x88) or odd (0xDD) lanes of x ++ y: the shuffle picks x0 x2 y0 y2 | x4 x6 y4
 * y6 per 128-bit half, the 64-bit permute restores the order. (A macro: sel must be an
 * immediate at every optimization level.) */
#define NKL_PICK8(x, y, sel) \
  _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(x, y, sel)), 0xD8))
/* Even lanes of p[0..15]. */
static inline __m256 nkl__even8(const float *p) {
  return NKL_PICK8(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), 0x88);
}
/* Lanes p[r], p[r + s], ..., p[r + 15 s] by two gathers. */
static inline vf nkl__gather_phase(const float *p, int s, int r) {
  const __m256i idx =
      _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(s));
  return vf_make(_mm256_i32gather_ps(p + r, idx, 4), _mm256_i32gather_ps(p + 8 * s + r, idx, 4));
}
/* Lanes p[0], p[s], ..., p[15 s]: plain loads, even-lane shuffles (s == 2, reads p[0..31]),
 * or gathers. */
static inline vf vf_load_strided_f32(const float *p, int64_t s) {
  if (s == 1) return vf_load_f32(p);
  if (s == 2) return vf_make(nkl__even8(p), nkl__even8(p + 16));
  return nkl__gather_phase(p, (int)s, 0);
}

/* Phase r of the 3-way split of the 24 lanes x ++ y ++ z: lane i is element 3i + r. Element
 * 3i + r sits at position (3i + r) % 8 of its register, and the 8 phase-r elements fall on 8
 * distinct positions (3 is prime to 8): two blends gather them into one register, in the
 * order the positions give, and one permute sorts them. Positions of phase 0: x 0 3 6, y 1 4
 * 7, z 2 5; phases 1 and 2 rotate which register fills which positions. (A macro: blend
 * masks must be immediates.) */
#define NKL_PHASE3_8(x, y, z, mxy, mz, i0, i1, i2, i3, i4, i5, i6, i7)         \
  _mm256_permutevar8x32_ps(_mm256_blend_ps(_mm256_blend_ps(x, y, mxy), z, mz), \
                           _mm256_setr_epi32(i0, i1, i2, i3, i4, i5, i6, i7))
static inline __attribute__((always_inline)) __m256 nkl__phase3x8(__m256 x, __m256 y, __m256 z,
                                                                  int r) {
  if (r == 0) return NKL_PHASE3_8(x, y, z, 0x92, 0x24, 0, 3, 6, 1, 4, 7, 2, 5);
  if (r == 1) return NKL_PHASE3_8(x, y, z, 0x24, 0x49, 1, 4, 7, 2, 5, 0, 3, 6);
  return NKL_PHASE3_8(x, y, z, 0x49, 0x92, 2, 5, 0, 3, 6, 1, 4, 7);
}
/* Phase r of the 4-way split of the 32 lanes w ++ x ++ y ++ z: lane i is element 4i + r,
 * i.e. position r of 128-bit half i % 2 of register i / 2. Unpacking (w, x) and (y, z) and
 * then the two results by 64 bits (lo: phases 0, 1; hi: 2, 3) gives, per 128-bit half h,
 * (w, x, y, z)[h][r]: lanes in the order 0 2 4 6 1 3 5 7, which one permute sorts. Inlined
 * with r constant, the four phases share the unpacks. */
static inline __attribute__((always_inline)) __m256 nkl__phase4x8(__m256 w, __m256 x, __m256 y,
                                                                  __m256 z, int r) {
  const __m256 wx = r < 2 ? _mm256_unpacklo_ps(w, x) : _mm256_unpackhi_ps(w, x);
  const __m256 yz = r < 2 ? _mm256_unpacklo_ps(y, z) : _mm256_unpackhi_ps(y, z);
  const __m256d a = _mm256_castps_pd(wx), b = _mm256_castps_pd(yz);
  const __m256 t = _mm256_castpd_ps(r % 2 ? _mm256_unpackhi_pd(a, b) : _mm256_unpacklo_pd(a, b));
  return _mm256_permutevar8x32_ps(t, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
/* Phase r of the s-way split of the 16 s lanes a, b, c, d in that order (see vec_scalar.h):
 * register shuffles only (before session 19, s = 3 and 4 stored the registers and gathered:
 * 3-4x slower on Zen 2, where AVX2 is the widest ISA). */
static inline __attribute__((always_inline)) vf vf_phase(vf a, vf b, vf c, vf d, int s, int r) {
  if (s == 1) return a;
  if (s == 2)
    return r ? vf_make(NKL_PICK8(a.lo, a.hi, 0xDD), NKL_PICK8(b.lo, b.hi, 0xDD))
             : vf_make(NKL_PICK8(a.lo, a.hi, 0x88), NKL_PICK8(b.lo, b.hi, 0x88));
  if (s == 3) /* lanes 0..7 from elements 0..23, 8..15 from 24..47 */
    return vf_make(nkl__phase3x8(a.lo, a.hi, b.lo, r), nkl__phase3x8(b.hi, c.lo, c.hi, r));
  return vf_make(nkl__phase4x8(a.lo, a.hi, b.lo, b.hi, r),
                 nkl__phase4x8(c.lo, c.hi, d.lo, d.hi, r));
}
/* The same split of p[0 .. 16 s), s <= 4. */
static inline __attribute__((always_inline)) vf vf_load_phase_f32(const float *p, int s, int r) {
  const vf a = vf_load_f32(p);
  return vf_phase(a, s > 1 ? vf_load_f32(p + 16) : a, s > 2 ? vf_load_f32(p + 32) : a,
                  s > 3 ? vf_load_f32(p + 48) : a, s, r);
}
/* The 2-way split of p[0..31] with the lanes in the shuffle's order (0 1 4 5 2 3 6 7 per 8
 * lanes) and the permute that sorts them, applied once to a result instead of per split:
 * lane-crossing permutes cost 3 micro-ops on Zen 1 and 2, the in-lane shuffle 2 (1 on Intel). */
#define VF_HAVE_SPLIT2_PERM 1
static inline __attribute__((always_inline)) vf vf_load_split2_perm(const float *p, int r) {
  const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
  const __m256 c = _mm256_loadu_ps(p + 16), d = _mm256_loadu_ps(p + 24);
  return r ? vf_make(_mm256_shuffle_ps(a, b, 0xDD), _mm256_shuffle_ps(c, d, 0xDD))
           : vf_make(_mm256_shuffle_ps(a, b, 0x88), _mm256_shuffle_ps(c, d, 0x88));
}
static inline vf vf_split2_order(vf v) {
  return vf_make(_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v.lo), 0xD8)),
                 _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v.hi), 0xD8)));
}
/* Lanes x[n..7] then y[0..n-1] (0 < n < 8): the middle 128 bits t = x[4..7] y[0..3] and a
 * byte align per 128-bit half, of (t, x) for n <= 4, of (y, t) above. */
static inline __m256 nkl__shift8(__m256 x, __m256 y, int n) {
  const __m256i t = _mm256_castps_si256(_mm256_permute2f128_ps(x, y, 0x21));
  const __m256i xi = _mm256_castps_si256(x), yi = _mm256_castps_si256(y);
  switch (n) {
    case 1: return _mm256_castsi256_ps(_mm256_alignr_epi8(t, xi, 4));
    case 2: return _mm256_castsi256_ps(_mm256_alignr_epi8(t, xi, 8));
    case 3: return _mm256_castsi256_ps(_mm256_alignr_epi8(t, xi, 12));
    case 4: return _mm256_castsi256_ps(t);
    case 5: return _mm256_castsi256_ps(_mm256_alignr_epi8(yi, t, 4));
    case 6: return _mm256_castsi256_ps(_mm256_alignr_epi8(yi, t, 8));
    default: return _mm256_castsi256_ps(_mm256_alignr_epi8(yi, t, 12));
  }
}
/* The 16 lanes starting n lanes into a, continued by b (see vec_scalar.h). */
static inline __attribute__((always_inline)) vf vf_shift_in(vf a, vf b, int n) {
  if (n == 0) return a;
  if (n < 8) return vf_make(nkl__shift8(a.lo, a.hi, n), nkl__shift8(a.hi, b.lo, n));
  if (n == 8) return vf_make(a.hi, b.lo);
  if (n < 16) return vf_make(nkl__shift8(a.hi, b.lo, n - 8), nkl__shift8(b.lo, b.hi, n - 8));
  return b;
}

/* vf_max_nan over the lanes by the fixed tree of vec_scalar.h. */
static inline __m128 nkl__max_nan4(__m128 acc, __m128 x) {
  return _mm_blendv_ps(_mm_max_ps(x, acc), x, _mm_cmpunord_ps(x, x));
}
static inline float vf_reduce_max_nan(vf a) {
  const __m256 t8 = nkl__max_nan8(a.lo, a.hi);
  const __m128 t4 = nkl__max_nan4(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
  const __m128 t2 = nkl__max_nan4(t4, _mm_movehl_ps(t4, t4));
  return _mm_cvtss_f32(nkl__max_nan4(t2, _mm_shuffle_ps(t2, t2, 1)));
}
/* The first n lanes of a (0 <= n <= 16), fill in the others: lane i is kept where i < n. */
static inline vf vf_keep_first(vf a, int64_t n, float fill) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), nn = _mm256_set1_epi32((int)n);
  const __m256 keep_lo = _mm256_castsi256_ps(_mm256_cmpgt_epi32(nn, lane));
  const __m256 keep_hi =
      _mm256_castsi256_ps(_mm256_cmpgt_epi32(nn, _mm256_add_epi32(lane, _mm256_set1_epi32(8))));
  const __m256 f = _mm256_set1_ps(fill);
  return vf_make(_mm256_blendv_ps(f, a.lo, keep_lo), _mm256_blendv_ps(f, a.hi, keep_hi));
}
/* a > b ? a : b per lane (b where either is NaN). */
static inline vf vf_max_num(vf a, vf b) {
  return vf_make(_mm256_max_ps(a.lo, b.lo), _mm256_max_ps(a.hi, b.hi));
}
/* Bit i set where !(a[i] < b[i]): a >= b, or either is NaN. */
static inline uint32_t vf_mask_not_less(vf a, vf b) {
  const uint32_t lo = (uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(a.lo, b.lo, _CMP_NLT_UQ));
  const uint32_t hi = (uint32_t)_mm256_movemask_ps(_mm256_cmp_ps(a.hi, b.hi, _CMP_NLT_UQ));
  return lo | hi << 8;
}

/* Stream compaction of lane numbers (see vec_scalar.h), 8 lanes at a time: entry m of the
 * table holds, byte j, the lane of the j-th set bit of m (zero past popcount(m)); widened to
 * 32 bits, plus base, it is the 8 indices to store, of which the first popcount(m) count.
 * At most two 4-lane stores per 8 lanes (the contract allows writing dst[0..16)), against 16
 * per 16 lanes for the branch-free scalar loop used before session 19: on Zen 2, where AVX2
 * is the widest ISA, top-k's collect pass ran at the speed of that loop. (Entry m: bytes = the set
 * bits of m in ascending order; generated once by a 4-line script, checked by test_topk's random
 * rows.) */
static const uint64_t nkl__compress8_table[256] = {
    0x0000000000000000u, 0x0000000000000000u, 0x0000000000000001u, 0x0000000000000100u,
    0x0000000000000002u, 0x0000000000000200u, 0x0000000000000201u, 0x0000000000020100u,
    0x0000000000000003u, 0x0000000000000300u, 0x0000000000000301u, 0x0000000000030100u,
    0x0000000000000302u, 0x0000000000030200u, 0x0000000000030201u, 0x0000000003020100u,
    0x0000000000000004u, 0x0000000000000400u, 0x0000000000000401u, 0x0000000000040100u,
    0x0000000000000402u, 0x0000000000040200u, 0x0000000000040201u, 0x0000000004020100u,
    0x0000000000000403u, 0x0000000000040300u, 0x0000000000040301u, 0x0000000004030100u,
    0x0000000000040302u, 0x0000000004030200u, 0x0000000004030201u, 0x0000000403020100u,
    0x0000000000000005u, 0x0000000000000500u, 0x0000000000000501u, 0x0000000000050100u,
    0x0000000000000502u, 0x0000000000050200u, 0x0000000000050201u, 0x0000000005020100u,
    0x0000000000000503u, 0x0000000000050300u, 0x0000000000050301u, 0x0000000005030100u,
    0x0000000000050302u, 0x0000000005030200u, 0x0000000005030201u, 0x0000000503020100u,
    0x0000000000000504u, 0x0000000000050400u, 0x0000000000050401u, 0x0000000005040100u,
    0x0000000000050402u, 0x0000000005040200u, 0x0000000005040201u, 0x0000000504020100u,
    0x0000000000050403u, 0x0000000005040300u, 0x0000000005040301u, 0x0000000504030100u,
    0x0000000005040302u, 0x0000000504030200u, 0x0000000504030201u, 0x0000050403020100u,
    0x0000000000000006u, 0x0000000000000600u, 0x0000000000000601u, 0x0000000000060100u,
    0x0000000000000602u, 0x0000000000060200u, 0x0000000000060201u, 0x0000000006020100u,
    0x0000000000000603u, 0x0000000000060300u, 0x0000000000060301u, 0x0000000006030100u,
    0x0000000000060302u, 0x0000000006030200u, 0x0000000006030201u, 0x0000000603020100u,
    0x0000000000000604u, 0x0000000000060400u, 0x0000000000060401u, 0x0000000006040100u,
    0x0000000000060402u, 0x0000000006040200u, 0x0000000006040201u, 0x0000000604020100u,
    0x0000000000060403u, 0x0000000006040300u, 0x0000000006040301u, 0x0000000604030100u,
    0x0000000006040302u, 0x0000000604030200u, 0x0000000604030201u, 0x0000060403020100u,
    0x0000000000000605u, 0x0000000000060500u, 0x0000000000060501u, 0x0000000006050100u,
    0x0000000000060502u, 0x0000000006050200u, 0x0000000006050201u, 0x0000000605020100u,
    0x0000000000060503u, 0x0000000006050300u, 0x0000000006050301u, 0x0000000605030100u,
    0x0000000006050302u, 0x0000000605030200u, 0x0000000605030201u, 0x0000060503020100u,
    0x0000000000060504u, 0x0000000006050400u, 0x0000000006050401u, 0x0000000605040100u,
    0x0000000006050402u, 0x0000000605040200u, 0x0000000605040201u, 0x0000060504020100u,
    0x0000000006050403u, 0x0000000605040300u, 0x0000000605040301u, 0x0000060504030100u,
    0x0000000605040302u, 0x0000060504030200u, 0x0000060504030201u, 0x0006050403020100u,
    0x0000000000000007u, 0x0000000000000700u, 0x0000000000000701u, 0x0000000000070100u,
    0x0000000000000702u, 0x0000000000070200u, 0x0000000000070201u, 0x0000000007020100u,
    0x0000000000000703u, 0x0000000000070300u, 0x0000000000070301u, 0x0000000007030100u,
    0x0000000000070302u, 0x0000000007030200u, 0x0000000007030201u, 0x0000000703020100u,
    0x0000000000000704u, 0x0000000000070400u, 0x0000000000070401u, 0x0000000007040100u,
    0x0000000000070402u, 0x0000000007040200u, 0x0000000007040201u, 0x0000000704020100u,
    0x0000000000070403u, 0x0000000007040300u, 0x0000000007040301u, 0x0000000704030100u,
    0x0000000007040302u, 0x0000000704030200u, 0x0000000704030201u, 0x0000070403020100u,
    0x0000000000000705u, 0x0000000000070500u, 0x0000000000070501u, 0x0000000007050100u,
    0x0000000000070502u, 0x0000000007050200u, 0x0000000007050201u, 0x0000000705020100u,
    0x0000000000070503u, 0x0000000007050300u, 0x0000000007050301u, 0x0000000705030100u,
    0x0000000007050302u, 0x0000000705030200u, 0x0000000705030201u, 0x0000070503020100u,
    0x0000000000070504u, 0x0000000007050400u, 0x0000000007050401u, 0x0000000705040100u,
    0x0000000007050402u, 0x0000000705040200u, 0x0000000705040201u, 0x0000070504020100u,
    0x0000000007050403u, 0x0000000705040300u, 0x0000000705040301u, 0x0000070504030100u,
    0x0000000705040302u, 0x0000070504030200u, 0x0000070504030201u, 0x0007050403020100u,
    0x0000000000000706u, 0x0000000000070600u, 0x0000000000070601u, 0x0000000007060100u,
    0x0000000000070602u, 0x0000000007060200u, 0x0000000007060201u, 0x0000000706020100u,
    0x0000000000070603u, 0x0000000007060300u, 0x0000000007060301u, 0x0000000706030100u,
    0x0000000007060302u, 0x0000000706030200u, 0x0000000706030201u, 0x0000070603020100u,
    0x0000000000070604u, 0x0000000007060400u, 0x0000000007060401u, 0x0000000706040100u,
    0x0000000007060402u, 0x0000000706040200u, 0x0000000706040201u, 0x0000070604020100u,
    0x0000000007060403u, 0x0000000706040300u, 0x0000000706040301u, 0x0000070604030100u,
    0x0000000706040302u, 0x0000070604030200u, 0x0000070604030201u, 0x0007060403020100u,
    0x0000000000070605u, 0x0000000007060500u, 0x0000000007060501u, 0x0000000706050100u,
    0x0000000007060502u, 0x0000000706050200u, 0x0000000706050201u, 0x0000070605020100u,
    0x0000000007060503u, 0x0000000706050300u, 0x0000000706050301u, 0x0000070605030100u,
    0x0000000706050302u, 0x0000070605030200u, 0x0000070605030201u, 0x0007060503020100u,
    0x0000000007060504u, 0x0000000706050400u, 0x0000000706050401u, 0x0000070605040100u,
    0x0000000706050402u, 0x0000070605040200u, 0x0000070605040201u, 0x0007060504020100u,
    0x0000000706050403u, 0x0000070605040300u, 0x0000070605040301u, 0x0007060504030100u,
    0x0000070605040302u, 0x0007060504030200u, 0x0007060504030201u, 0x0706050403020100u,
};
/* The first four of an 8-lane group's indices go out in one 128-bit store, the other four
 * in a second store only where more than four lanes are set: with the sparse masks of top-k's
 * collect pass (~3% of lanes) that branch is almost never taken, and one store in place of
 * the two of an 8-lane store per group took the pass from 30.8k to 24.0k TSC ticks per
 * 65536-score row in cache on the Zen 1 guest, which does one 128-bit store per cycle. */
static inline __attribute__((always_inline)) void nkl__store_lanes4(int32_t *dst, __m128i base,
                                                                    uint32_t bytes) {
  _mm_storeu_si128((__m128i *)dst,
                   _mm_add_epi32(base, _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)bytes))));
}
static inline __attribute__((always_inline)) int nkl__compress8(int32_t *dst, __m128i base,
                                                                uint32_t m) {
  const uint64_t l = nkl__compress8_table[m];
  nkl__store_lanes4(dst, base, (uint32_t)l);
  const int n = __builtin_popcount(m);
  if (__builtin_expect(n > 4, 0)) nkl__store_lanes4(dst + 4, base, (uint32_t)(l >> 32));
  return n;
}
static inline int vf_compress_lanes(int32_t *dst, int32_t base, uint32_t m) {
  const __m128i b = _mm_set1_epi32(base);
  const int n = nkl__compress8(dst, b, m & 0xFFu);
  return n + nkl__compress8(dst + n, _mm_add_epi32(b, _mm_set1_epi32(8)), m >> 8 & 0xFFu);
}

/* Fixed tree: lanes i and i+8, then i and i+4, i and i+2, i and i+1. */
static inline float vf_reduce_add(vf a) {
  const __m256 s8 = _mm256_add_ps(a.lo, a.hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

/* 16-bit order keys (see vec_scalar.h and nkl__key16): vh is 32 int16 lanes in two ymm;
 * key lanes inside a vf are int32. */
#define VH_LANES 32
typedef struct {
  __m256i lo, hi;
} vh;
static inline __m256i nkl__key16x16(__m256i x, int c) {
  const __m256i m =
      _mm256_xor_si256(x, _mm256_and_si256(_mm256_srai_epi16(x, 15), _mm256_set1_epi16(0x7FFF)));
  return _mm256_sub_epi16(m, _mm256_set1_epi16((int16_t)c));
}
static inline vh vh_load(const void *p) {
  const vh r = {_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)p + 1)};
  return r;
}
static inline void vh_store(void *p, vh a) {
  _mm256_storeu_si256((__m256i *)p, a.lo);
  _mm256_storeu_si256((__m256i *)p + 1, a.hi);
}
static inline vh vh_set1(int16_t x) {
  const vh r = {_mm256_set1_epi16(x), _mm256_set1_epi16(x)};
  return r;
}
static inline vh vh_max(vh a, vh b) {
  const vh r = {_mm256_max_epi16(a.lo, b.lo), _mm256_max_epi16(a.hi, b.hi)};
  return r;
}
static inline vh vh_key(vh x, int c) {
  const vh r = {nkl__key16x16(x.lo, c), nkl__key16x16(x.hi, c)};
  return r;
}
static inline vh vh_keep_first(vh a, int64_t n, int16_t fill) {
  const __m256i lane = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m256i nn = _mm256_set1_epi16((int16_t)n), f = _mm256_set1_epi16(fill);
  const __m256i keep_lo = _mm256_cmpgt_epi16(nn, lane);
  const __m256i keep_hi = _mm256_cmpgt_epi16(nn, _mm256_add_epi16(lane, _mm256_set1_epi16(16)));
  const vh r = {_mm256_blendv_epi8(f, a.lo, keep_lo), _mm256_blendv_epi8(f, a.hi, keep_hi)};
  return r;
}
/* Signed max of 8 int16 lanes (see vec_avx512.h). */
static inline int16_t nkl__reduce_max_epi16x8(__m128i q) {
  const __m128i u = _mm_sub_epi16(_mm_set1_epi16(0x7FFF), q);
  return (int16_t)(uint16_t)(0x7FFF - (_mm_cvtsi128_si32(_mm_minpos_epu16(u)) & 0xFFFF));
}
static inline int16_t vh_reduce_max(vh a) {
  const __m256i m = _mm256_max_epi16(a.lo, a.hi);
  return nkl__reduce_max_epi16x8(
      _mm_max_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1)));
}
/* Key rows' lane pick (see vec_avx512.h's vh_phase) for S = 1, 2 and 3 (VH_PHASE_MAX_S).
 * S = 2: the even 16-bit lanes of m[0] ++ m[1], i.e. the low half of each 32-bit lane,
 * masked and packed with unsigned saturation (exact: the masked values are 0..65535), then
 * the 64-bit permute that undoes the pack's interleaving of 128-bit lanes.
 * S = 3: 16 outputs from 48 lanes a ++ b ++ c. Output lanes 0..7 are lanes 0 3 6 of a.lo128,
 * 9 12 15 of a.hi128 and 18 21 of b.lo128; the pattern repeats every 24 lanes, so output
 * lanes 8..15 take the same positions of b.hi128, c.lo128 and c.hi128. The halves pair up as
 * [a.lo | b.hi], [a.hi | c.lo], [b.lo | c.hi] (two in-lane blends and one 128-bit permute),
 * and one byte shuffle per pair moves its picks into place, zeroing the rest. */
#define VH_HAVE_PHASE 1
#define VH_PHASE_MAX_S 3
static inline __m256i nkl__even16(__m256i a, __m256i b) {
  const __m256i lo = _mm256_set1_epi32(0xFFFF);
  return _mm256_permute4x64_epi64(
      _mm256_packus_epi32(_mm256_and_si256(a, lo), _mm256_and_si256(b, lo)), 0xD8);
}
static inline __m256i nkl__third16(__m256i a, __m256i b, __m256i c) {
  const __m256i p0 = _mm256_blend_epi32(a, b, 0xF0), p1 = _mm256_permute2x128_si256(a, c, 0x21),
                p2 = _mm256_blend_epi32(b, c, 0xF0);
  /* per 128-bit half: output word o <- source word w as bytes (2w, 2w + 1) at 2o; -128
   * (high bit set) zeroes a byte */
  const __m256i m0 = _mm256_setr_epi8(0, 1, 6, 7, 12, 13, -128, -128, -128, -128, -128, -128, -128,
                                      -128, -128, -128, 0, 1, 6, 7, 12, 13, -128, -128, -128, -128,
                                      -128, -128, -128, -128, -128, -128);
  const __m256i m1 = _mm256_setr_epi8(-128, -128, -128, -128, -128, -128, 2, 3, 8, 9, 14, 15, -128,
                                      -128, -128, -128, -128, -128, -128, -128, -128, -128, 2, 3, 8,
                                      9, 14, 15, -128, -128, -128, -128);
  const __m256i m2 = _mm256_setr_epi8(-128, -128, -128, -128, -128, -128, -128, -128, -128, -128,
                                      -128, -128, 4, 5, 10, 11, -128, -128, -128, -128, -128, -128,
                                      -128, -128, -128, -128, -128, -128, 4, 5, 10, 11);
  return _mm256_or_si256(_mm256_or_si256(_mm256_shuffle_epi8(p0, m0), _mm256_shuffle_epi8(p1, m1)),
                         _mm256_shuffle_epi8(p2, m2));
}
static inline __attribute__((always_inline)) vh vh_phase(const vh *m, int S) {
  if (S == 1) return m[0];
  if (S == 2) {
    const vh r = {nkl__even16(m[0].lo, m[0].hi), nkl__even16(m[1].lo, m[1].hi)};
    return r;
  }
  const vh r = {nkl__third16(m[0].lo, m[0].hi, m[1].lo), nkl__third16(m[1].hi, m[2].lo, m[2].hi)};
  return r;
}
/* The values of 32 keys (unkey: m = k + c, then the key's xor). */
static inline __m256i nkl__unkey16x16(__m256i k, int c) {
  const __m256i m = _mm256_add_epi16(k, _mm256_set1_epi16((int16_t)c));
  return _mm256_xor_si256(m, _mm256_and_si256(_mm256_srai_epi16(m, 15), _mm256_set1_epi16(0x7FFF)));
}
static inline vh vh_unkey(vh k, int c) {
  const vh r = {nkl__unkey16x16(k.lo, c), nkl__unkey16x16(k.hi, c)};
  return r;
}
static inline __m256 nkl__sext8(__m128i h) { return _mm256_castsi256_ps(_mm256_cvtepi16_epi32(h)); }
static inline vf vf_load_k16(const int16_t *p) {
  return vf_make(nkl__sext8(_mm_loadu_si128((const __m128i *)p)),
                 nkl__sext8(_mm_loadu_si128((const __m128i *)(p + 8))));
}
static inline __m256 nkl__half8(__m256i v, int r) {
  return _mm256_castsi256_ps(r ? _mm256_srai_epi32(v, 16)
                               : _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16));
}
/* A key pair per 32-bit lane is (even, odd) = (low half, high half). */
static inline vf vf_phase2_k16(const int16_t *p, int r) {
  return vf_make(nkl__half8(_mm256_loadu_si256((const __m256i *)p), r),
                 nkl__half8(_mm256_loadu_si256((const __m256i *)(p + 16)), r));
}
static inline __m256 nkl__imax8(__m256 a, __m256 b) {
  return _mm256_castsi256_ps(_mm256_max_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b)));
}
static inline vf vf_imax(vf a, vf b) {
  return vf_make(nkl__imax8(a.lo, b.lo), nkl__imax8(a.hi, b.hi));
}
static inline int32_t vf_reduce_imax(vf a) {
  int32_t t[8], m;
  _mm256_storeu_si256((__m256i *)t, _mm256_castps_si256(nkl__imax8(a.lo, a.hi)));
  m = t[0];
  for (int i = 1; i < 8; i++) m = t[i] > m ? t[i] : m;
  return m;
}
static inline __attribute__((always_inline)) void vf_store_unkey16(uint16_t *p, vf a, int c) {
  /* packs interleaves 128-bit lanes; the permute puts lanes 0..15 back in order (no lane
   * saturates: keys are int16) */
  const __m256i k = _mm256_permute4x64_epi64(
      _mm256_packs_epi32(_mm256_castps_si256(a.lo), _mm256_castps_si256(a.hi)), 0xD8);
  _mm256_storeu_si256((__m256i *)p, nkl__unkey16x16(k, c));
}

/* p[0..n) -> its exclusive prefix sums (mod 2^32); returns the total (see vec_common.h).
 * Per 4 lanes: the inclusive sums by two byte shifts, minus v for the exclusive sums, plus
 * the running carry (lane 3's sum broadcast). Top-k's radix sort scans ~6k bins per row,
 * ~2300 survivors. 128-bit, not 256: the 8-lane form needs two lane-crossing permutes per
 * step, and on the Zen 1 guest (where AVX2 is the widest ISA) it took 1.6 cycles per bin
 * against ~0.7 for this one. */
#define VF_HAVE_EXCLUSIVE_SCAN 1 /* vec_common.h has the portable version */
static inline uint32_t vu_exclusive_scan(uint32_t *p, int64_t n) {
  __m128i carry = _mm_setzero_si128();
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
    __m128i s = _mm_add_epi32(v, _mm_slli_si128(v, 4));
    s = _mm_add_epi32(s, _mm_slli_si128(s, 8));
    _mm_storeu_si128((__m128i *)(p + i), _mm_add_epi32(_mm_sub_epi32(s, v), carry));
    carry = _mm_add_epi32(carry, _mm_shuffle_epi32(s, 0xFF));
  }
  uint32_t sum = (uint32_t)_mm_cvtsi128_si32(carry);
  for (; i < n; i++) {
    const uint32_t c = p[i];
    p[i] = sum;
    sum += c;
  }
  return sum;
}

#endif
