/* oneDNN convolution (fwd, + bias, + ReLU post-op, bwd data, bwd weights), deconvolution
 * (Conv2dTranspose) and pooling, on the rows' plain NC(D)HW tensors or, for the
 * "onednn_any" candidate, on the layouts oneDNN prefers (format any; reorders untimed). */
#include <stdio.h>
#include <string.h>

#include "inputs.h"
#include "onednn_internal.h"

static void md_of(dnnl_memory_desc_t *md, int rank, const int64_t *dims, dnnl_data_type_t dt,
                  bool any, dnnl_format_tag_t plain) {
  dnnl_dims_t dd;
  for (int i = 0; i < rank; i++) dd[i] = dims[i];
  dnnl_memory_desc_init_by_tag(md, rank, dd, dt, any ? dnnl_format_tag_any : plain);
}

static void dims_of(dnnl_dims_t out, const int64_t *v, int n, int64_t minus) {
  for (int i = 0; i < n; i++) out[i] = v[i] - minus;
}

static int fail(char *why, size_t len, const char *what) {
  snprintf(why, len, "oneDNN: %s", what);
  return -1;
}

int dn_conv(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  bl_conv g;
  bl_conv_geometry(&row->desc, &g);
  case_info *info = row->info;
  const nkl_dtype dt = (nkl_dtype)row->desc.dtype;
  const dnnl_data_type_t ddt = dn_dtype(dt);
  if (ddt == dnnl_data_type_undef)
    return fail(why, len, "unsupported dtype (no fp8 in oneDNN 2.6)");
  const int r = 2 + g.nd;
  const bool transpose = g.kind == BL_CONV_TRANSPOSE;
  /* oneDNN's view: src [N, IC, in], weights [(G,) OC/G, IC/G, k], dst [N, OC, out]. For the
   * deconvolution, IC = the row's C_out (its input) and OC = C_in (its output). */
  const int64_t ic = transpose ? g.cout : g.cin, oc = transpose ? g.cin : g.cout;
  int64_t src[5] = {g.n, ic}, dst[5] = {g.n, oc}, wd[6];
  for (int i = 0; i < g.nd; i++) {
    src[2 + i] = transpose ? g.out[i] : g.in[i];
    dst[2 + i] = transpose ? g.in[i] : g.out[i];
  }
  int wr = 0;
  if (g.groups > 1) wd[wr++] = g.groups;
  wd[wr++] = oc / g.groups;
  wd[wr++] = ic / g.groups;
  for (int i = 0; i < g.nd; i++) wd[wr++] = g.k[i];
  /* Plain weight layouts: conv OIHW = row-major; deconv weights are stored [IC, OC/G, k]
   * (PyTorch's conv_transpose layout) = oneDNN iohw / giohw. */
  dnnl_format_tag_t wtag = dn_plain_tag(wr);
  if (transpose) wtag = g.groups > 1 ? dnnl_giohw : dnnl_iohw;
  dnnl_memory_desc_t src_u, dst_u, w_u, b_u, src_p, dst_p, w_p, b_p;
  md_of(&src_u, r, src, ddt, false, dn_plain_tag(r));
  md_of(&dst_u, r, dst, ddt, false, dn_plain_tag(r));
  md_of(&w_u, wr, wd, ddt, false, wtag);
  md_of(&src_p, r, src, ddt, any, dn_plain_tag(r));
  md_of(&dst_p, r, dst, ddt, any, dn_plain_tag(r));
  md_of(&w_p, wr, wd, ddt, any, wtag);
  int64_t bdim = oc;
  md_of(&b_u, 1, &bdim, dnnl_f32, false, dnnl_a);
  b_p = b_u;
  dnnl_dims_t st, dl, pl, pr;
  dims_of(st, g.s, g.nd, 0);
  dims_of(dl, g.dil, g.nd, 1);
  dims_of(pl, g.p, g.nd, 0);
  dims_of(pr, g.pr, g.nd, 0);
  const bool has_bias = g.bias && (g.kind == BL_CONV_FWD || transpose);
  if (transpose) {
    dnnl_deconvolution_desc_t dd;
    if (dnnl_dilated_deconvolution_forward_desc_init(
            &dd, dnnl_forward_inference, dnnl_deconvolution_direct, &src_p, &w_p,
            has_bias ? &b_p : NULL, &dst_p, st, dl, pl, pr) != dnnl_success)
      return fail(why, len, "deconvolution descriptor rejected (unsupported)");
    if (dn_create(s, &dd, NULL, why, len) < 0) return -1;
  } else {
    dnnl_convolution_desc_t fd;
    const dnnl_prop_kind_t prop =
        g.kind == BL_CONV_FWD ? dnnl_forward_inference : dnnl_forward_training;
    if (dnnl_dilated_convolution_forward_desc_init(&fd, prop, dnnl_convolution_direct, &src_p, &w_p,
                                                   has_bias ? &b_p : NULL, &dst_p, st, dl, pl,
                                                   pr) != dnnl_success)
      return fail(why, len, "convolution descriptor rejected (unsupported)");
    if (g.kind == BL_CONV_FWD) {
      dnnl_primitive_attr_t attr = NULL;
      if (g.relu) {
        dnnl_post_ops_t po;
        dnnl_post_ops_create(&po);
        dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f);
        dnnl_primitive_attr_create(&attr);
        dnnl_primitive_attr_set_post_ops(attr, po);
        dnnl_post_ops_destroy(po);
      }
      const int rc = dn_create(s, &fd, attr, why, len);
      if (attr) dnnl_primitive_attr_destroy(attr);
      if (rc < 0) return -1;
    } else {
      /* Backward primitives need the forward one as a hint. */
      char tmp[200];
      if (dn_create(s, &fd, NULL, tmp, sizeof tmp) < 0) {
        snprintf(why, len, "%s (forward hint)", tmp);
        return -1;
      }
      s->hint = s->pd;
      s->pd = NULL;
      dnnl_primitive_destroy(s->prim);
      s->prim = NULL;
      dnnl_convolution_desc_t bd;
      dnnl_status_t stt;
      if (g.kind == BL_CONV_DGRAD)
        stt = dnnl_dilated_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &src_p,
                                                               &w_p, &dst_p, st, dl, pl, pr);
      else
        stt = dnnl_dilated_convolution_backward_weights_desc_init(
            &bd, dnnl_convolution_direct, &src_p, &w_p, NULL, &dst_p, st, dl, pl, pr);
      if (stt != dnnl_success)
        return fail(why, len, "backward convolution descriptor rejected (unsupported)");
      if (dn_create(s, &bd, NULL, why, len) < 0) return -1;
    }
  }
  int rc = 0;
  if (g.kind == BL_CONV_FWD || transpose) {
    rc |= dn_bind(s, DNNL_ARG_SRC, dn_query_md(s, dnnl_query_src_md, 0), bl_arg(info, "x")->data,
                  &src_u, false);
    rc |= dn_bind(s, DNNL_ARG_WEIGHTS, dn_query_md(s, dnnl_query_weights_md, 0),
                  bl_arg(info, "weight")->data, &w_u, false);
    if (has_bias) {
      float *bf = dn_f32_copy(s, bl_arg(info, "bias"));
      rc |= !bf || dn_bind(s, DNNL_ARG_BIAS, &b_u, bf, &b_u, false);
    }
    rc |= dn_bind(s, DNNL_ARG_DST, dn_query_md(s, dnnl_query_dst_md, 0), bl_arg(info, "y")->data,
                  &dst_u, true);
  } else if (g.kind == BL_CONV_DGRAD) {
    rc |= dn_bind(s, DNNL_ARG_DIFF_DST, dn_query_md(s, dnnl_query_diff_dst_md, 0),
                  bl_arg(info, "dy")->data, &dst_u, false);
    rc |= dn_bind(s, DNNL_ARG_WEIGHTS, dn_query_md(s, dnnl_query_weights_md, 0),
                  bl_arg(info, "weight")->data, &w_u, false);
    rc |= dn_bind(s, DNNL_ARG_DIFF_SRC, dn_query_md(s, dnnl_query_diff_src_md, 0),
                  bl_arg(info, "dx")->data, &src_u, true);
  } else {
    rc |= dn_bind(s, DNNL_ARG_SRC, dn_query_md(s, dnnl_query_src_md, 0), bl_arg(info, "x")->data,
                  &src_u, false);
    rc |= dn_bind(s, DNNL_ARG_DIFF_DST, dn_query_md(s, dnnl_query_diff_dst_md, 0),
                  bl_arg(info, "dy")->data, &dst_u, false);
    rc |= dn_bind(s, DNNL_ARG_DIFF_WEIGHTS, dn_query_md(s, dnnl_query_diff_weights_md, 0),
                  bl_arg(info, "dw")->data, &w_u, true);
  }
  if (rc) return fail(why, len, "cannot bind convolution memory");
  return 0;
}

