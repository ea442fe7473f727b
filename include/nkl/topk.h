/* nkl topk operators. Included by nkl.h; see docs/ops-topk.md. */
#ifndef NKL_TOPK_H
#define NKL_TOPK_H

#ifdef __cplusplus
extern "C" {
#endif

/* TopkSelectorFwd, the top-k stage of a sparse-attention indexer (DeepSeek-V3.2):
 * index_score [B, S, S_kv, G] f32, starts and ends [B, S] i32, all contiguous; indices
 * [B, S, G, topk] i32, contiguous, 1 <= topk <= S_kv. For each (b, s, g): the positions j
 * of [starts[b,s], ends[b,s]) ∩ [0, S_kv) with the largest scores, in descending score
 * order, ties to the lower index; NaN ranks above +inf (like torch.topk) and -0 equals +0.
 * Slots a short window cannot fill are -1. Exact: the result does not depend on the ISA or
 * the thread count. */
nkl_status nkl_topk_selector_fwd(const nkl_tensor *index_score, const nkl_tensor *starts,
                                 const nkl_tensor *ends, int64_t topk, nkl_tensor *indices);

#ifdef __cplusplus
}
#endif

#endif /* NKL_TOPK_H */
