#include <stdio.h>
#include <string.h>

#include "internal.h"

static const size_t kSizes[NKL_DTYPE_COUNT] = {4, 2, 2, 1, 1, 4};
static const char *const kNames[NKL_DTYPE_COUNT] = {"f32", "f16", "bf16", "fp8e4m3", "i8", "i32"};

NKL_ENTRY_TEXT size_t nkl_dtype_size(nkl_dtype dtype) {
  return (dtype >= 0 && dtype < NKL_DTYPE_COUNT) ? kSizes[dtype] : 0;
}

const char *nkl_dtype_name(nkl_dtype dtype) {
  return (dtype >= 0 && dtype < NKL_DTYPE_COUNT) ? kNames[dtype] : "unknown";
}

int nkl_dtype_parse(const char *name) {
  static const struct {
    const char *name;
    nkl_dtype dtype;
  } kAliases[] = {{"float32", NKL_F32},  {"fp32", NKL_F32},      {"float16", NKL_F16},
                  {"fp16", NKL_F16},     {"half", NKL_F16},      {"bfloat16", NKL_BF16},
                  {"fp8", NKL_FP8_E4M3}, {"e4m3", NKL_FP8_E4M3}, {"float8_e4m3fn", NKL_FP8_E4M3},
                  {"int8", NKL_I8},      {"int32", NKL_I32}};
  if (!name) return -1;
  for (int i = 0; i < NKL_DTYPE_COUNT; i++)
    if (strcmp(name, kNames[i]) == 0) return i;
  for (size_t i = 0; i < sizeof kAliases / sizeof kAliases[0]; i++)
    if (strcmp(name, kAliases[i].name) == 0) return (int)kAliases[i].dtype;
  return -1;
}

nkl_tensor nkl_tensor_make(nkl_dtype dtype, int rank, const int64_t *shape, void *data) {
  nkl_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dtype;
  t.data = data;
  if (rank < 0 || rank > NKL_MAX_RANK || (rank > 0 && !shape)) {
    t.rank = -1;
    return t;
  }
  t.rank = rank;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; i--) {
    t.shape[i] = shape[i];
    t.strides[i] = stride;
    stride *= shape[i] > 0 ? shape[i] : 1;
  }
  return t;
}

const char *nkl__shape_str(const nkl_tensor *t, char *buf, size_t len) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, len - n, "[");
  for (int i = 0; i < t->rank && n < len; i++)
    n += (size_t)snprintf(buf + n, len - n, i ? ",%lld" : "%lld", (long long)t->shape[i]);
  if (n < len) snprintf(buf + n, len - n, "]");
  return buf;
}

NKL_ENTRY_TEXT nkl_status nkl__check_tensor(const nkl_tensor *t, const char *what) {
  if (!t) return nkl__fail(NKL_ERR_NULL_POINTER, "%s is NULL", what);
  if (t->dtype < 0 || t->dtype >= NKL_DTYPE_COUNT)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s has unknown dtype %d", what, (int)t->dtype);
  if (t->rank < 0 || t->rank > NKL_MAX_RANK)
    return nkl__fail(NKL_ERR_BAD_RANK, "%s has rank %d (allowed 0..%d)", what, t->rank,
                     NKL_MAX_RANK);
  if (!t->data) return nkl__fail(NKL_ERR_NULL_POINTER, "%s->data is NULL", what);
  /* The largest element offset and the byte size must fit in int64 (and size_t). */
  const int64_t kMax = INT64_MAX / 16;
  int64_t numel = 1, span = 0;
  for (int i = 0; i < t->rank; i++) {
    if (t->shape[i] <= 0)
      return nkl__fail(NKL_ERR_BAD_SHAPE, "%s dim %d is %lld (must be >= 1)", what, i,
                       (long long)t->shape[i]);
    if (t->strides[i] < 0)
      return nkl__fail(NKL_ERR_BAD_STRIDE, "%s stride %d is negative (%lld)", what, i,
                       (long long)t->strides[i]);
    if (numel > kMax / t->shape[i])
      return nkl__fail(NKL_ERR_OVERFLOW, "%s element count overflows", what);
    numel *= t->shape[i];
    if (t->strides[i] > 0 && t->shape[i] - 1 > (kMax - span) / t->strides[i])
      return nkl__fail(NKL_ERR_OVERFLOW, "%s strides overflow", what);
    span += (t->shape[i] - 1) * t->strides[i];
  }
  if ((uint64_t)numel > SIZE_MAX / 16)
    return nkl__fail(NKL_ERR_OVERFLOW, "%s byte size overflows", what);
  return NKL_OK;
}

NKL_ENTRY_TEXT int64_t nkl__numel(const nkl_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->shape[i];
  return n;
}

NKL_ENTRY_TEXT bool nkl__is_contiguous(const nkl_tensor *t) {
  int64_t s = 1;
  for (int i = t->rank - 1; i >= 0; i--) {
    if (t->shape[i] != 1 && t->strides[i] != s) return false;
    s *= t->shape[i];
  }
  return true;
}

NKL_ENTRY_TEXT nkl_status nkl__as_rows(const nkl_tensor *t, const char *what, int64_t *rows,
                                       int64_t *cols, int64_t *row_stride) {
  if (t->rank < 1)
    return nkl__fail(NKL_ERR_BAD_RANK, "%s must have rank >= 1 (got %d)", what, t->rank);
  const int last = t->rank - 1;
  if (t->shape[last] != 1 && t->strides[last] != 1)
    return nkl__fail(NKL_ERR_BAD_STRIDE, "%s last dimension must be contiguous (stride %lld)", what,
                     (long long)t->strides[last]);
  int64_t m = 1, rs = t->shape[last];
  /* Leading dims must nest: stride[i] == stride[i+1] * shape[i+1] (size-1 dims are free). */
  int inner = -1; /* innermost leading dim with extent > 1 */
  for (int i = last - 1; i >= 0; i--) {
    if (t->shape[i] == 1) continue;
    if (inner >= 0 && t->strides[i] != t->strides[inner] * t->shape[inner])
      return nkl__fail(NKL_ERR_BAD_STRIDE,
                       "%s leading dimensions do not collapse into rows of one stride", what);
    if (inner < 0) rs = t->strides[i];
    inner = i;
    m *= t->shape[i];
  }
  if (m > 1 && rs < t->shape[last])
    return nkl__fail(NKL_ERR_BAD_STRIDE, "%s row stride %lld is smaller than the row (%lld)", what,
                     (long long)rs, (long long)t->shape[last]);
  *rows = m;
  *cols = t->shape[last];
  *row_stride = rs;
  return NKL_OK;
}

NKL_ENTRY_TEXT static void byte_range(const nkl_tensor *t, uintptr_t *lo, uintptr_t *hi) {
  int64_t span = 0;
  for (int i = 0; i < t->rank; i++) span += (t->shape[i] - 1) * t->strides[i];
  *lo = (uintptr_t)t->data;
  *hi = *lo + (uintptr_t)((span + 1) * (int64_t)nkl_dtype_size(t->dtype));
}

NKL_ENTRY_TEXT bool nkl__overlaps(const nkl_tensor *a, const nkl_tensor *b) {
  uintptr_t alo, ahi, blo, bhi;
  byte_range(a, &alo, &ahi);
  byte_range(b, &blo, &bhi);
  return alo < bhi && blo < ahi;
}
