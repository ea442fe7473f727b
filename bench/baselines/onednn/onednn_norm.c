/* oneDNN layer normalization (LayerNormFwd), batch normalization, reductions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
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
  if (any)
    md_any(&data_md, x);
  else
    data_md = xmd;
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
  case_info *info = row->info;
  nkl_tensor *x = bl_arg(info, "x"), *y = bl_arg(info, "y"), *w = bl_arg(info, "weight"),
             *b = bl_arg(info, "bias"), *rm = bl_arg(info, "running_mean"),
             *rv = bl_arg(info, "running_var");
  if (!x || !y || !w || !b || !rm || !rv) {
    snprintf(why, len, "case lacks batch-norm tensors");
    return -1;
  }
  const bool train = strcmp(row->desc.op, "BatchNormFwd") == 0;
  dnnl_memory_desc_t xmd, data_md, cmd;
  dn_plain_md(&xmd, x, dnnl_data_type_undef);
  data_md = xmd;
  if (any) { /* batch norm needs a defined layout: channels-last for the preferred candidate */
    if (x->rank < 3) {
      snprintf(why, len, "no other layout for a 2-D batch (not applicable)");
      return -1;
    }
    dnnl_dims_t dd;
    for (int i = 0; i < x->rank; i++) dd[i] = x->shape[i];
    dnnl_memory_desc_init_by_tag(&data_md, x->rank, dd, dn_dtype(x->dtype),
                                 dn_channels_last_tag(x->rank));
  }
  md_vec(&cmd, x->shape[1]);
  unsigned flags = dnnl_use_scale | dnnl_use_shift;
  if (!train) flags |= dnnl_use_global_stats;
  dnnl_batch_normalization_desc_t bd;
  if (dnnl_batch_normalization_forward_desc_init(
          &bd, train ? dnnl_forward_training : dnnl_forward_inference, &data_md, 1e-5f, flags) !=
      dnnl_success) {
    snprintf(why, len, "oneDNN: batch normalization descriptor rejected (unsupported)");
    return -1;
  }
  if (dn_create(s, &bd, NULL, why, len) < 0) return -1;
  int rc = dn_bind(s, DNNL_ARG_SRC, dn_query_md(s, dnnl_query_src_md, 0), x->data, &xmd, false);
  rc |= dn_bind(s, DNNL_ARG_DST, dn_query_md(s, dnnl_query_dst_md, 0), y->data, &xmd, true);
  (void)md_any;
  rc |= dn_bind(s, DNNL_ARG_SCALE, &cmd, w->data, &cmd, false);
  rc |= dn_bind(s, DNNL_ARG_SHIFT, &cmd, b->data, &cmd, false);
  /* Training: batch statistics out (running-stat update not part of the primitive);
   * inference: the running statistics in. */
  rc |= dn_bind(s, DNNL_ARG_MEAN, &cmd, train ? NULL : rm->data, &cmd, train);
  rc |= dn_bind(s, DNNL_ARG_VARIANCE, &cmd, train ? NULL : rv->data, &cmd, train);
  const dnnl_memory_desc_t *ws = dn_query_md(s, dnnl_query_workspace_md, 0);
  if (ws && ws->ndims > 0) rc |= dn_bind(s, DNNL_ARG_WORKSPACE, ws, NULL, ws, true);
  if (rc) {
    snprintf(why, len, "oneDNN: cannot bind batch normalization memory");
    return -1;
  }
  return 0;
}

