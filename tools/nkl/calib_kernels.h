/* Compute-peak kernels of `nkl calibrate`: each runs `iters` iterations of 16 independent
 * accumulator chains on the calling thread and returns a value the caller must keep (so
 * the work is not optimized away). Operations per call: iters * 16 * ops_per_instr. */
#ifndef NKL_TOOL_CALIB_KERNELS_H
#define NKL_TOOL_CALIB_KERNELS_H

#include <stdint.h>

/* f32 FMA on zmm: 16 lanes x 2 flops = 32 flops per instruction. */
float calib_fma_f32_avx512(int64_t iters);
/* vdpbf16ps on zmm: 32 bf16 pairs = 64 flops per instruction. */
float calib_dpbf16_avx512bf16(int64_t iters);
/* vpdpbusd on zmm: 64 u8 x s8 products + adds = 128 ops per instruction. */
int32_t calib_dpbusd_avx512bf16(int64_t iters);
/* f32 FMA on ymm (AVX2 + FMA): 16 flops per instruction. */
float calib_fma_f32_avx2(int64_t iters);

#endif
