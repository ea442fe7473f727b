/* Built instead of bench/baselines/onednn/ when oneDNN is not installed. */
#include "baseline.h"

const char *onednn_version(void) { return "not available (nkl built without libdnnl-dev)"; }

int onednn_candidates(bl_row *row, bl_candidate *c, int max) {
  (void)row;
  if (max < 1) return 0;
  bl_candidate_mark(c, "onednn", "vendor library", BL_UNAVAILABLE,
                    "nkl was built without oneDNN (apt-get install libdnnl-dev)");
  return 1;
}
