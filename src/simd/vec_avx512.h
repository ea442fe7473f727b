/* AVX-512 F/BW/VL/DQ shim: the 16-lane logical vector is one zmm register. Same lane
 * semantics as vec_scalar.h. */
#ifndef NKL_VEC_AVX512_H
#define NKL_VEC_AVX512_H

#include <immintrin.h>

#include "core/convert_scalar.h"

#ifndef NKL_ISA_SUFFIX
#define NKL_ISA_SUFFIX avx512
#endif
#define VF_LANES 16

typedef __m512 vf;

static inline vf vf_set1(float x) { return _mm512_set1_ps(x); }
static inline vf vf_zero(void) { return _mm512_setzero_ps(); }
static inline vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf vf_div(vf a, vf b) { return _mm512_div_ps(a, b); }
static inline vf vf_abs(vf a) { return _mm512_abs_ps(a); }
/* max(acc, |b|) on the bit patterns, NaN winning (see vec_scalar.h). */
static inline vf vf_absmax(vf acc, vf b) {
  const __m512i ub = _mm512_and_si512(_mm512_castps_si512(b), _mm512_set1_epi32(0x7FFFFFFF));
  return _mm512_castsi512_ps(_mm512_max_epu32(_mm512_castps_si512(acc), ub));
}
static inline float vf_reduce_absmax(vf a) {
  return nkl__bits_f32(_mm512_reduce_max_epu32(_mm512_castps_si512(a)));
}

static inline vf vf_load_f32(const float *p) { return _mm512_loadu_ps(p); }
/* bf16 -> f32 puts the 16 bits in the upper half of a zero lane: one vpermw with zero
 * masking (word 2i + 1 of the result is word i of h, the even words are zeroed), instead of
 * vpmovzxwd and a shift (two uops, one of them on the shift port). RMSNormQuant ~3% faster
 * in cache, other kernels within noise; the bits are the same. */
static inline vf vf_load_bf16(const uint16_t *p) {
  const __m512i h = _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)p));
  const __m512i idx = _mm512_set_epi16(15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9, 8, 8,
                                       7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0);
  return _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, idx, h));
}
/* Lane-swapped loads (see vec_common.h, vf_load_ls): the 16 values with the vector's 128-bit
 * lanes 1 and 2 swapped, elements 0-3, 8-11, 4-7, 12-15. For bf16 one vpshufb of a load that
 * broadcasts the 32 bytes to both halves (lanes 0 and 2 hold elements 0-7, lanes 1 and 3
 * elements 8-15; each lane picks its four), instead of vf_load_bf16's vpermw, which is two
 * uops on the shuffle port on Intel. */
#define VF_HAVE_LANE_SWAP 1
static inline vf vf_lane_swap(vf a) { return _mm512_shuffle_f32x4(a, a, _MM_SHUFFLE(3, 1, 2, 0)); }
static inline vf vf_load_bf16_ls(const uint16_t *p) {
  const __m512i h = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)p));
  /* byte pairs 8i + 2j .. (lane i's element j) into the upper half of dword j, per lane */
  const __m512i idx = _mm512_set_epi8(15, 14, -1, -1, 13, 12, -1, -1, 11, 10, -1, -1, 9, 8, -1, -1,
                                      15, 14, -1, -1, 13, 12, -1, -1, 11, 10, -1, -1, 9, 8, -1, -1,
                                      7, 6, -1, -1, 5, 4, -1, -1, 3, 2, -1, -1, 1, 0, -1, -1, 7, 6,
                                      -1, -1, 5, 4, -1, -1, 3, 2, -1, -1, 1, 0, -1, -1);
  return _mm512_castsi512_ps(_mm512_shuffle_epi8(h, idx));
}
static inline vf vf_load_f16(const uint16_t *p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}

static inline void vf_store_f32(float *p, vf a) { _mm512_storeu_ps(p, a); }
/* f32 -> bf16 by integer round-to-nearest-even (matches nkl__f32_to_bf16):
 * (u + 0x7FFF + ((u >> 16) & 1)) >> 16, NaN lanes (u >> 16) | 0x40. */
static inline __m256i nkl__f32x16_to_bf16_int(vf a) {
  const __m512i u = _mm512_castps_si512(a);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  __m512i r =
      _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb), 16);
  const __mmask16 isnan = _mm512_cmpgt_epu32_mask(
      _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)), _mm512_set1_epi32(0x7F800000));
  r = _mm512_mask_or_epi32(r, isnan, _mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
  return _mm512_cvtepi32_epi16(r);
}
#if defined(__AVX512BF16__) && defined(NKL_VEC_USE_CVTNEPS2BF16)
/* vcvtneps2bf16 rounds to nearest even and quietens NaN exactly like the integer path, but
 * treats subnormal inputs as zero. Lanes holding a subnormal (rare) are redone with the
 * integer path, so results stay identical to every other ISA. 30% faster row norms. */
