/* Inputs for ops that have no nkl adapter yet, so the baselines still run on seeded data
 * (baseline.h). Tensor names and shapes follow the op's PyTorch program
 * (bench/baselines/torch_programs.py); flops and bytes follow operators.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline.h"
#include "inputs.h"

nkl_tensor *bl_arg(case_info *info, const char *name) {
  for (int i = 0; i < info->nargs; i++)
    if (strcmp(info->args[i].name, name) == 0) return &info->args[i].t;
  return NULL;
}

/* key as a list of nd ints, or one int broadcast; default when absent. */
int bl_ints(nkl_desc *d, const char *key, int nd, int64_t def, int64_t *out) {
  char err[160];
  int n = 0;
  int64_t v[DESC_MAX_LIST];
  if (desc_ints(d, key, v, DESC_MAX_LIST, &n, err, sizeof err) == 0 && n >= 1) {
    for (int i = 0; i < nd; i++) out[i] = v[n == nd ? i : 0];
    return 0;
  }
  int64_t one;
  if (desc_int(d, key, &one, err, sizeof err) == 0) {
    for (int i = 0; i < nd; i++) out[i] = one;
    return 0;
  }
  for (int i = 0; i < nd; i++) out[i] = def;
  return 1;
}

static int64_t get1(nkl_desc *d, const char *key, int64_t def) {
  int64_t v = def;
  bl_ints(d, key, 1, def, &v);
  return v;
}

/* The input's spatial sizes: L_in for 1-d ops, else D/H/W followed by suffix ("" for the
 * convolutions, "_in" for the pools). */
static void get_spatial(nkl_desc *d, int nd, const char *suffix, int64_t *in) {
  if (nd == 1) {
    in[0] = get1(d, "L_in", 1);
    return;
  }
  static const char *const kAxis[3] = {"D", "H", "W"};
  for (int i = 0; i < nd; i++) {
    char key[16];
    snprintf(key, sizeof key, "%s%s", kAxis[3 - nd + i], suffix);
    in[i] = get1(d, key, 1);
  }
}

static bool get_bool(nkl_desc *d, const char *key, bool def) {
  char err[160];
  bool b = def;
  if (desc_bool(d, key, &b, err, sizeof err) != 0) {
    int64_t v;
    if (desc_int(d, key, &v, err, sizeof err) == 0) b = v != 0;
  }
  return b;
}

static int64_t numel(const nkl_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->shape[i];
  return n;
}

static nkl_tensor *add(case_info *info, const char *name, bool out, nkl_dtype dt, int rank,
                       const int64_t *shape, uint64_t seed, char *err, size_t el) {
  nkl_tensor *t = case_add(info, name, out, dt, rank, shape, err, el);
  if (t && !out && seed) nkl_fill_normal(t->data, dt, numel(t), seed, 1.0);
  return t;
}

/* ---- convolution ------------------------------------------------------------------------ */

int bl_conv_geometry(nkl_desc *d, bl_conv *g) {
  memset(g, 0, sizeof *g);
  const char *op = d->op;
  g->nd = strcmp(op, "Conv1dFwd") == 0 || strcmp(op, "Conv1dCausal") == 0 ? 1
          : strcmp(op, "Conv3dFwd") == 0                                  ? 3
                                                                          : 2;
  g->kind = strcmp(op, "Conv2dDgrad") == 0       ? BL_CONV_DGRAD
            : strcmp(op, "Conv2dWgrad") == 0     ? BL_CONV_WGRAD
            : strcmp(op, "Conv2dTranspose") == 0 ? BL_CONV_TRANSPOSE
                                                 : BL_CONV_FWD;
  g->causal = strcmp(op, "Conv1dCausal") == 0;
  g->relu = strcmp(op, "Conv2dBiasRelu") == 0;
  g->n = get1(d, "N", 1);
  g->cin = get1(d, "C_in", 1);
  g->cout = get1(d, "C_out", 1);
  g->groups = get1(d, "groups", 1);
  g->bias = get_bool(d, "bias", false);
  static const char *const kK[3] = {"kD", "kH", "kW"};
  for (int i = 0; i < g->nd; i++) g->k[i] = get1(d, kK[3 - g->nd + i], 1);
  bl_ints(d, "stride", g->nd, 1, g->s);
  bl_ints(d, "padding", g->nd, 0, g->p);
  bl_ints(d, "dilation", g->nd, 1, g->dil);
  if (g->kind == BL_CONV_TRANSPOSE) {
    /* Input [N, C_out, out_H, out_W] (the donor's output), output [N, C_in, H, W]. */
    g->out[0] = get1(d, "out_H", 1);
    g->out[1] = get1(d, "out_W", 1);
    for (int i = 0; i < 2; i++)
      g->in[i] = (g->out[i] - 1) * g->s[i] - 2 * g->p[i] + g->dil[i] * (g->k[i] - 1) + 1;
    for (int i = 0; i < 2; i++) g->pr[i] = g->p[i];
    return 0;
  }
  get_spatial(d, g->nd, "", g->in);
  if (g->causal) g->p[0] = g->dil[0] * (g->k[0] - 1);
  for (int i = 0; i < g->nd; i++) {
    if (g->causal)
      g->out[i] = (g->in[i] - 1) / g->s[i] + 1;
    else
      g->out[i] = (g->in[i] + 2 * g->p[i] - g->dil[i] * (g->k[i] - 1) - 1) / g->s[i] + 1;
    g->pr[i] = (g->out[i] - 1) * g->s[i] + g->dil[i] * (g->k[i] - 1) + 1 - g->in[i] - g->p[i];
  }
  return 0;
}

