/* Public dtype conversion: scalar reference functions and the vectorised nkl_convert. */
#include <string.h>

#include "core/convert.h"
#include "core/convert_scalar.h"
#include "core/internal.h"

float nkl_bf16_to_f32(uint16_t v) { return nkl__bf16_to_f32(v); }
uint16_t nkl_f32_to_bf16(float v) { return nkl__f32_to_bf16(v); }
float nkl_f16_to_f32(uint16_t v) { return nkl__f16_to_f32(v); }
uint16_t nkl_f32_to_f16(float v) { return nkl__f32_to_f16(v); }
float nkl_fp8e4m3_to_f32(uint8_t v) { return nkl__fp8e4m3_to_f32(v); }
uint8_t nkl_f32_to_fp8e4m3(float v) { return nkl__f32_to_fp8e4m3(v); }

#define DECL_ISA(sn, dn, isa) \
  void sn##_to_##dn##_convert__##isa(const void *a, int64_t lo, int64_t hi);
#define DECL(sn, st, dn, dt) \
  DECL_ISA(sn, dn, scalar)   \
  DECL_ISA(sn, dn, avx2) DECL_ISA(sn, dn, avx512) DECL_ISA(sn, dn, avx512bf16)
NKL_CONVERT_PAIRS(DECL)

#define KEY(st, dt) ((int)(st)*16 + (int)(dt))
#define ENTRY(sn, st, dn, dt, isa, level)                \
  {#sn "_to_" #dn "_convert__" #isa, level, KEY(st, dt), \
   (void (*)(void))sn##_to_##dn##_convert__##isa},
#if defined(__x86_64__)
#define X86(sn, st, dn, dt)                             \
  ENTRY(sn, st, dn, dt, avx512bf16, NKL_ISA_AVX512BF16) \
  ENTRY(sn, st, dn, dt, avx512, NKL_ISA_AVX512) ENTRY(sn, st, dn, dt, avx2, NKL_ISA_AVX2)
#else
#define X86(sn, st, dn, dt)
#endif
#define SCALAR(sn, st, dn, dt) ENTRY(sn, st, dn, dt, scalar, NKL_ISA_SCALAR)

static const nkl_kernel_entry kKernels[] = {NKL_CONVERT_PAIRS(X86) NKL_CONVERT_PAIRS(SCALAR)};

static bool is_float_storage(nkl_dtype d) {
  return d == NKL_F32 || d == NKL_F16 || d == NKL_BF16 || d == NKL_FP8_E4M3;
}

nkl_status nkl_convert(const nkl_tensor *src, nkl_tensor *dst) {
  nkl__begin("convert");
  nkl_status s;
  if ((s = nkl__check_tensor(src, "src")) || (s = nkl__check_tensor(dst, "dst"))) return s;
  if (!is_float_storage(src->dtype) || !is_float_storage(dst->dtype))
    return nkl__fail(NKL_ERR_BAD_DTYPE, "convert: %s -> %s (f32, f16, bf16, fp8e4m3 only)",
                     nkl_dtype_name(src->dtype), nkl_dtype_name(dst->dtype));
  if (src->rank != dst->rank) return nkl__fail(NKL_ERR_BAD_SHAPE, "convert: ranks differ");
  for (int i = 0; i < src->rank; i++)
    if (src->shape[i] != dst->shape[i])
      return nkl__fail(NKL_ERR_BAD_SHAPE, "convert: shapes differ at dim %d", i);
  if (!nkl__is_contiguous(src) || !nkl__is_contiguous(dst))
    return nkl__fail(NKL_ERR_BAD_STRIDE, "convert: src and dst must be contiguous");
  if (nkl__overlaps(src, dst) && !(src->data == dst->data && src->dtype == dst->dtype))
    return nkl__fail(NKL_ERR_ALIAS, "convert: src and dst overlap");
  const int64_t n = nkl__numel(src);
  if (src->dtype == dst->dtype) {
    if (src->data != dst->data)
      memmove(dst->data, src->data, (size_t)n * nkl_dtype_size(src->dtype));
    nkl__ran_kernel("convert", "memmove");
    return NKL_OK;
  }
  const nkl_kernel_entry *k =
      nkl__select(kKernels, sizeof kKernels / sizeof kKernels[0], KEY(src->dtype, dst->dtype));
  if (!k) return nkl__fail(NKL_ERR_INTERNAL, "convert: no kernel");
  const convert_args args = {src->data, dst->data};
  const int64_t bytes = n * (int64_t)(nkl_dtype_size(src->dtype) + nkl_dtype_size(dst->dtype));
  const int nt = nkl__threads_for(n / 16 + 1, bytes);
  nkl__parallel_range(nt, n, (nkl_range_fn)k->fn, &args);
  nkl__ran_kernel("convert", k->name);
  return NKL_OK;
}