static inline __attribute__((always_inline)) void vf_store_bf16(uint16_t *p, vf a) {
  const __mmask16 sub = _mm512_fpclass_ps_mask(a, 0x20); /* class 0x20: subnormal */
  __m256i r = (__m256i)_mm512_cvtneps_pbh(a);
  if (__builtin_expect(sub != 0, 0))
    r = _mm256_mask_blend_epi16(sub, r, nkl__f32x16_to_bf16_int(a));
  _mm256_storeu_si256((__m256i *)p, r);
}
/* vf_store_bf16 without the fix-up: returns the mask of the subnormal lanes, stored as zero
 * (see vf_store_fast in vec_common.h). */
#define VF_HAVE_STORE_BF16_FAST 1
static inline __attribute__((always_inline)) unsigned vf_store_bf16_fast(uint16_t *p, vf a) {
  _mm256_storeu_si256((__m256i *)p, (__m256i)_mm512_cvtneps_pbh(a));
  return _mm512_fpclass_ps_mask(a, 0x20);
}
#else
/* vcvtneps2bf16 is not used here: it flushes subnormals (see vec_avx512bf16.h). */
static inline __attribute__((always_inline)) void vf_store_bf16(uint16_t *p, vf a) {
  _mm256_storeu_si256((__m256i *)p, nkl__f32x16_to_bf16_int(a));
}
#endif
static inline __attribute__((always_inline)) void vf_store_f16(uint16_t *p, vf a) {
  _mm256_storeu_si256((__m256i *)p, _mm512_cvtps_ph(a, _MM_FROUND_TO_NEAREST_INT));
}

/* f32 -> fp8 e4m3 codes, the integer algorithm of nkl__f32_to_fp8e4m3 on 16 lanes: normal
 * values round the 20 dropped bits to even and rebias 127 -> 7; below 2^-6 the FPU rounds
 * |v| + 2^14 to a multiple of 2^-9; >= 448 (and inf) saturate to 0x7E; NaN gives 0x7F. */
/* e4m3 codes of the magnitudes abs = |a| bits, rounded to nearest even: the normal range
 * by integer rounding of the mantissa to 3 bits with the exponent rebiased (-120 << 23),
 * below 2^-6 the subnormal steps of 2^-9 by adding 16384 in f32 (whose ulp is 2^-9).
 * Saturation and NaN are left to the caller. */
static inline __m512i nkl__e4m3_magnitude(__m512i abs) {
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(abs, 20), _mm512_set1_epi32(1));
  const __m512i normal = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(abs, _mm512_set1_epi32(0x7FFFF - (120 << 23))), lsb), 20);
  const __mmask16 small = _mm512_cmplt_epi32_mask(abs, _mm512_set1_epi32(0x3C800000));
  const __m512i sub = _mm512_sub_epi32(
      _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(abs), _mm512_set1_ps(16384.0f))),
      _mm512_set1_epi32(0x46800000));
  return _mm512_mask_blend_epi32(small, normal, sub);
}

/* The 16 codes with the sign bit of u put back, stored as bytes. */
static inline void nkl__e4m3_store(uint8_t *p, __m512i u, __m512i c) {
  const __m512i sign = _mm512_and_si512(_mm512_srli_epi32(u, 24), _mm512_set1_epi32(0x80));
  _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8(_mm512_or_si512(c, sign)));
}

static inline void vf_store_e4m3(uint8_t *p, vf a) {
  const __m512i u = _mm512_castps_si512(a);
  const __m512i abs = _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF));
  __m512i c = nkl__e4m3_magnitude(abs);
  /* >= 464 (the midpoint above 448) saturates to 448; NaN gets the NaN code */
  c = _mm512_mask_mov_epi32(c, _mm512_cmpge_epi32_mask(abs, _mm512_set1_epi32(0x43E00000)),
                            _mm512_set1_epi32(0x7E));
  c = _mm512_mask_mov_epi32(c, _mm512_cmpgt_epi32_mask(abs, _mm512_set1_epi32(0x7F800000)),
                            _mm512_set1_epi32(0x7F));
  nkl__e4m3_store(p, u, c);
}

/* Lanes finite with |a| < 464 (see vec_scalar.h): no saturation or NaN step. */
static inline void vf_store_e4m3_finite(uint8_t *p, vf a) {
  const __m512i u = _mm512_castps_si512(a);
  nkl__e4m3_store(p, u, nkl__e4m3_magnitude(_mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF))));
}

/* 64 bytes v at p; with nt a non-temporal store (p 64-byte aligned). */
static inline void nkl__store_line(uint8_t *p, __m512i v, int nt) {
  if (nt)
    _mm512_stream_si512((void *)p, v);
  else
    _mm512_storeu_si512((void *)p, v);
}

