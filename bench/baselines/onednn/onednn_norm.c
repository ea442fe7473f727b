/* oneDNN layer normalization (LayerNormFwd), batch normalization, reductions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn_internal.h"

float *dn_f32_copy(dn_state *s, const nkl_tensor *t) {
  int slot = 0;
  while (slot < 4 && s->owned[slot]) slot++;
  if (slot == 4) return NULL;
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->shape[i];
  float *p = malloc((size_t)n * sizeof(float));
  if (!p) return NULL;
  for (int64_t i = 0; i < n; i++) p[i] = (float)nkl_get(t->data, t->dtype, i);
  s->owned[slot] = p;
  return p;
}

static void md_any(dnnl_memory_desc_t *md, const nkl_tensor *t) {
  dnnl_dims_t dims;
  for (int i = 0; i < t->rank; i++) dims[i] = t->shape[i];
  dnnl_memory_desc_init_by_tag(md, t->rank, dims, dn_dtype(t->dtype), dnnl_format_tag_any);
}

static void md_vec(dnnl_memory_desc_t *md, int64_t n) {
  dnnl_dims_t dims = {n};
  dnnl_memory_desc_init_by_tag(md, 1, dims, dnnl_f32, dnnl_a);
}

static int ln_fetch(dn_state *s, case_info *info, char *missing, size_t len) {
  nkl_tensor *rstd = bl_arg(info, "rstd");
  const float *var = dn_arg_data(s, DNNL_ARG_VARIANCE);
  if (rstd && var) {
    float *r = rstd->data;
    for (int64_t i = 0; i < rstd->shape[0]; i++) r[i] = 1.0f / sqrtf(var[i] + (float)s->eps);
  }
  snprintf(missing, len, "rstd derived from oneDNN's variance");
  return 1;
}

int dn_layernorm(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  case_info *info = row->info;
  nkl_tensor *x = bl_arg(info, "x"), *y = bl_arg(info, "y"), *w = bl_arg(info, "weight"),
             *b = bl_arg(info, "bias"), *mean = bl_arg(info, "mean");
  if (!x || !y) {
    snprintf(why, len, "case has no x/y tensors");
    return -1;
  }
  double eps = 1e-5;
  char err[160];
  desc_double(&row->desc, "eps", &eps, err, sizeof err);
  s->eps = eps;
  dnnl_memory_desc_t xmd, data_md, smd, vmd;
  dn_plain_md(&xmd, x, dnnl_data_type_undef);
  if (any) md_any(&data_md, x);
  else data_md = xmd;
  dnnl_dims_t sd;
  int64_t m = 1;
  for (int i = 0; i < x->rank - 1; i++) sd[i] = x->shape[i], m *= x->shape[i];
  dnnl_memory_desc_init_by_tag(&smd, x->rank - 1 > 0 ? x->rank - 1 : 1, sd, dnnl_f32,
                               dn_plain_tag(x->rank - 1 > 0 ? x->rank - 1 : 1));
  const unsigned flags = (w ? dnnl_use_scale : 0u) | (b ? dnnl_use_shift : 0u);
  dnnl_layer_normalization_desc_t ld;
  if (dnnl_layer_normalization_forward_desc_init(&ld, dnnl_forward_training, &data_md, &smd,
                                                 (float)eps, flags) != dnnl_success) {
    snprintf(why, len, "oneDNN: %s layer normalization descriptor rejected (unsupported)",
             any ? "format-any" : "plain");
    return -1;
  }
  if (dn_create(s, &ld, NULL, why, len) < 0) return -1;
  if (dn_bind(s, DNNL_ARG_SRC, dn_query_md(s, dnnl_query_src_md, 0), x->data, &xmd, false) < 0 ||
      dn_bind(s, DNNL_ARG_DST, dn_query_md(s, dnnl_query_dst_md, 0), y->data, &xmd, true) < 0)
    goto fail;
  dnnl_memory_desc_t wmd;
  md_vec(&wmd, x->shape[x->rank - 1]);
  if (w) {
    float *wf = dn_f32_copy(s, w);
    if (!wf || dn_bind(s, DNNL_ARG_SCALE, &wmd, wf, &wmd, false) < 0) goto fail;
  }
  if (b) {
    float *bf = dn_f32_copy(s, b);
    if (!bf || dn_bind(s, DNNL_ARG_SHIFT, &wmd, bf, &wmd, false) < 0) goto fail;
  }
  (void)m;
  vmd = smd;
  if (dn_bind(s, DNNL_ARG_MEAN, &smd, mean ? mean->data : NULL, &smd, true) < 0 ||
      dn_bind(s, DNNL_ARG_VARIANCE, &vmd, NULL, &vmd, true) < 0)
    goto fail;
  s->fetch = ln_fetch;
  return 0;
fail:
  snprintf(why, len, "oneDNN: cannot bind layer normalization memory");
  return -1;
}

int dn_batchnorm(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  (void)row, (void)s, (void)any;
  snprintf(why, len, "not wired yet: no C-side inputs for this op");
  return -1;
}

int dn_reduction(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  (void)row, (void)s, (void)any;
  snprintf(why, len, "not wired yet: no C-side inputs for this op");
  return -1;
}
