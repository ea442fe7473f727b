/* nkl pool operators. Included by nkl.h; see docs/ops-pool.md. */
#ifndef NKL_POOL_H
#define NKL_POOL_H

#ifdef __cplusplus
extern "C" {
#endif

/* (no pool operators in this build yet) */

#ifdef __cplusplus
}
#endif

#endif /* NKL_POOL_H */
