/* Compiled with AVX2+FMA flags (CMake rule for *_avx2.c). */
#include <immintrin.h>

#include "calib_kernels.h"

float calib_fma_f32_avx2(int64_t iters) {
  __m256 acc[16];
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < 16; i++) acc[i] = _mm256_set1_ps((float)i);
  for (int64_t it = 0; it < iters; it++) {
    for (int i = 0; i < 16; i++) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 16; i++) s = _mm256_add_ps(s, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}
