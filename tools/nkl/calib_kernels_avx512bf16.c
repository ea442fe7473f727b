/* Compiled with AVX-512 BF16 + VNNI flags (CMake rule for *_avx512bf16.c). */
#include <immintrin.h>

#include "calib_kernels.h"

float calib_dpbf16_avx512bf16(int64_t iters) {
  __m512 acc[16];
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80), b = (__m512bh)_mm512_set1_epi16(0x3380);
  for (int i = 0; i < 16; i++) acc[i] = _mm512_set1_ps((float)i);
  for (int64_t it = 0; it < iters; it++) {
    for (int i = 0; i < 16; i++) acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 16; i++) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}

int32_t calib_dpbusd_avx512bf16(int64_t iters) {
  __m512i acc[16];
  const __m512i a = _mm512_set1_epi8(1), b = _mm512_set1_epi8(-1);
  for (int i = 0; i < 16; i++) acc[i] = _mm512_set1_epi32(i);
  for (int64_t it = 0; it < iters; it++) {
    for (int i = 0; i < 16; i++) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  }
  /* Sum with wrap-around in unsigned arithmetic (the value only keeps the work alive). */
  uint32_t lanes[16], sum = 0;
  for (int i = 0; i < 16; i++) {
    _mm512_storeu_si512(lanes, acc[i]);
    for (int k = 0; k < 16; k++) sum += lanes[k];
  }
  return (int32_t)(sum & 0x7fffffff);
}