/* The 64 codes of four vectors as one line in element order, from their magnitudes c[j]
 * (0..126 per 32-bit lane) and the f32 bits u[j] whose signs they take (ls: the vectors are
 * lane-swapped, vf_load_ls). The magnitudes pack unsigned; the signs pack with signed
 * saturation (a negative lane, -0 included, is a negative integer and becomes 0x80, any other
 * lane 0..0x7F), and the line is mag | (sgn & 0x80): two shifts and an or per vector fewer
 * than moving each sign bit into place (LayerNormQuant 3% faster in cache, Xeon guest).
 * Packing interleaves 4-dword groups (128-bit lane L of the result holds lane L of vector 0,
 * then of 1, 2 and 3); one vpermd puts them in order. */
static inline __m512i nkl__e4m3_line(const __m512i *c, const __m512i *u, int ls) {
  const __m512i mag =
      _mm512_packus_epi16(_mm512_packus_epi32(c[0], c[1]), _mm512_packus_epi32(c[2], c[3]));
  const __m512i sgn =
      _mm512_packs_epi16(_mm512_packs_epi32(u[0], u[1]), _mm512_packs_epi32(u[2], u[3]));
  const __m512i bytes = _mm512_ternarylogic_epi32(mag, sgn, _mm512_set1_epi8((char)0x80), 0xF8);
  /* dword 4 j + g of the line (vector j, elements 4 g ..) is dword 4 L + j of bytes, L the
   * lane holding group g: g, or with ls lanes 1 and 2 exchanged */
  const __m512i order =
      ls ? _mm512_setr_epi32(0, 8, 4, 12, 1, 9, 5, 13, 2, 10, 6, 14, 3, 11, 7, 15)
         : _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, bytes);
}

/* 64 codes from four vectors (vf_store_e4m3_finite of y[0..3] at p, p + 16, ...; ls: the
 * vectors are lane-swapped; nt: one non-temporal store, p 64-byte aligned) in one 64-byte
 * store instead of four vpmovdb (two uops each). */
static inline void vf_store_e4m3_finite_x4(uint8_t *p, const vf *y, int ls, int nt) {
  const __m512i m = _mm512_set1_epi32(0x7FFFFFFF);
  __m512i c[4], u[4];
  for (int j = 0; j < 4; j++) {
    u[j] = _mm512_castps_si512(y[j]);
    c[j] = nkl__e4m3_magnitude(_mm512_and_si512(u[j], m));
  }
  nkl__store_line(p, nkl__e4m3_line(c, u, ls), nt);
}

/* The codes of y[j] / s for four vectors, as vf_store_e4m3_finite_x4 of vf_div(y[j], s)
 * would store them, without the division; rv = RN(1 / s). Preconditions (the caller's):
 * s is a normal f32, every y finite and |y / s| <= 448 (1 + 2^-22). Returns 0, storing
 * nothing, when some lane needs the exact path.
 *
 * Math. q0 = RN(y * rv) is within 2^-23 |y / s| of y / s (two roundings of 2^-24 each),
 * and q = RN(y / s) within half an ulp of it: |q - q0| <= 3 ulps of q0's binade. The e4m3
 * code is a step function of |q| whose steps sit at the midpoints between adjacent e4m3
 * values. In the normal range (|q| >= 2^-6) those are the f32 values whose low 20 bits are
 * exactly 0x80000 (never a power of two); below, the subnormal codes step every 2^-9, and
 *   v = max(|q0|, RN(|q0| / 2 + 2^-7))
 * maps [0, 2^-6) linearly onto [2^-7, 2^-6) (ulp 2^-30: |q0| to 2^-29, one more half unit
 * of error) and leaves |q0| >= 2^-6 as it is, so that in both ranges the steps are where
 * the low 20 bits of v are 0x80000 and the code is v's bits rebiased and shifted:
 *   t = bits(v) + 0x80008 - (120 << 23);   code = t >> 20   (exponent 127 -> 7)
 * (on [2^-7, 2^-6), bits(v) = bits(2^-7) + |q0| 2^29: code = RN(|q0| 2^9), the subnormal
 * code, and 8 at 2^-6, the first normal one). q and q0 then have the same code unless a
 * step lies within 3 ulps of q0 (below 2^-6: 2 ulps of v, its rounding included), i.e.
 * low20(v) within 3 of 0x80000: those lanes (checked with a margin, [-8, 7]: low20(t) <
 * 16) take the exact path. Every other lane is rounded half up, which is
 * round-to-nearest-even as it is not a tie.
 * For rows of y = x * w with x and w bf16 unit normals (nkl bench's data), 3 groups of 64
 * lanes in 100 take the exact path, nearly all for a quotient on a step: y / s = 448 xy /
 * max|xy| is a ratio of short products and often an exact tie. Before subnormal codes were
 * encoded here, 12 in 100 did (subnormal codes are 2e-3 of a product of normals' lanes,
 * 1e-4 of a normal's), and those groups' divisions and branch misses were a fifth of
 * RMSNormQuant's warm time. */
