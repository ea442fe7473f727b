/* Portable shim: the logical vector is 16 f32 lanes in a plain array. Every ISA shim
 * provides the same type `vf` and functions with the same lane semantics, so one kernel
 * body gives identical results on each (see docs/numerics.md, "partial-sum layout"). */
#ifndef NKL_VEC_SCALAR_H
#define NKL_VEC_SCALAR_H

#include "core/convert_scalar.h"

#define NKL_ISA_SUFFIX scalar
#define VF_LANES 16

typedef struct {
  float v[VF_LANES];
} vf;

#define VF_MAP1(expr)                                 \
  vf r;                                               \
  for (int i = 0; i < VF_LANES; i++) r.v[i] = (expr); \
  return r

static inline vf vf_set1(float x) { VF_MAP1(x); }
static inline vf vf_zero(void) { return vf_set1(0.0f); }
static inline vf vf_add(vf a, vf b) { VF_MAP1(a.v[i] + b.v[i]); }
static inline vf vf_sub(vf a, vf b) { VF_MAP1(a.v[i] - b.v[i]); }
static inline vf vf_mul(vf a, vf b) { VF_MAP1(a.v[i] * b.v[i]); }
static inline vf vf_div(vf a, vf b) { VF_MAP1(a.v[i] / b.v[i]); }
/* |a|: clears the sign bit (NaN stays NaN). */
static inline vf vf_abs(vf a) { VF_MAP1(nkl__bits_f32(nkl__f32_bits(a.v[i]) & 0x7FFFFFFFu)); }
/* Running max of magnitudes: max(acc, |b|) on the bit patterns. With the sign cleared, the
 * unsigned order of the bits is the numeric order and every NaN sorts above +inf, so a NaN
 * anywhere wins (unlike maxps). acc must hold magnitudes (sign clear). */
static inline vf vf_absmax(vf acc, vf b) {
  VF_MAP1(nkl__bits_f32(nkl__f32_bits(acc.v[i]) > (nkl__f32_bits(b.v[i]) & 0x7FFFFFFFu)
                            ? nkl__f32_bits(acc.v[i])
                            : (nkl__f32_bits(b.v[i]) & 0x7FFFFFFFu)));
}

static inline vf vf_load_f32(const float *p) { VF_MAP1(p[i]); }
static inline vf vf_load_bf16(const uint16_t *p) { VF_MAP1(nkl__bf16_to_f32(p[i])); }
static inline vf vf_load_f16(const uint16_t *p) { VF_MAP1(nkl__f16_to_f32(p[i])); }

static inline void vf_store_f32(float *p, vf a) {
  for (int i = 0; i < VF_LANES; i++) p[i] = a.v[i];
}
static inline __attribute__((always_inline)) void vf_store_bf16(uint16_t *p, vf a) {
  for (int i = 0; i < VF_LANES; i++) p[i] = nkl__f32_to_bf16(a.v[i]);
}
static inline __attribute__((always_inline)) void vf_store_f16(uint16_t *p, vf a) {
  for (int i = 0; i < VF_LANES; i++) p[i] = nkl__f32_to_f16(a.v[i]);
}

/* No streaming stores in portable C: plain stores. */
static inline void vf_stream_f32(float *p, vf a) { vf_store_f32(p, a); }
static inline void vf_stream_f16(uint16_t *p, vf a) { vf_store_f16(p, a); }
static inline void vf_stream_bf16(uint16_t *p, vf a) { vf_store_bf16(p, a); }
static inline void vf_stream_line(uint8_t *p, const uint8_t *t) { memcpy(p, t, 64); }
static inline void vf_stream_fence(void) {}

/* Fixed tree: lanes i and i+8, then i and i+4, i and i+2, i and i+1. */
static inline float vf_reduce_add(vf a) {
  float s[8];
  for (int i = 0; i < 8; i++) s[i] = a.v[i] + a.v[i + 8];
  for (int i = 0; i < 4; i++) s[i] = s[i] + s[i + 4];
  for (int i = 0; i < 2; i++) s[i] = s[i] + s[i + 2];
  return s[0] + s[1];
}

