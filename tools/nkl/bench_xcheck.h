/* nkl bench's cross-check of candidates for ops without an oracle adapter yet: every
 * candidate's outputs against a reference candidate's, on the same inputs. */
#ifndef NKL_TOOLS_BENCH_XCHECK_H
#define NKL_TOOLS_BENCH_XCHECK_H

#include <stdbool.h>

#include "baseline.h"

typedef struct xcheck {
  int done; /* 1: compared with the reference */
  bool agrees;
  double max_rel; /* max |got - ref| / max |ref| over all outputs */
  char note[160];
} xcheck;

/* Fills xc[0 .. nbl) for the candidates bl whose timed calls tk[k] succeeded (tk[k] NULL:
 * the candidate did not run). The reference is PyTorch eager (the program that defines the
 * op), else the first candidate that ran; the tolerance is 8 units of the output dtype's
 * roundoff + 1e-4 of max |reference|. A candidate that disagrees is flagged, not rated. */
void cross_check(bl_candidate *bl, int nbl, const timing *const *tk, case_info *info, xcheck *xc);

#endif