static inline int vf_store_e4m3_quot_x4(uint8_t *p, const vf *y, vf rv, int ls, int nt) {
  const __m512i m = _mm512_set1_epi32(0x7FFFFFFF), k = _mm512_set1_epi32(0x80008 - (120 << 23));
  const __m512i low = _mm512_set1_epi32(0xFFFF0);
  const __m512 half = _mm512_set1_ps(0.5f), base = _mm512_set1_ps(0x1p-7f);
  __m512i c[4], u[4];
  __mmask16 near = 0;
  for (int j = 0; j < 4; j++) {
    const __m512 q0 = _mm512_mul_ps(y[j], rv);
    u[j] = _mm512_castps_si512(q0); /* the sign of y: rv > 0 */
    const __m512 a = _mm512_castsi512_ps(_mm512_and_si512(u[j], m));
    const __m512 v = _mm512_max_ps(a, _mm512_fmadd_ps(a, half, base));
    const __m512i t = _mm512_add_epi32(_mm512_castps_si512(v), k);
    near |= _mm512_testn_epi32_mask(t, low);
    c[j] = _mm512_srli_epi32(t, 20); /* the code of |q| */
  }
  if (near) return 0;
  nkl__store_line(p, nkl__e4m3_line(c, u, ls), nt);
  return 1;
}

/* Non-temporal stores (p aligned to the vector's bytes: 64 for f32, 32 for 16-bit): they
 * bypass the cache and skip the read-for-ownership of a regular store. */
static inline void vf_stream_f32(float *p, vf a) { _mm512_stream_ps(p, a); }
static inline void nkl__stream_16(uint16_t *p, vf a, void (*store)(uint16_t *, vf)) {
  _Alignas(32) uint16_t t[16];
  store(t, a); /* one 32-byte store: the compiler keeps it in a register */
  _mm256_stream_si256((__m256i *)p, _mm256_load_si256((const __m256i *)t));
}
static inline void vf_stream_f16(uint16_t *p, vf a) { nkl__stream_16(p, a, vf_store_f16); }
static inline void vf_stream_bf16(uint16_t *p, vf a) { nkl__stream_16(p, a, vf_store_bf16); }
/* 64 bytes from t (any alignment) to the 64-byte aligned p, non-temporally. */
static inline void vf_stream_line(uint8_t *p, const uint8_t *t) {
  _mm512_stream_si512((void *)p, _mm512_loadu_si512((const void *)t));
}
static inline void vf_stream_fence(void) { _mm_sfence(); }

/* NaN-propagating running max (see vec_scalar.h): vmaxps(x, acc) gives x > acc ? x : acc
 * and returns acc when either is NaN; merge-masked to the lanes where x is not NaN, the
 * others keep x. Two instructions (a compare into a mask, a masked max), where a max and a
 * blend by the mask took three (the same bits). */
static inline vf vf_max_nan(vf acc, vf x) {
  return _mm512_mask_max_ps(x, _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), x, acc);
}
/* -0 becomes +0 and NaN lanes the default NaN 0xFFC00000 (see vec_scalar.h): one vfixupimmps,
 * whose table maps the classes QNaN and SNaN to token 3 (the default NaN), zero to token 8
 * (+0) and every other class to token 1 (the lane itself). */
static inline vf vf_fix_zero_nan(vf a) {
  return _mm512_fixupimm_ps(a, a, _mm512_set1_epi32(0x11111833), 0);
}
/* Lanes p[0], p[s], ..., p[15 s]: a plain load; for s <= 4 two-source permutes (lanes 0..7
 * from p[0..31], lanes 8..15 from p[8s..8s+31]); else a gather (slow on AMD). */
static inline vf vf_load_strided_f32(const float *p, int64_t s) {
  if (s == 1) return _mm512_loadu_ps(p);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  if (s == 2)
    return _mm512_permutex2var_ps(_mm512_loadu_ps(p), _mm512_add_epi32(iota, iota),
                                  _mm512_loadu_ps(p + 16));
  if (s <= 4) {
    const __m512i idx =
        _mm512_mullo_epi32(_mm512_and_si512(iota, _mm512_set1_epi32(7)), _mm512_set1_epi32((int)s));
    const __m512 a = _mm512_permutex2var_ps(_mm512_loadu_ps(p), idx, _mm512_loadu_ps(p + 16));
    const __m512 b =
        _mm512_permutex2var_ps(_mm512_loadu_ps(p + 8 * s), idx, _mm512_loadu_ps(p + 8 * s + 16));
    return _mm512_mask_blend_ps(0xFF00, a, b);
  }
  return _mm512_i32gather_ps(_mm512_mullo_epi32(iota, _mm512_set1_epi32((int)s)), p, 4);
}

