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

#define VF_MAP1(expr)                                                                     \
  vf r;                                                                                   \
  for (int i = 0; i < VF_LANES; i++) r.v[i] = (expr);                                     \
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
static inline void vf_store_bf16(uint16_t *p, vf a) {
  for (int i = 0; i < VF_LANES; i++) p[i] = nkl__f32_to_bf16(a.v[i]);
}
static inline void vf_store_f16(uint16_t *p, vf a) {
  for (int i = 0; i < VF_LANES; i++) p[i] = nkl__f32_to_f16(a.v[i]);
}

/* No streaming stores in portable C: plain stores. */
static inline void vf_stream_f32(float *p, vf a) { vf_store_f32(p, a); }
static inline void vf_stream_16(uint16_t *p, vf a, void (*store)(uint16_t *, vf)) { store(p, a); }
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

#undef VF_MAP1
#endif
