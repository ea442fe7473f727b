/* oneDNN convolution (fwd, bwd data, bwd weights, deconvolution) and pooling. */
#include <stdio.h>

#include "onednn_internal.h"

int dn_pool(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  (void)row, (void)s, (void)any;
  snprintf(why, len, "not wired yet: no C-side inputs for this op");
  return -1;
}

int dn_conv(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  (void)row, (void)s, (void)any;
  snprintf(why, len, "not wired yet: no C-side inputs for this op");
  return -1;
}