/* Phase r of the s-way split of the 16 s lanes a, b, c, d (see vec_scalar.h; s and r
 * compile-time constants). s = 2: one two-source permute. s = 3: lanes with 3i + r < 32 by a
 * two-source permute of the first two vectors, the others by a masked permute of the third with the
 * same index (vpermt2ps reads its low 5 bits, vpermps its low 4, and 3i + r - 32 = 3i + r
 * mod 16). s = 4: two rounds of even/odd splits; the first round is the same for every
 * phase (the compiler computes it once), so the 4 phases take 8 permutes, not 12. */
static inline vf vf_phase(vf a, vf b, vf c, vf d, int s, int r) {
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i ev = _mm512_add_epi32(iota, iota), od = _mm512_add_epi32(ev, _mm512_set1_epi32(1));
  if (s == 1) return a;
  if (s == 2) return _mm512_permutex2var_ps(a, r ? od : ev, b);
  if (s == 3) {
    const __m512i idx = _mm512_add_epi32(_mm512_add_epi32(ev, iota), _mm512_set1_epi32(r));
    const __mmask16 from_c = (__mmask16)(0xFFFFu << ((34 - r) / 3)); /* 3i + r >= 32 */
    return _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, idx, b), from_c, idx, c);
  }
  const __m512i first = r & 1 ? od : ev, second = r & 2 ? od : ev;
  return _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, first, b), second,
                                _mm512_permutex2var_ps(c, first, d));
}
/* The same split of p[0 .. 16 s). */
static inline vf vf_load_phase_f32(const float *p, int s, int r) {
  const vf a = _mm512_loadu_ps(p);
  return vf_phase(a, s > 1 ? _mm512_loadu_ps(p + 16) : a, s > 2 ? _mm512_loadu_ps(p + 32) : a,
                  s > 3 ? _mm512_loadu_ps(p + 48) : a, s, r);
}
/* A lookup in the 32 lanes lo:hi: lane i = lo[ix[i]] for ix[i] < 16, hi[ix[i] - 16] for
 * ix[i] < 32, else fill[i]. ix: 16 indexes in 0..32, from vf_idx_load (a value, so that a
 * caller keeps its tables in registers). One two-source permute and a blend. */
#define VF_HAVE_PICK32 1
typedef __m512i vf_idx;
static inline vf_idx vf_idx_load(const int32_t *p) { return _mm512_loadu_si512(p); }
static inline __attribute__((always_inline)) vf vf_pick32(vf lo, vf hi, vf_idx ix, vf fill) {
  return _mm512_mask_blend_ps(_mm512_cmplt_epu32_mask(ix, _mm512_set1_epi32(32)), fill,
                              _mm512_permutex2var_ps(lo, ix, hi));
}
/* Phase r of the 2-way split of bf16 p[0 .. 32) as f32: one load, as a bf16 pair per 32-bit
 * lane is (even, odd) = (low half, high half), and a bf16 is the high half of its f32. */
#define VF_HAVE_PHASE2_BF16 1
static inline vf vf_phase2_bf16(const uint16_t *p, int r) {
  const __m512i v = _mm512_loadu_si512(p);
  return _mm512_castsi512_ps(r ? _mm512_and_si512(v, _mm512_set1_epi32((int)0xFFFF0000u))
                               : _mm512_slli_epi32(v, 16));
}
/* The 16 lanes starting n lanes into a, continued by b (see vec_scalar.h): one valignd. */
static inline __attribute__((always_inline)) vf vf_shift_in(vf a, vf b, int n) {
  const __m512i x = _mm512_castps_si512(a), y = _mm512_castps_si512(b);
  switch (n) {
    case 1: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 1));
    case 2: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 2));
    case 3: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 3));
    case 4: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 4));
    case 5: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 5));
    case 6: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 6));
    case 7: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 7));
    case 8: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 8));
    case 9: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 9));
    case 10: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 10));
    case 11: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 11));
    case 12: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 12));
    case 13: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 13));
    case 14: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 14));
    case 15: return _mm512_castsi512_ps(_mm512_alignr_epi32(y, x, 15));
    case 16: return b;
    default: return a;
  }
}

