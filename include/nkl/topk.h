/* nkl topk operators. Included by nkl.h; see docs/ops-topk.md. */
#ifndef NKL_TOPK_H
#define NKL_TOPK_H

#ifdef __cplusplus
extern "C" {
#endif

/* (no topk operators in this build yet) */

#ifdef __cplusplus
}
#endif

#endif /* NKL_TOPK_H */