/* Largest lane of a vector of magnitudes (vf_absmax order: NaN wins). */
static inline float vf_reduce_absmax(vf a) {
  uint32_t m = 0;
  for (int i = 0; i < VF_LANES; i++)
    if (nkl__f32_bits(a.v[i]) > m) m = nkl__f32_bits(a.v[i]);
  return nkl__bits_f32(m);
}

/* f32 -> fp8 e4m3 codes of the 16 lanes (exactly nkl__f32_to_fp8e4m3). */
static inline void vf_store_e4m3(uint8_t *p, vf a) {
  for (int i = 0; i < VF_LANES; i++) p[i] = nkl__f32_to_fp8e4m3(a.v[i]);
}
/* The same for lanes known to be finite with |a| < 464 (no saturation, no NaN code); the
 * vector shims drop those two steps. */
static inline void vf_store_e4m3_finite(uint8_t *p, vf a) { vf_store_e4m3(p, a); }

/* NaN-propagating running max, PyTorch's max-pool rule `if (x > acc || isnan(x)) acc = x`:
 * x where x is NaN or x > acc, else acc (so acc's NaN stays, and of equal values the earlier
 * one, e.g. -0 before +0, is kept). */
static inline vf vf_max_nan(vf acc, vf x) {
  VF_MAP1((x.v[i] != x.v[i] || x.v[i] > acc.v[i]) ? x.v[i] : acc.v[i]);
}
/* -0 becomes +0 and NaN lanes the default NaN 0xFFC00000 (x86's "real indefinite", what
 * inf - inf gives): which NaN an add returns depends on operand order, which compilers may
 * swap; this makes NaN results identical on every ISA. The +0 is the sign a sum started from
 * +0 has. */
static inline vf vf_fix_zero_nan(vf a) {
  VF_MAP1(a.v[i] != a.v[i] ? nkl__bits_f32(0xFFC00000u) : a.v[i] + 0.0f);
}
/* Lanes p[0], p[s], ..., p[15 s] for 1 <= s < 2^26. Other ISAs may read further, up to
 * p[16 s + 15] (full vectors around the lanes); callers keep that memory valid. */
static inline vf vf_load_strided_f32(const float *p, int64_t s) { VF_MAP1(p[i * s]); }
/* Phase ph of the s-way split of p[0 .. 16 s) (0 <= ph < s <= 4): lane i is p[s i + ph].
 * Other ISAs may read all of p[0 .. 16 s). */
static inline vf vf_load_phase_f32(const float *p, int s, int ph) { VF_MAP1(p[s * i + ph]); }
/* The same split of the 16 s lanes of a, b, c, d in that order (vectors past the s-th are
 * not read): lane i is lane s i + ph of the concatenation. */
static inline vf vf_phase(vf a, vf b, vf c, vf d, int s, int ph) {
  const vf *v[4] = {&a, &b, &c, &d};
  VF_MAP1(v[(s * i + ph) / VF_LANES]->v[(s * i + ph) % VF_LANES]);
}
/* The 16 lanes starting n lanes into a, continued by b (0 <= n <= 16): lane i is a[i + n]
 * for i + n < 16, else b[i + n - 16]. n is a compile-time constant at every call site. */
static inline __attribute__((always_inline)) vf vf_shift_in(vf a, vf b, int n) {
  VF_MAP1(i + n < VF_LANES ? a.v[i + n] : b.v[i + n - VF_LANES]);
}

/* vf_max_nan over the lanes by the fixed tree (i, i+8), (i, i+4), (i, i+2), (i, i+1), lane
 * i as the running value and lane i+w as the new one. */
static inline float vf_reduce_max_nan(vf a) {
  for (int w = VF_LANES / 2; w >= 1; w /= 2)
    for (int i = 0; i < w; i++)
      a.v[i] = (a.v[i + w] != a.v[i + w] || a.v[i + w] > a.v[i]) ? a.v[i + w] : a.v[i];
  return a.v[0];
}
/* The first n lanes of a (0 <= n <= 16), fill in the others. */
static inline vf vf_keep_first(vf a, int64_t n, float fill) { VF_MAP1(i < n ? a.v[i] : fill); }
/* a > b ? a : b per lane (b where either is NaN): the x86 vmaxps rule. */
static inline vf vf_max_num(vf a, vf b) { VF_MAP1(a.v[i] > b.v[i] ? a.v[i] : b.v[i]); }
/* Bit i set where !(a[i] < b[i]): a >= b, or either is NaN. */
static inline uint32_t vf_mask_not_less(vf a, vf b) {
  uint32_t m = 0;
  for (int i = 0; i < VF_LANES; i++) m |= (uint32_t) !(a.v[i] < b.v[i]) << i;
  return m;
}