/* vf_max_nan over the lanes by the fixed tree of vec_scalar.h. */
static inline __m128 nkl__max_nan4(__m128 acc, __m128 x) {
  return _mm_blendv_ps(_mm_max_ps(x, acc), x, _mm_cmpunord_ps(x, x));
}
static inline float vf_reduce_max_nan(vf a) {
  const __m256 lo = _mm512_castps512_ps256(a), hi = _mm512_extractf32x8_ps(a, 1);
  const __m256 t8 =
      _mm256_blendv_ps(_mm256_max_ps(hi, lo), hi, _mm256_cmp_ps(hi, hi, _CMP_UNORD_Q));
  const __m128 t4 = nkl__max_nan4(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
  const __m128 t2 = nkl__max_nan4(t4, _mm_movehl_ps(t4, t4));
  return _mm_cvtss_f32(nkl__max_nan4(t2, _mm_shuffle_ps(t2, t2, 1)));
}
/* The first n lanes of a (0 <= n <= 16), fill in the others. */
static inline vf vf_keep_first(vf a, int64_t n, float fill) {
  return _mm512_mask_mov_ps(_mm512_set1_ps(fill), (__mmask16)((1u << n) - 1u), a);
}
/* a > b ? a : b per lane (b where either is NaN). */
static inline vf vf_max_num(vf a, vf b) { return _mm512_max_ps(a, b); }
/* Bit i set where !(a[i] < b[i]): a >= b, or either is NaN. */
static inline uint32_t vf_mask_not_less(vf a, vf b) {
  return (uint32_t)_mm512_cmp_ps_mask(a, b, _CMP_NLT_UQ);
}

/* Stream compaction of lane numbers (see vec_scalar.h): vpcompressd into a register and a
 * full 16-lane store (the contract allows writing all of dst[0..16)). The memory form of
 * vpcompressd was 8% faster on Zen 5 but is microcoded on Zen 4 (on the order of 100 cycles
 * per instruction, in the hot loop of top-k), so one binary uses the form that is fast on
 * both. */
static inline int vf_compress_lanes(int32_t *dst, int32_t base, uint32_t m) {
  const __m512i v =
      _mm512_add_epi32(_mm512_set1_epi32(base),
                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  _mm512_storeu_si512((void *)dst, _mm512_maskz_compress_epi32((__mmask16)m, v));
  return __builtin_popcount(m);
}
/* Four of them over lanes base .. base + 63 (mask q for lanes 16 q ..): one broadcast of
 * base for the four. Per 16 lanes, top-k's collect pass runs the compare, the compress (two
 * uops) and the broadcast on port 5 on Intel; sharing the broadcast takes a quarter of those
 * off (Xeon guest, 8 rows of 65536 in cache, k = 2048, min of 300 calls: 226-233 -> 218-222
 * us). */
#define VF_HAVE_COMPRESS_LANES4 1 /* vec_common.h has the portable version */
static inline int vf_compress_lanes4(int32_t *dst, int32_t base, uint32_t m0, uint32_t m1,
                                     uint32_t m2, uint32_t m3) {
  const __m512i b =
      _mm512_add_epi32(_mm512_set1_epi32(base),
                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  const __m512i v16 = _mm512_set1_epi32(16);
  const __m512i b1 = _mm512_add_epi32(b, v16), b2 = _mm512_add_epi32(b1, v16),
                b3 = _mm512_add_epi32(b2, v16);
  int n = 0;
  _mm512_storeu_si512((void *)dst, _mm512_maskz_compress_epi32((__mmask16)m0, b));
  n += __builtin_popcount(m0);
  _mm512_storeu_si512((void *)(dst + n), _mm512_maskz_compress_epi32((__mmask16)m1, b1));
  n += __builtin_popcount(m1);
  _mm512_storeu_si512((void *)(dst + n), _mm512_maskz_compress_epi32((__mmask16)m2, b2));
  n += __builtin_popcount(m2);
  _mm512_storeu_si512((void *)(dst + n), _mm512_maskz_compress_epi32((__mmask16)m3, b3));
  return n + __builtin_popcount(m3);
}

/* The reductions of 16 vectors at once: lane p of the result is vf_reduce_add(v[p]) (resp.
 * vf_reduce_max_nan(v[p])), by the same tree with the same operand order (acc = lower lanes,
 * x = upper lanes), hence the same bits. Each level combines two vectors' halves with two
 * shuffles and one op, 15 combines for 16 reductions instead of 16 trees of 4 levels: the
 * shapes with many small planes (global pooling of 7x7 planes) spent their time in the
 * trees. Level 1 pairs (v[2p], v[2p+1]) by 256-bit halves, level 2 by 128-bit blocks,
 * levels 3 and 4 within blocks; lane 4L + j then holds plane 4j + L, undone by a permute. */
static inline vf nkl__reduce16(const vf *v, int max) {
#define NKL_R16_OP(lo, hi) (max ? vf_max_nan(lo, hi) : vf_add(lo, hi))
  vf c[8], e[4], g[2];
  for (int p = 0; p < 8; p++)
    c[p] = NKL_R16_OP(_mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0x44),
                      _mm512_shuffle_f32x4(v[2 * p], v[2 * p + 1], 0xEE));
  for (int q = 0; q < 4; q++)
    e[q] = NKL_R16_OP(_mm512_shuffle_f32x4(c[2 * q], c[2 * q + 1], 0x88),
                      _mm512_shuffle_f32x4(c[2 * q], c[2 * q + 1], 0xDD));
  for (int t = 0; t < 2; t++)
    g[t] = NKL_R16_OP(_mm512_shuffle_ps(e[2 * t], e[2 * t + 1], 0x44),
                      _mm512_shuffle_ps(e[2 * t], e[2 * t + 1], 0xEE));
  const vf r = NKL_R16_OP(_mm512_shuffle_ps(g[0], g[1], 0x88), _mm512_shuffle_ps(g[0], g[1], 0xDD));
#undef NKL_R16_OP
  return _mm512_permutexvar_ps(
      _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), r);
}
/* p[0..n) -> its exclusive prefix sums (mod 2^32), 16 at a time; returns the total. In a
 * vector v: the inclusive scan is four shifted adds, v += v shifted up by 1, 2, 4, 8 lanes
 * (zeros shifted in); exclusive = inclusive - v + carry, and the carry gains the inclusive
 * scan's last lane. The scalar loop is a load, a store and a dependent add per element;
 * top-k's radix sort scans 2 x 4096 bins per row. */
#define VF_HAVE_EXCLUSIVE_SCAN 1 /* vec_common.h has the portable version */
static inline uint32_t vu_exclusive_scan(uint32_t *p, int64_t n) {
  const __m512i zero = _mm512_setzero_si512(), last = _mm512_set1_epi32(15);
  __m512i carry = zero;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i v = _mm512_loadu_si512((const void *)(p + i));
    __m512i s = _mm512_add_epi32(v, _mm512_alignr_epi32(v, zero, 15));
    s = _mm512_add_epi32(s, _mm512_alignr_epi32(s, zero, 14));
    s = _mm512_add_epi32(s, _mm512_alignr_epi32(s, zero, 12));
    s = _mm512_add_epi32(s, _mm512_alignr_epi32(s, zero, 8));
    _mm512_storeu_si512((void *)(p + i), _mm512_add_epi32(_mm512_sub_epi32(s, v), carry));
    carry = _mm512_add_epi32(carry, _mm512_permutexvar_epi32(last, s));
  }
  uint32_t sum = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(carry));
  for (; i < n; i++) {
    const uint32_t c = p[i];
    p[i] = sum;
    sum += c;
  }
  return sum;
}
#define VF_HAVE_E4M3_X4 1 /* vec_common.h has the portable versions */
#define VF_HAVE_REDUCE16 1