static int conv_inputs(nkl_desc *d, case_info *info, char *err, size_t el) {
  bl_conv g;
  bl_conv_geometry(d, &g);
  const nkl_dtype dt = (nkl_dtype)d->dtype;
  const bool fp8 = dt == NKL_FP8_E4M3;
  int64_t xs[5] = {g.n, g.cin}, ws[5] = {g.cout, g.cin / g.groups}, ys[5] = {g.n, g.cout};
  for (int i = 0; i < g.nd; i++) xs[2 + i] = g.in[i], ws[2 + i] = g.k[i], ys[2 + i] = g.out[i];
  const int r = 2 + g.nd;
  double outn = (double)g.n * g.cout, kk = (double)(g.cin / g.groups);
  for (int i = 0; i < g.nd; i++) outn *= (double)g.out[i], kk *= (double)g.k[i];
  double xn = (double)g.n * g.cin, wn = (double)g.cout * (g.cin / g.groups);
  for (int i = 0; i < g.nd; i++) xn *= (double)g.in[i], wn *= (double)g.k[i];
  const double e = (double)nkl_dtype_size(dt);
  info->flops = 2.0 * outn * kk;
  switch (g.kind) {
    case BL_CONV_FWD:
      if (!add(info, "x", false, dt, r, xs, 11, err, el) ||
          !add(info, "weight", false, dt, r, ws, 12, err, el))
        return -1;
      if (g.bias && !add(info, "bias", false, dt, 1, &g.cout, 13, err, el)) return -1;
      if (!add(info, "y", true, fp8 ? NKL_F16 : dt, r, ys, 0, err, el)) return -1;
      if (g.bias) info->flops += outn;
      if (g.relu) info->flops += 2.0 * outn;
      info->bytes = (xn + wn + (g.bias ? (double)g.cout : 0)) * e + outn * (fp8 ? 2.0 : e);
      return 0;
    case BL_CONV_DGRAD:
      if (!add(info, "dy", false, dt, r, ys, 11, err, el) ||
          !add(info, "weight", false, dt, r, ws, 12, err, el) ||
          !add(info, "dx", true, dt, r, xs, 0, err, el))
        return -1;
      info->bytes = (xn + wn + outn) * e;
      return 0;
    case BL_CONV_WGRAD:
      if (!add(info, "x", false, dt, r, xs, 11, err, el) ||
          !add(info, "dy", false, dt, r, ys, 12, err, el) ||
          !add(info, "dw", true, dt, r, ws, 0, err, el))
        return -1;
      info->bytes = (xn + wn + outn) * e;
      return 0;
    case BL_CONV_TRANSPOSE: {
      /* x [N, C_out, out...], weight [C_out, C_in/g, k...], y [N, C_in, in...]. */
      int64_t tx[4] = {g.n, g.cout, g.out[0], g.out[1]},
              tw[4] = {g.cout, g.cin / g.groups, g.k[0], g.k[1]},
              ty[4] = {g.n, g.cin, g.in[0], g.in[1]};
      if (!add(info, "x", false, dt, 4, tx, 11, err, el) ||
          !add(info, "weight", false, dt, 4, tw, 12, err, el))
        return -1;
      if (g.bias && !add(info, "bias", false, dt, 1, &g.cin, 13, err, el)) return -1;
      if (!add(info, "y", true, dt, 4, ty, 0, err, el)) return -1;
      const double yn = (double)g.n * g.cin * g.in[0] * g.in[1];
      info->bytes = (outn + wn + yn + (g.bias ? (double)g.cin : 0)) * e;
      if (g.bias) info->flops += yn;
      return 0;
    }
  }
  return -1;
}

/* ---- pooling ------------------------------------------------------------------------------ */