int dn_pool(bl_row *row, dn_state *s, bool any, char *why, size_t len) {
  bl_pool g;
  bl_pool_geometry(&row->desc, &g);
  case_info *info = row->info;
  const dnnl_data_type_t ddt = dn_dtype((nkl_dtype)row->desc.dtype);
  if (!bl_arg(info, "x") || !bl_arg(info, "y"))
    return fail(why, len, "the case has no tensors named x and y (adapter/baseline name mismatch)");
  if (!g.max && g.include_pad) {
    for (int i = 0; i < g.nd; i++)
      if (g.pr[i] > g.p[i]) {
        snprintf(why, len,
                 "ceil_mode with count_include_pad is not supported: oneDNN counts the overhang "
                 "past the padding "
                 "in the divisor, PyTorch does not");
        return -1;
      }
  }
  const int r = 2 + g.nd;
  int64_t src[5] = {g.n, g.c}, dst[5] = {g.n, g.c};
  for (int i = 0; i < g.nd; i++) src[2 + i] = g.in[i], dst[2 + i] = g.out[i];
  dnnl_memory_desc_t src_u, dst_u, src_p, dst_p;
  md_of(&src_u, r, src, ddt, false, dn_plain_tag(r));
  md_of(&dst_u, r, dst, ddt, false, dn_plain_tag(r));
  /* Pooling needs a defined source layout: the "preferred" candidate uses channels-last,
   * oneDNN's fastest pooling layout here. */
  md_of(&src_p, r, src, ddt, false, any ? dn_channels_last_tag(r) : dn_plain_tag(r));
  md_of(&dst_p, r, dst, ddt, false, any ? dn_channels_last_tag(r) : dn_plain_tag(r));
  dnnl_dims_t st, k, dl, pl, pr;
  dims_of(st, g.s, g.nd, 0);
  dims_of(k, g.k, g.nd, 0);
  dims_of(dl, g.dil, g.nd, 1);
  dims_of(pl, g.p, g.nd, 0);
  dims_of(pr, g.pr, g.nd, 0);
  const dnnl_alg_kind_t alg = g.max           ? dnnl_pooling_max
                              : g.include_pad ? dnnl_pooling_avg_include_padding
                                              : dnnl_pooling_avg_exclude_padding;
  dnnl_pooling_v2_desc_t pd;
  if (dnnl_pooling_v2_forward_desc_init(&pd, dnnl_forward_inference, alg, &src_p, &dst_p, st, k, dl,
                                        pl, pr) != dnnl_success)
    return fail(why, len, "pooling descriptor rejected (unsupported)");
  if (dn_create(s, &pd, NULL, why, len) < 0) return -1;
  int rc = dn_bind(s, DNNL_ARG_SRC, dn_query_md(s, dnnl_query_src_md, 0), bl_arg(info, "x")->data,
                   &src_u, false);
  rc |= dn_bind(s, DNNL_ARG_DST, dn_query_md(s, dnnl_query_dst_md, 0), bl_arg(info, "y")->data,
                &dst_u, true);
  /* Max pooling in inference mode needs no workspace; bind one if the primitive asks. */
  const dnnl_memory_desc_t *ws = dn_query_md(s, dnnl_query_workspace_md, 0);
  if (ws && ws->ndims > 0) rc |= dn_bind(s, DNNL_ARG_WORKSPACE, ws, NULL, ws, true);
  return rc ? fail(why, len, "cannot bind pooling memory") : 0;
}