int dn_reduction(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  (void)any;
  case_info *info = row->info;
  nkl_tensor *x = bl_arg(info, "x"), *y = bl_arg(info, "y");
  if (!x || !y) {
    snprintf(why, len, "case lacks x/y");
    return -1;
  }
  int64_t dims[DESC_MAX_LIST];
  int nd = 0;
  char err[160];
  const bool has_dim = desc_ints(&row->desc, "dim", dims, DESC_MAX_LIST, &nd, err, sizeof err) == 0;
  dnnl_memory_desc_t xmd, ymd;
  dn_plain_md(&xmd, x, dnnl_data_type_undef);
  dnnl_dims_t yd;
  for (int i = 0; i < x->rank; i++) {
    bool red = !has_dim;
    for (int k = 0; k < nd && has_dim; k++) red |= dims[k] == i;
    yd[i] = red ? 1 : x->shape[i];
  }
  dnnl_memory_desc_init_by_tag(&ymd, x->rank, yd, dn_dtype(y->dtype), dn_plain_tag(x->rank));
  const float p = strcmp(row->desc.op, "L1NormFwd") == 0 ? 1.0f : 2.0f;
  dnnl_reduction_desc_t rd;
  if (dnnl_reduction_desc_init(&rd, dnnl_reduction_norm_lp_sum, &xmd, &ymd, p, 0.0f) !=
      dnnl_success) {
    snprintf(why, len, "oneDNN: reduction descriptor rejected (unsupported)");
    return -1;
  }
  if (dn_create(s, &rd, NULL, why, len) < 0) return -1;
  int rc = dn_bind(s, DNNL_ARG_SRC, &xmd, x->data, &xmd, false);
  rc |= dn_bind(s, DNNL_ARG_DST, &ymd, y->data, &ymd, true);
  if (rc) {
    snprintf(why, len, "oneDNN: cannot bind reduction memory");
    return -1;
  }
  return 0;
}

/* GroupNormFwd as oneDNN layer normalization over x viewed as [N*G, C/G*spatial] (the
 * emulation of the oneDNN docs). Only rows without affine: per-channel weight and bias
 * would need a second primitive, which is no longer the same one-primitive baseline. */
int dn_groupnorm(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  (void)any;
  case_info *info = row->info;
  nkl_tensor *x = bl_arg(info, "x"), *y = bl_arg(info, "y");
  if (!x || !y) {
    snprintf(why, len, "case lacks x/y");
    return -1;
  }
  if (bl_arg(info, "weight")) {
    snprintf(why, len,
             "oneDNN 2.6 has no group norm; its layer-norm emulation has no per-channel affine");
    return -1;
  }
  int64_t g = 1;
  bl_ints(&row->desc, "num_groups", 1, 1, &g);
  int64_t n = 1;
  for (int i = 0; i < x->rank; i++) n *= x->shape[i];
  dnnl_dims_t dd = {x->shape[0] * g, n / (x->shape[0] * g)}, sd = {x->shape[0] * g};
  dnnl_memory_desc_t md, smd;
  dnnl_memory_desc_init_by_tag(&md, 2, dd, dn_dtype(x->dtype), dnnl_ab);
  dnnl_memory_desc_init_by_tag(&smd, 1, sd, dnnl_f32, dnnl_a);
  dnnl_layer_normalization_desc_t ld;
  if (dnnl_layer_normalization_forward_desc_init(&ld, dnnl_forward_inference, &md, &smd, 1e-5f,
                                                 0) != dnnl_success) {
    snprintf(why, len, "oneDNN: layer normalization descriptor rejected (unsupported)");
    return -1;
  }
  if (dn_create(s, &ld, NULL, why, len) < 0) return -1;
  int rc = dn_bind(s, DNNL_ARG_SRC, &md, x->data, &md, false);
  rc |= dn_bind(s, DNNL_ARG_DST, &md, y->data, &md, true);
  if (rc) {
    snprintf(why, len, "oneDNN: cannot bind memory");
    return -1;
  }
  return 0;
}

/* BatchNormBwd: backward (data + scale/shift) from x, dy, weight and the batch statistics
 * (variance = 1/rstd^2 - eps, computed during setup). */
