/* Built instead of bench/baselines/onednn/ when oneDNN is not installed. */
#include <stdio.h>
#include <string.h>

#include "baseline.h"

const char *onednn_version(void) { return "not available (nkl built without libdnnl-dev)"; }

int onednn_candidates(bl_row *row, bl_candidate *c, int max) {
  (void)row;
  if (max < 1) return 0;
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "onednn");
  snprintf(c->tier, sizeof c->tier, "vendor library");
  c->status = BL_UNAVAILABLE;
  snprintf(c->reason, sizeof c->reason, "nkl was built without oneDNN (apt-get install libdnnl-dev)");
  return 1;
}