/* Stream compaction of lane numbers: writes base + l for each set bit l of m (ascending) to
 * dst[0..popcount(m)) and returns the count. Branch-free; may write all of dst[0..16). */
static inline int vf_compress_lanes(int32_t *dst, int32_t base, uint32_t m) {
  int n = 0;
  for (int l = 0; l < VF_LANES; l++) {
    dst[n] = base + l;
    n += (int)((m >> l) & 1u);
  }
  return n;
}

/* 16-bit order keys (see nkl__key16): 32 lanes of int16 for the f16/bf16 max pools' vertical
 * pass, and key lanes sign-extended to int32 inside a vf (a vf then holds integers, not
 * floats: only the functions below, moves and vf_shift_in / vf_phase / vf_keep_first apply). */
#define VH_LANES 32
typedef struct {
  int16_t v[VH_LANES];
} vh;
static inline vh vh_load(const void *p) {
  vh r;
  memcpy(r.v, p, sizeof r.v);
  return r;
}
static inline void vh_store(void *p, vh a) { memcpy(p, a.v, sizeof a.v); }
static inline vh vh_set1(int16_t x) {
  vh r;
  for (int i = 0; i < VH_LANES; i++) r.v[i] = x;
  return r;
}
static inline vh vh_max(vh a, vh b) {
  for (int i = 0; i < VH_LANES; i++) a.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i];
  return a;
}
/* The keys of 32 raw 16-bit floats. */
static inline vh vh_key(vh x, int c) {
  for (int i = 0; i < VH_LANES; i++) x.v[i] = nkl__key16((uint16_t)x.v[i], c);
  return x;
}
/* The first n lanes of a (0 <= n <= 32), fill in the others. */
static inline vh vh_keep_first(vh a, int64_t n, int16_t fill) {
  for (int i = 0; i < VH_LANES; i++) a.v[i] = i < n ? a.v[i] : fill;
  return a;
}
static inline int16_t vh_reduce_max(vh a) {
  int16_t m = a.v[0];
  for (int i = 1; i < VH_LANES; i++) m = a.v[i] > m ? a.v[i] : m;
  return m;
}
static inline float nkl__i32_lane(int32_t k) { return nkl__bits_f32((uint32_t)k); }
static inline int32_t nkl__lane_i32(float f) { return (int32_t)nkl__f32_bits(f); }
/* 16 keys p[0..16), sign-extended. */
static inline vf vf_load_k16(const int16_t *p) { VF_MAP1(nkl__i32_lane(p[i])); }
/* Phase ph of the s-way split of the keys p[0 .. 16 s) (see vf_load_phase_f32). Written
 * as one loop here: composed from vf_phase, it made GCC 12 -O3 crash (internal compiler
 * error in the vectorizer). */
#define VF_HAVE_LOAD_PHASE_K16 1
static inline vf vf_load_phase_k16(const int16_t *p, int s, int ph) {
  VF_MAP1(nkl__i32_lane(p[s * i + ph]));
}
static inline vf vf_phase2_k16(const int16_t *p, int ph) { return vf_load_phase_k16(p, 2, ph); }
/* Signed max of the key lanes. */
static inline vf vf_imax(vf a, vf b) {
  VF_MAP1(nkl__lane_i32(a.v[i]) > nkl__lane_i32(b.v[i]) ? a.v[i] : b.v[i]);
}
static inline int32_t vf_reduce_imax(vf a) {
  int32_t m = nkl__lane_i32(a.v[0]);
  for (int i = 1; i < VF_LANES; i++) m = nkl__lane_i32(a.v[i]) > m ? nkl__lane_i32(a.v[i]) : m;
  return m;
}
/* The 16-bit floats of 16 key lanes. */
static inline __attribute__((always_inline)) void vf_store_unkey16(uint16_t *p, vf a, int c) {
  for (int i = 0; i < VF_LANES; i++) p[i] = nkl__unkey16((int16_t)nkl__lane_i32(a.v[i]), c);
}

#undef VF_MAP1

#endif
