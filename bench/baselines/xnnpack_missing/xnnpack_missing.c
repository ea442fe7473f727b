/* Built instead of bench/baselines/xnnpack/ when XNNPACK is not installed. */
#include "baseline.h"

const char *xnnpack_version(void) { return "not available (nkl built without libxnnpack-dev)"; }

int xnnpack_candidates(bl_row *row, bl_candidate *c, int max) {
  (void)row;
  if (max < 1) return 0;
  bl_candidate_mark(
      c, "xnnpack_nhwc", "open-source library", BL_UNAVAILABLE,
      "nkl was built without XNNPACK (apt-get install libxnnpack-dev libpthreadpool-dev)");
  return 1;
}
