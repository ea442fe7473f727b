/* Geometry of the conv and pool rows, shared by the input builder and oneDNN. */
#ifndef NKL_BASELINE_INPUTS_H
#define NKL_BASELINE_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "desc.h"

typedef enum { BL_CONV_FWD, BL_CONV_DGRAD, BL_CONV_WGRAD, BL_CONV_TRANSPOSE } bl_conv_kind;

typedef struct bl_conv {
  int nd;
  bl_conv_kind kind;
  bool causal, relu, bias;
  int64_t n, cin, cout, groups;
  int64_t in[3], out[3], k[3], s[3], p[3], pr[3], dil[3];
  /* Conv2dTranspose: in = the transposed conv's output size, out = its input size. */
} bl_conv;

typedef struct bl_pool {
  int nd;
  bool max, adaptive, ceil, include_pad;
  int64_t n, c;
  int64_t in[3], out[3], k[3], s[3], p[3], pr[3], dil[3];
} bl_pool;

int bl_conv_geometry(nkl_desc *d, bl_conv *g);
int bl_pool_geometry(nkl_desc *d, bl_pool *g);
int bl_ints(nkl_desc *d, const char *key, int nd, int64_t def, int64_t *out);

#endif
