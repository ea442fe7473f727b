/* Public entry point of the top-k selector: validate, pick the kernel, split rows across
 * threads. */
#include <stdlib.h>

#include "core/internal.h"
#include "topk/topk.h"

void f32_topk_selector_fwd__scalar(const void *a, int64_t r0, int64_t r1);
void f32_topk_selector_fwd__avx2(const void *a, int64_t r0, int64_t r1);
void f32_topk_selector_fwd__avx512(const void *a, int64_t r0, int64_t r1);

/* Ordered best first, scalar last. */
static const nkl_kernel_entry kKernels[] = {
#if defined(__x86_64__)
    {"f32_topk_selector_fwd__avx512", NKL_ISA_AVX512, 0,
     (void (*)(void))f32_topk_selector_fwd__avx512},
    {"f32_topk_selector_fwd__avx2", NKL_ISA_AVX2, 0, (void (*)(void))f32_topk_selector_fwd__avx2},
#endif
    {"f32_topk_selector_fwd__scalar", NKL_ISA_SCALAR, 0,
     (void (*)(void))f32_topk_selector_fwd__scalar},
};

static nkl_status check_i32(const nkl_tensor *t, const char *what, int rank) {
  nkl_status s = nkl__check_tensor(t, what);
  if (s) return s;
  if (t->dtype != NKL_I32)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "topk_selector_fwd: %s must be i32, got %s", what,
                     nkl_dtype_name(t->dtype));
  if (t->rank != rank)
    return nkl__fail(NKL_ERR_BAD_RANK, "topk_selector_fwd: %s must have rank %d, got %d", what,
                     rank, t->rank);
  if (!nkl__is_contiguous(t))
    return nkl__fail(NKL_ERR_BAD_STRIDE, "topk_selector_fwd: %s must be contiguous", what);
  return NKL_OK;
}

nkl_status nkl_topk_selector_fwd(const nkl_tensor *scores, const nkl_tensor *starts,
                                 const nkl_tensor *ends, int64_t topk, nkl_tensor *indices) {
  nkl__begin("topk_selector_fwd");
  nkl_status s;
  if ((s = nkl__check_tensor(scores, "index_score"))) return s;
  if (scores->dtype != NKL_F32)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "topk_selector_fwd: index_score must be f32, got %s",
                     nkl_dtype_name(scores->dtype));
  if (scores->rank != 4)
    return nkl__fail(NKL_ERR_BAD_RANK,
                     "topk_selector_fwd: index_score must be [B, S, S_kv, G] (rank 4), got rank %d",
                     scores->rank);
  if (!nkl__is_contiguous(scores))
    return nkl__fail(NKL_ERR_BAD_STRIDE, "topk_selector_fwd: index_score must be contiguous");
  if ((s = check_i32(starts, "starts", 2)) || (s = check_i32(ends, "ends", 2)) ||
      (s = check_i32(indices, "indices", 4)))
    return s;
  const int64_t B = scores->shape[0], S = scores->shape[1], S_kv = scores->shape[2],
                G = scores->shape[3];
  if (starts->shape[0] != B || starts->shape[1] != S || ends->shape[0] != B || ends->shape[1] != S)
    return nkl__fail(NKL_ERR_BAD_SHAPE,
                     "topk_selector_fwd: starts and ends must be [B, S] = [%lld, %lld]",
                     (long long)B, (long long)S);
  if (topk < 1 || topk > S_kv)
    return nkl__fail(NKL_ERR_BAD_PARAM, "topk_selector_fwd: topk %lld outside [1, S_kv = %lld]",
                     (long long)topk, (long long)S_kv);
  if (indices->shape[0] != B || indices->shape[1] != S || indices->shape[2] != G ||
      indices->shape[3] != topk)
    return nkl__fail(
        NKL_ERR_BAD_SHAPE,
        "topk_selector_fwd: indices must be [B, S, G, topk] = [%lld, %lld, %lld, %lld]",
        (long long)B, (long long)S, (long long)G, (long long)topk);
  if (S_kv > INT32_MAX - 64)
    return nkl__fail(NKL_ERR_BAD_SHAPE,
                     "topk_selector_fwd: S_kv %lld does not fit the int32 indices",
                     (long long)S_kv);
  if (nkl__overlaps(indices, scores) || nkl__overlaps(indices, starts) ||
      nkl__overlaps(indices, ends))
    return nkl__fail(NKL_ERR_ALIAS, "topk_selector_fwd: indices overlaps an input");
  const nkl_kernel_entry *k = nkl__select(kKernels, sizeof kKernels / sizeof kKernels[0], 0);
  if (!k) return nkl__fail(NKL_ERR_INTERNAL, "topk_selector_fwd: no kernel");

  const int64_t rows = B * S * G;
  const int threads = nkl__threads_for(rows, nkl__numel(scores) * 4);
  topk_args a = {0};
  atomic_int slot = 0;
  a.scores = scores->data, a.starts = starts->data, a.ends = ends->data, a.out = indices->data;
  a.S = S, a.S_kv = S_kv, a.G = G, a.k = topk;
  a.scratch_len = topk_scratch_words(S_kv);
  /* indices larger than the cache would not survive in it: stream whole rows of them */
  a.stream = nkl__use_streaming_stores(indices->data, topk * 4, rows * topk * 4, 64);
  a.slot = &slot;
  a.scratch = malloc((size_t)threads * (size_t)a.scratch_len * 4);
  if (!a.scratch)
    return nkl__fail(NKL_ERR_ALLOC, "topk_selector_fwd: no memory for %d x %lld words of scratch",
                     threads, (long long)a.scratch_len);
  /* Rows are independent and each result is exact, so the split never changes a result. */
  nkl__parallel_range(threads, rows, (nkl_range_fn)k->fn, &a);
  free(a.scratch);
  nkl__ran_kernel("topk_selector_fwd", k->name);
  return NKL_OK;
}