int dn_batchnorm_bwd(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  case_info *info = row->info;
  nkl_tensor *x = bl_arg(info, "x"), *dy = bl_arg(info, "dy"), *w = bl_arg(info, "weight"),
             *m = bl_arg(info, "mean"), *r = bl_arg(info, "rstd"), *dx = bl_arg(info, "dx"),
             *dw = bl_arg(info, "dw"), *db = bl_arg(info, "db");
  if (!x || !dy || !w || !m || !r || !dx || !dw || !db) {
    snprintf(why, len, "case lacks batch-norm backward tensors");
    return -1;
  }
  dnnl_memory_desc_t xmd, data_md, cmd;
  dn_plain_md(&xmd, x, dnnl_data_type_undef);
  data_md = xmd;
  if (any) {
    if (x->rank < 3) {
      snprintf(why, len, "no other layout for a 2-D batch (not applicable)");
      return -1;
    }
    dnnl_dims_t dd;
    for (int i = 0; i < x->rank; i++) dd[i] = x->shape[i];
    dnnl_memory_desc_init_by_tag(&data_md, x->rank, dd, dn_dtype(x->dtype),
                                 dn_channels_last_tag(x->rank));
  }
  md_vec(&cmd, x->shape[1]);
  const float eps = 1e-5f;
  dnnl_batch_normalization_desc_t fd, bd;
  const unsigned flags = dnnl_use_scale | dnnl_use_shift;
  if (dnnl_batch_normalization_forward_desc_init(&fd, dnnl_forward_training, &data_md, eps,
                                                 flags) != dnnl_success ||
      dnnl_batch_normalization_backward_desc_init(&bd, dnnl_backward, &data_md, &data_md, eps,
                                                  flags) != dnnl_success) {
    snprintf(why, len, "oneDNN: batch normalization descriptor rejected (unsupported)");
    return -1;
  }
  char tmp[200];
  if (dn_create(s, &fd, NULL, tmp, sizeof tmp) < 0) {
    snprintf(why, len, "%s (forward hint)", tmp);
    return -1;
  }
  s->hint = s->pd;
  s->pd = NULL;
  dnnl_primitive_destroy(s->prim);
  s->prim = NULL;
  if (dn_create(s, &bd, NULL, why, len) < 0) return -1;
  float *var = NULL;
  for (int i = 0; i < 4 && !var; i++)
    if (!s->owned[i]) var = s->owned[i] = malloc(sizeof(float) * (size_t)x->shape[1]);
  if (!var) return -1;
  for (int64_t c = 0; c < x->shape[1]; c++) {
    const float rs = ((float *)r->data)[c];
    var[c] = 1.0f / (rs * rs) - eps;
  }
  int rc = dn_bind(s, DNNL_ARG_SRC, dn_query_md(s, dnnl_query_src_md, 0), x->data, &xmd, false);
  rc |= dn_bind(s, DNNL_ARG_DIFF_DST, dn_query_md(s, dnnl_query_diff_dst_md, 0), dy->data, &xmd,
                false);
  rc |= dn_bind(s, DNNL_ARG_MEAN, &cmd, m->data, &cmd, false);
  rc |= dn_bind(s, DNNL_ARG_VARIANCE, &cmd, var, &cmd, false);
  rc |= dn_bind(s, DNNL_ARG_SCALE, &cmd, w->data, &cmd, false);
  rc |= dn_bind(s, DNNL_ARG_DIFF_SRC, dn_query_md(s, dnnl_query_diff_src_md, 0), dx->data, &xmd,
                true);
  rc |= dn_bind(s, DNNL_ARG_DIFF_SCALE, &cmd, dw->data, &cmd, true);
  rc |= dn_bind(s, DNNL_ARG_DIFF_SHIFT, &cmd, db->data, &cmd, true);
  const dnnl_memory_desc_t *ws = dn_query_md(s, dnnl_query_workspace_md, 0);
  if (ws && ws->ndims > 0) rc |= dn_bind(s, DNNL_ARG_WORKSPACE, ws, NULL, ws, true);
  if (rc) {
    snprintf(why, len, "oneDNN: cannot bind batch normalization memory");
    return -1;
  }
  return 0;
}