/* vec_common.h's partial-vector buffer (vf_load_n, vf_store_n, vh_load_n, ...): one masked
 * load or store of bytes [0, bytes), which neither reads nor writes (nor faults on) the
 * bytes past it, instead of a call to memcpy: with the call in a loop that ends in a
 * partial vector, GCC spilled the live vectors around it (a pool row of 6 f16 outputs stored
 * its 12 bytes through memcpy@plt). */
#define VF_HAVE_BYTES_N 1
static inline __mmask64 nkl__bytes_mask(size_t bytes) {
  return bytes >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << bytes) - 1;
}
static inline void vf_bytes_in(unsigned char *buf, const void *src, size_t bytes) {
  _mm512_store_si512((void *)buf, _mm512_maskz_loadu_epi8(nkl__bytes_mask(bytes), src));
}
/* Up to 32 bytes (16-bit lanes) load only the 32 the vector store wrote: a 64-byte load of a
 * 32-byte store is not forwarded and waits for the store (AdaptiveAvgPool2d on 56x56 f16
 * planes, warm: 27.3-28.2 against 25.5-26.1 us). */
static inline void vf_bytes_out(void *dst, const unsigned char *buf, size_t bytes) {
  if (bytes <= 32)
    _mm256_mask_storeu_epi8(dst, (__mmask32)nkl__bytes_mask(bytes),
                            _mm256_load_si256((const __m256i *)buf));
  else
    _mm512_mask_storeu_epi8(dst, nkl__bytes_mask(bytes), _mm512_load_si512((const void *)buf));
}
static inline vf vf_reduce_add16(const vf *v) { return nkl__reduce16(v, 0); }
static inline vf vf_reduce_max_nan16(const vf *v) { return nkl__reduce16(v, 1); }

/* Fixed tree: lanes i and i+8, then i and i+4, i and i+2, i and i+1. */
static inline float vf_reduce_add(vf a) {
  const __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(a), _mm512_extractf32x8_ps(a, 1));
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

/* 16-bit order keys (see vec_scalar.h and nkl__key16): vh is 32 int16 lanes in one zmm;
 * key lanes inside a vf are int32. key: m = x ^ ((x >> 15) & 0x7FFF) (one vpsraw and one
 * vpternlogd), minus c; unkey: m = k + c, then the same xor. */