int bl_pool_geometry(nkl_desc *d, bl_pool *g) {
  memset(g, 0, sizeof *g);
  const char *op = d->op;
  g->nd = strstr(op, "1d") ? 1 : strstr(op, "3d") ? 3 : 2;
  g->max = strstr(op, "Max") != NULL;
  g->adaptive = strncmp(op, "Adaptive", 8) == 0;
  g->n = get1(d, "N", 1);
  g->c = get1(d, "C", 1);
  get_spatial(d, g->nd, "_in", g->in);
  if (g->adaptive) {
    bl_ints(d, "output_size", g->nd, 1, g->out);
    for (int i = 0; i < g->nd; i++) g->k[i] = (g->in[i] + g->out[i] - 1) / g->out[i] + 1;
    return 0;
  }
  bl_ints(d, "kernel_size", g->nd, 1, g->k);
  if (bl_ints(d, "stride", g->nd, 0, g->s) != 0)
    for (int i = 0; i < g->nd; i++) g->s[i] = g->k[i];
  bl_ints(d, "padding", g->nd, 0, g->p);
  bl_ints(d, "dilation", g->nd, 1, g->dil);
  g->ceil = get_bool(d, "ceil_mode", false);
  g->include_pad = get_bool(d, "count_include_pad", true);
  for (int i = 0; i < g->nd; i++) {
    const int64_t span = g->in[i] + 2 * g->p[i] - g->dil[i] * (g->k[i] - 1) - 1;
    int64_t o = (g->ceil ? (span + g->s[i] - 1) / g->s[i] : span / g->s[i]) + 1;
    if (g->ceil && (o - 1) * g->s[i] >= g->in[i] + g->p[i]) o--;
    g->out[i] = o;
    g->pr[i] = (o - 1) * g->s[i] + g->dil[i] * (g->k[i] - 1) + 1 - g->in[i] - g->p[i];
  }
  return 0;
}

static int pool_inputs(nkl_desc *d, case_info *info, char *err, size_t el) {
  bl_pool g;
  bl_pool_geometry(d, &g);
  const nkl_dtype dt = (nkl_dtype)d->dtype;
  int64_t xs[5] = {g.n, g.c}, ys[5] = {g.n, g.c};
  double xn = (double)g.n * g.c, yn = xn, kk = 1;
  for (int i = 0; i < g.nd; i++)
    xs[2 + i] = g.in[i], ys[2 + i] = g.out[i], xn *= (double)g.in[i], yn *= (double)g.out[i],
           kk *= (double)g.k[i];
  if (!add(info, "x", false, dt, 2 + g.nd, xs, 11, err, el) ||
      !add(info, "y", true, dt, 2 + g.nd, ys, 0, err, el))
    return -1;
  info->flops = yn * kk;
  info->bytes = (xn + yn) * (double)nkl_dtype_size(dt);
  return 0;
}

/* ---- batch norm, L1 / L2 -------------------------------------------------------------------- */

static int bn_inputs(nkl_desc *d, case_info *info, char *err, size_t el) {
  int64_t xs[NKL_MAX_RANK];
  int rank = 0;
  if (desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el) != 0 || rank < 2) return -1;
  const nkl_dtype dt = (nkl_dtype)d->dtype;
  int64_t c = xs[1], n = 1;
  for (int i = 0; i < rank; i++) n *= xs[i];
  const double e = (double)nkl_dtype_size(dt), cl = (double)n, cc = (double)c;
  if (strcmp(d->op, "BatchNormBwd") == 0) {
    if (!add(info, "x", false, dt, rank, xs, 11, err, el) ||
        !add(info, "dy", false, dt, rank, xs, 12, err, el) ||
        !add(info, "weight", false, NKL_F32, 1, &c, 13, err, el))
      return -1;
    nkl_tensor *m = add(info, "mean", false, NKL_F32, 1, &c, 0, err, el),
               *r = add(info, "rstd", false, NKL_F32, 1, &c, 0, err, el);
    if (!m || !r || !add(info, "dx", true, dt, rank, xs, 0, err, el) ||
        !add(info, "dw", true, NKL_F32, 1, &c, 0, err, el) ||
        !add(info, "db", true, NKL_F32, 1, &c, 0, err, el))
      return -1;
    /* mean / rstd of x per channel (a forward pass over the same x). */
    const nkl_tensor *x = bl_arg(info, "x");
    const int64_t inner = n / (xs[0] * c);
    for (int64_t ch = 0; ch < c; ch++) {
      double s = 0, sq = 0;
      for (int64_t b = 0; b < xs[0]; b++)
        for (int64_t k = 0; k < inner; k++) {
          const double v = nkl_get(x->data, dt, (b * c + ch) * inner + k);
          s += v, sq += v * v;
        }
      const double cnt = (double)(xs[0] * inner), mu = s / cnt;
      ((float *)m->data)[ch] = (float)mu;
      ((float *)r->data)[ch] = (float)(1.0 / sqrt(fmax(sq / cnt - mu * mu, 0) + 1e-5));
    }
    info->flops = 8 * cl;
    info->bytes = 3 * cl * e + 12 * cc;
    return 0;
  }
  const bool train = strcmp(d->op, "BatchNormFwd") == 0;
  if (!add(info, "x", false, dt, rank, xs, 11, err, el) ||
      !add(info, "weight", false, NKL_F32, 1, &c, 13, err, el) ||
      !add(info, "bias", false, NKL_F32, 1, &c, 14, err, el))
    return -1;
  nkl_tensor *rm = add(info, "running_mean", false, NKL_F32, 1, &c, 0, err, el),
             *rv = add(info, "running_var", false, NKL_F32, 1, &c, 0, err, el);
  if (!rm || !rv || !add(info, "y", true, dt, rank, xs, 0, err, el)) return -1;
  if (train) {
    for (int64_t i = 0; i < c; i++) ((float *)rv->data)[i] = 1.0f;
  } else {
    nkl_fill_normal(rm->data, NKL_F32, c, 15, 0.1);
    nkl_fill_uniform(rv->data, NKL_F32, c, 16, 0.5, 1.5);
  }
  info->flops = (train ? 10 : 4) * cl;
  info->bytes = 2 * cl * e + 16 * cc;
  return 0;
}

