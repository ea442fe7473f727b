/* Dtype conversion kernels (nkl_convert): contract between convert.c and convert_<isa>.c. */
#ifndef NKL_CORE_CONVERT_H
#define NKL_CORE_CONVERT_H

#include <stdint.h>

#include "nkl.h"

typedef struct convert_args {
  const void *src;
  void *dst;
} convert_args;

/* Every (source, destination) pair between distinct float storage types. */
#define NKL_CONVERT_PAIRS(X)               \
  X(f32, NKL_F32, f16, NKL_F16)            \
  X(f32, NKL_F32, bf16, NKL_BF16)          \
  X(f32, NKL_F32, fp8e4m3, NKL_FP8_E4M3)   \
  X(f16, NKL_F16, f32, NKL_F32)            \
  X(f16, NKL_F16, bf16, NKL_BF16)          \
  X(f16, NKL_F16, fp8e4m3, NKL_FP8_E4M3)   \
  X(bf16, NKL_BF16, f32, NKL_F32)          \
  X(bf16, NKL_BF16, f16, NKL_F16)          \
  X(bf16, NKL_BF16, fp8e4m3, NKL_FP8_E4M3) \
  X(fp8e4m3, NKL_FP8_E4M3, f32, NKL_F32)   \
  X(fp8e4m3, NKL_FP8_E4M3, f16, NKL_F16)   \
  X(fp8e4m3, NKL_FP8_E4M3, bf16, NKL_BF16)

#endif