#define VH_LANES 32
typedef __m512i vh;
static inline vh vh_load(const void *p) { return _mm512_loadu_si512(p); }
static inline void vh_store(void *p, vh a) { _mm512_storeu_si512(p, a); }
static inline vh vh_set1(int16_t x) { return _mm512_set1_epi16(x); }
static inline vh vh_max(vh a, vh b) { return _mm512_max_epi16(a, b); }
/* m ^ ((m >> 15) & 0x7FFF): the key's flip, its own inverse. */
static inline vh nkl__vh_flip(vh m) {
  return _mm512_xor_si512(m, _mm512_and_si512(_mm512_srai_epi16(m, 15), _mm512_set1_epi16(0x7FFF)));
}
static inline vh vh_key(vh x, int c) {
  return _mm512_sub_epi16(nkl__vh_flip(x), _mm512_set1_epi16((int16_t)c));
}
static inline vh vh_keep_first(vh a, int64_t n, int16_t fill) {
  return _mm512_mask_mov_epi16(_mm512_set1_epi16(fill), (__mmask32)((1ull << n) - 1u), a);
}
/* Signed max of 8 int16 lanes: phminposuw finds the unsigned minimum, and 0x7FFF - k (mod
 * 2^16) turns the signed order around into the unsigned one. */
static inline int16_t nkl__reduce_max_epi16x8(__m128i q) {
  const __m128i u = _mm_sub_epi16(_mm_set1_epi16(0x7FFF), q);
  return (int16_t)(uint16_t)(0x7FFF - (_mm_cvtsi128_si32(_mm_minpos_epu16(u)) & 0xFFFF));
}
static inline int16_t vh_reduce_max(vh a) {
  const __m256i m = _mm256_max_epi16(_mm512_castsi512_si256(a), _mm512_extracti64x4_epi64(a, 1));
  return nkl__reduce_max_epi16x8(
      _mm_max_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1)));
}
/* Lanes 0..15 (lo) or 16..31 (hi) of the keys a, sign-extended as vf_load_k16 gives them. */
static inline vf vh_k32_lo(vh a) {
  return _mm512_castsi512_ps(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(a)));
}
static inline vf vh_k32_hi(vh a) {
  return _mm512_castsi512_ps(_mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(a, 1)));
}
static inline vf vf_load_k16(const int16_t *p) {
  return _mm512_castsi512_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)p)));
}
/* A key pair per 32-bit lane is (even, odd) = (low half, high half): arithmetic shifts
 * sign-extend either half. */
static inline vf vf_phase2_k16(const int16_t *p, int r) {
  const __m512i v = _mm512_loadu_si512(p);
  return _mm512_castsi512_ps(r ? _mm512_srai_epi32(v, 16)
                               : _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16));
}
static inline vf vf_imax(vf a, vf b) {
  return _mm512_castsi512_ps(_mm512_max_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
static inline int32_t vf_reduce_imax(vf a) {
  return _mm512_reduce_max_epi32(_mm512_castps_si512(a));
}
/* Key rows (pool_key_rows): lanes 0, S, 2S, .. 31S of the S vectors m[0..S), taken as one
 * row of 32 S lanes (S = 1..4). The word permutes use the low 6 bits of a two-source index
 * (5 of a one-source one), so one index vector S l serves every step: S = 2 one vpermt2w,
 * S = 3 one vpermt2w and a masked vpermw of m[2] into lanes 22..31, S = 4 two vpermt2w and
 * a blend at lane 16. */
#define VH_HAVE_PHASE 1
#define VH_PHASE_MAX_S 4
static inline __attribute__((always_inline)) vh vh_phase(const vh *m, int S) {
  const __m512i iota = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,
                                        16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i idx = _mm512_mullo_epi16(iota, _mm512_set1_epi16((int16_t)S));
  if (S == 1) return m[0];
  const __m512i t = _mm512_permutex2var_epi16(m[0], idx, m[1]);
  if (S == 2) return t;
  if (S == 3) return _mm512_mask_permutexvar_epi16(t, 0xFFC00000u, idx, m[2]);
  return _mm512_mask_blend_epi16(0xFFFF0000u, t, _mm512_permutex2var_epi16(m[2], idx, m[3]));
}
/* The values of 32 keys (unkey: m = k + c, then the key's xor), all or the first n lanes. */
static inline vh vh_unkey(vh k, int c) {
  return nkl__vh_flip(_mm512_add_epi16(k, _mm512_set1_epi16((int16_t)c)));
}
#define VH_HAVE_STORE_N 1
static inline void vh_store_n(void *p, vh a, int64_t n) {
  _mm512_mask_storeu_epi16(p, (__mmask32)(n >= 32 ? ~0ull : (1ull << n) - 1u), a);
}
static inline __attribute__((always_inline)) void vf_store_unkey16(uint16_t *p, vf a, int c) {
  const __m256i m = _mm256_add_epi16(_mm512_cvtepi32_epi16(_mm512_castps_si512(a)),
                                     _mm256_set1_epi16((int16_t)c));
  _mm256_storeu_si256(
      (__m256i *)p,
      _mm256_xor_si256(m, _mm256_and_si256(_mm256_srai_epi16(m, 15), _mm256_set1_epi16(0x7FFF))));
}

#endif