static int norm_inputs(nkl_desc *d, case_info *info, char *err, size_t el) {
  int64_t xs[NKL_MAX_RANK], dims[DESC_MAX_LIST];
  int rank = 0, nd = 0;
  if (desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el) != 0) return -1;
  const nkl_dtype dt = (nkl_dtype)d->dtype;
  const int has_dim = desc_ints(d, "dim", dims, DESC_MAX_LIST, &nd, err, el) == 0;
  int64_t ys[NKL_MAX_RANK];
  int yr = 0;
  double n = 1, yn = 1;
  for (int i = 0; i < rank; i++) {
    bool red = !has_dim;
    for (int k = 0; k < nd && has_dim; k++) red |= dims[k] == i;
    n *= (double)xs[i];
    if (!red) ys[yr++] = xs[i], yn *= (double)xs[i];
  }
  if (!add(info, "x", false, dt, rank, xs, 11, err, el) ||
      !add(info, "y", true, dt, yr, ys, 0, err, el))
    return -1;
  info->flops = 2 * n + (strcmp(d->op, "L2NormFwd") == 0 ? 1 : 0);
  info->bytes = (n + yn) * (double)nkl_dtype_size(dt);
  return 0;
}

/* GroupNormFwd: x [N, C, *], optional weight/bias [C] (x's dtype), y. */
static int gn_inputs(nkl_desc *d, case_info *info, char *err, size_t el) {
  int64_t xs[NKL_MAX_RANK], ws[1];
  int rank = 0, nw = 0;
  if (desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el) != 0 || rank < 2) return -1;
  const nkl_dtype dt = (nkl_dtype)d->dtype;
  const bool affine = desc_ints(d, "weight", ws, 1, &nw, err, el) == 0;
  int64_t ng = 1, c = xs[1];
  bl_ints(d, "num_groups", 1, 1, &ng);
  int64_t bw[1];
  desc_ints(d, "bias", bw, 1, &nw, err, el);
  if (!add(info, "x", false, dt, rank, xs, 11, err, el)) return -1;
  if (affine && (!add(info, "weight", false, dt, 1, &c, 12, err, el) ||
                 !add(info, "bias", false, dt, 1, &c, 13, err, el)))
    return -1;
  if (!add(info, "y", true, dt, rank, xs, 0, err, el)) return -1;
  double n = 1;
  for (int i = 0; i < rank; i++) n *= (double)xs[i];
  info->flops = (affine ? 5 : 3) * n;
  info->bytes = (2 * n + (affine ? 2.0 * (double)c : 0)) * (double)nkl_dtype_size(dt);
  return 0;
}

int bl_inputs_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  memset(info, 0, sizeof *info);
  if (d->dtype < 0) return 1;
  const char *op = d->op;
  int r = 1;
  if (strstr(op, "Conv"))
    r = conv_inputs(d, info, err, el);
  else if (strstr(op, "Pool"))
    r = pool_inputs(d, info, err, el);
  else if (strncmp(op, "BatchNorm", 9) == 0)
    r = bn_inputs(d, info, err, el);
  else if (strcmp(op, "L1NormFwd") == 0 || strcmp(op, "L2NormFwd") == 0)
    r = norm_inputs(d, info, err, el);
  else if (strcmp(op, "GroupNormFwd") == 0)
    r = gn_inputs(d, info, err, el);
  if (r < 0) case_free_args(info);
  return r;
}
