/* nkl conv operators. Included by nkl.h; see docs/ops-conv.md. */
#ifndef NKL_CONV_H
#define NKL_CONV_H

#ifdef __cplusplus
extern "C" {
#endif

/* (no conv operators in this build yet) */

#ifdef __cplusplus
}
#endif

#endif /* NKL_CONV_H */
