/* Built instead of bench/baselines/xnnpack/ when XNNPACK is not installed. */
#include <stdio.h>
#include <string.h>

#include "baseline.h"

const char *xnnpack_version(void) { return "not available (nkl built without libxnnpack-dev)"; }

int xnnpack_candidates(bl_row *row, bl_candidate *c, int max) {
  (void)row;
  if (max < 1) return 0;
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "xnnpack_nhwc");
  snprintf(c->tier, sizeof c->tier, "open-source library");
  c->status = BL_UNAVAILABLE;
  snprintf(c->reason, sizeof c->reason,
           "nkl was built without XNNPACK (apt-get install libxnnpack-dev libpthreadpool-dev)");
  return 1;
}
