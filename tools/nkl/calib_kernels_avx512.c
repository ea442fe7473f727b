/* Compiled with AVX-512 flags (CMake rule for *_avx512.c). */
#include <immintrin.h>

#include "calib_kernels.h"

float calib_fma_f32_avx512(int64_t iters) {
  __m512 acc[16];
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 16; i++) acc[i] = _mm512_set1_ps((float)i);
  for (int64_t it = 0; it < iters; it++) {
    for (int i = 0; i < 16; i++) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 16; i++) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}
