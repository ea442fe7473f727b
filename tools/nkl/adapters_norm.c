/* Adapters of the normalization family (see adapter.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

static int64_t nkl__numel_of(const nkl_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->shape[i];
  return n;
}

/* ---- row norms: RMSNormFwd, LayerNormFwd ---------------------------------------------- */

typedef enum { RN_RMS, RN_LN } rn_kind;

typedef struct rn_case {
  rn_kind kind;
  nkl_dtype dt;
  int64_t m, n;
  float eps;
  case_info *info;
  nkl_tensor *x, *w, *b, *y, *mean, *rstd;
} rn_case;

static void *rn_create(nkl_desc *d, case_info *info, rn_kind kind, char *err, size_t el) {
  static const nkl_dtype kTypes[] = {NKL_F32, NKL_F16, NKL_BF16};
  rn_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->kind = kind;
  c->info = info;
  int64_t xs[NKL_MAX_RANK], ns[NKL_MAX_RANK];
  int rank = 0, nn = 0;
  double eps = kind == RN_RMS ? 1e-6 : 1e-5; /* PyTorch / Llama defaults, per the spec */
  bool affine = true;
  if (case_dtype(d, kTypes, 3, &c->dt, err, el) < 0) goto fail;
  int r = desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el);
  if (r != 0) {
    if (r > 0) snprintf(err, el, "%s needs x=[...]", d->op);
    goto fail;
  }
  if ((r = desc_ints(d, "normalized", ns, NKL_MAX_RANK, &nn, err, el)) < 0) goto fail;
  if (r == 0 && (nn != 1 || ns[0] != xs[rank - 1])) {
    snprintf(err, el, "normalized must be [last dim of x] (row norms reduce the last dim)");
    goto fail;
  }
  if (desc_double(d, "eps", &eps, err, el) < 0 || desc_bool(d, "affine", &affine, err, el) < 0)
    goto fail;
  c->eps = (float)eps;
  c->n = xs[rank - 1];
  c->m = 1;
  for (int i = 0; i < rank - 1; i++) c->m *= xs[i];
  if (!(c->x = case_add(info, "x", false, c->dt, rank, xs, err, el))) goto fail;
  if (affine) {
    if (!(c->w = case_add(info, "weight", false, c->dt, 1, &c->n, err, el))) goto fail;
    if (kind == RN_LN && !(c->b = case_add(info, "bias", false, c->dt, 1, &c->n, err, el)))
      goto fail;
  }
  if (!(c->y = case_add(info, "y", true, c->dt, rank, xs, err, el))) goto fail;
  if (kind == RN_LN && !(c->mean = case_add(info, "mean", true, NKL_F32, 1, &c->m, err, el)))
    goto fail;
  if (!(c->rstd = case_add(info, "rstd", true, NKL_F32, 1, &c->m, err, el))) goto fail;
  nkl_fill_normal(c->x->data, c->dt, c->m * c->n, 1, 1.0);
  if (c->w) nkl_fill_normal(c->w->data, c->dt, c->n, 2, 1.0);
  if (c->b) nkl_fill_normal(c->b->data, c->dt, c->n, 3, 1.0);
  const double e = (double)nkl_dtype_size(c->dt), mn = (double)(c->m * c->n), nd = (double)c->n;
  info->flops = (kind == RN_RMS ? 4.0 : 5.0) * mn;
  info->bytes = (2.0 * mn + (c->w ? nd : 0) + (c->b ? nd : 0)) * e;
  return c;
fail:
  case_free_args(info);
  free(c);
  return NULL;
}

static void *rms_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  return rn_create(d, info, RN_RMS, err, el);
}
static void *ln_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  return rn_create(d, info, RN_LN, err, el);
}

static nkl_status rn_run(void *p) {
  rn_case *c = p;
  if (c->kind == RN_RMS) return nkl_rmsnorm_fwd(c->x, c->w, c->eps, c->y, c->rstd);
  return nkl_layernorm_fwd(c->x, c->w, c->b, c->eps, c->y, c->mean, c->rstd);
}

/* Every output of every row against the oracle (cheap: one pass in double). */
static void rn_check(void *p, check_result *res) {
  rn_case *c = p;
  const int64_t n = c->n;
  double *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8), *w = malloc((size_t)n * 8),
         *b = malloc((size_t)n * 8);
  nkl_cmp_init(&res->cmp);
  for (int64_t i = 0; i < n; i++) {
    w[i] = c->w ? nkl_get(c->w->data, c->dt, i) : 1.0;
    b[i] = c->b ? nkl_get(c->b->data, c->dt, i) : 0.0;
  }
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  for (int64_t r = 0; r < c->m; r++) {
    const char *xrow = (const char *)c->x->data + (size_t)(r * n) * nkl_dtype_size(c->dt);
    const char *yrow = (const char *)c->y->data + (size_t)(r * n) * nkl_dtype_size(c->dt);
    for (int64_t i = 0; i < n; i++) x[i] = nkl_get(xrow, c->dt, i);
    double mean = 0.0, rstd;
    if (c->kind == RN_RMS)
      rstd = oracle_rmsnorm_row(x, n, c->w ? w : NULL, c->eps, y);
    else
      rstd = oracle_layernorm_row(x, n, c->w ? w : NULL, c->b ? b : NULL, c->eps, y, &mean);
    for (int64_t i = 0; i < n; i++)
      nkl_cmp_add(
          &res->cmp, nkl_get(yrow, c->dt, i), y[i],
          rownorm_tolerance(c->dt, n, y[i], (fabs(x[i]) + fabs(mean)) * rstd + 1.0, w[i], b[i]),
          r * n + i);
    nkl_cmp_add(&res->cmp, ((float *)c->rstd->data)[r], rstd, 4 * gamma * rstd, -1);
    if (c->mean)
      nkl_cmp_add(&res->cmp, ((float *)c->mean->data)[r], mean,
                  4 * gamma * (fabs(mean) + 1.0 / rstd), -1);
  }
  res->pass = res->cmp.bad == 0;
  snprintf(res->note, sizeof res->note, "all %lld outputs and row statistics",
           (long long)(c->m * n));
  free(x);
  free(y);
  free(w);
  free(b);
}

static void rn_destroy(void *p) {
  rn_case *c = p;
  case_free_args(c->info);
  free(c);
}

static const nkl_adapter kRmsNormFwd = {"RMSNormFwd", rms_create, rn_run, rn_check, rn_destroy};
static const nkl_adapter kLayerNormFwd = {"LayerNormFwd", ln_create, rn_run, rn_check, rn_destroy};

/* ---- row-norm variants: Gemma, fused add, AdaLN, QK, group, quantized, weight norm ----- */

typedef enum {
  RX_GEMMA,
  RX_FADD_RMS,
  RX_FADD_LN,
  RX_ADALN,
  RX_QK,
  RX_GROUP,
  RX_RMSQ,
  RX_LNQ,
  RX_WN
} rx_kind;

typedef struct rx_case {
  rx_kind kind;
  nkl_dtype dt;
  int64_t m, n;
  float eps;
  case_info *info;
  nkl_tensor *x, *res, *w, *b, *g, *y, *ro, *k, *kw, *ky, *mean, *rstd, *scale;
} rx_case;

static bool rx_ln(rx_kind k) { return k == RX_FADD_LN || k == RX_ADALN || k == RX_LNQ; }
static bool rx_quant(rx_kind k) { return k == RX_RMSQ || k == RX_LNQ; }
static bool rx_fused(rx_kind k) { return k == RX_FADD_RMS || k == RX_FADD_LN; }

/* flops and bytes per ../shared/spec/operators.md */
static void rx_counts(const rx_case *c, case_info *info) {
  const double e = (double)nkl_dtype_size(c->dt), mn = (double)(c->m * c->n), n = (double)c->n,
               m = (double)c->m;
  switch (c->kind) {
    case RX_GEMMA: info->flops = 5 * mn, info->bytes = (2 * mn + n) * e; break;
    case RX_FADD_RMS: info->flops = 5 * mn, info->bytes = (4 * mn + n) * e; break;
    case RX_FADD_LN: info->flops = 6 * mn, info->bytes = (4 * mn + 2 * n) * e; break;
    case RX_ADALN: info->flops = 5 * mn, info->bytes = 4 * mn * e; break;
    case RX_QK: info->flops = 8 * mn, info->bytes = (4 * mn + 2 * n) * e; break;
    case RX_GROUP: info->flops = 4 * mn, info->bytes = 3 * mn * e + 4 * m; break;
    case RX_RMSQ: info->flops = 7 * mn, info->bytes = (mn + n) * e + mn + 4 * m; break;
    case RX_LNQ: info->flops = 8 * mn, info->bytes = (mn + 2 * n) * e + mn + 4 * m; break;
    case RX_WN: info->flops = 4 * mn, info->bytes = (2 * mn + m) * e + 4 * m; break;
  }
}

static void *rx_create(nkl_desc *d, case_info *info, rx_kind kind, char *err, size_t el) {
  static const nkl_dtype kTypes[] = {NKL_F32, NKL_F16, NKL_BF16};
  rx_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->kind = kind;
  c->info = info;
  int64_t xs[NKL_MAX_RANK], ns[NKL_MAX_RANK];
  int rank = 0, nn = 0;
  double eps = rx_ln(kind) ? 1e-5 : 1e-6; /* per the spec */
  if (case_dtype(d, kTypes, 3, &c->dt, err, el) < 0) goto fail;
  int r = desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el);
  if (r != 0) {
    if (r > 0) snprintf(err, el, "%s needs x=[...]", d->op);
    goto fail;
  }
  if ((r = desc_ints(d, "normalized", ns, NKL_MAX_RANK, &nn, err, el)) < 0) goto fail;
  if (r == 0 && (nn != 1 || ns[0] != xs[rank - 1])) {
    snprintf(err, el, "normalized must be [last dim of x] (row norms reduce the last dim)");
    goto fail;
  }
  if (kind != RX_WN && desc_double(d, "eps", &eps, err, el) < 0) goto fail;
  if (kind == RX_GROUP && rank < 2) {
    snprintf(err, el, "GroupRMSNormFwd needs x=[..., G, D]");
    goto fail;
  }
  c->eps = (float)eps;
  c->n = xs[rank - 1];
  c->m = 1;
  for (int i = 0; i < rank - 1; i++) c->m *= xs[i];
  const nkl_dtype dt = c->dt, yt = rx_quant(kind) ? NKL_FP8_E4M3 : dt;
  if (!(c->x = case_add(info,
                        kind == RX_QK   ? "q"
                        : kind == RX_WN ? "v"
                                        : "x",
                        false, dt, rank, xs, err, el)))
    goto fail;
  if (rx_fused(kind) && !(c->res = case_add(info, "residual", false, dt, rank, xs, err, el)))
    goto fail;
  if (kind == RX_QK && !(c->k = case_add(info, "k", false, dt, rank, xs, err, el))) goto fail;
  if (kind == RX_ADALN) {
    if (!(c->w = case_add(info, "scale", false, dt, rank, xs, err, el)) ||
        !(c->b = case_add(info, "shift", false, dt, rank, xs, err, el)))
      goto fail;
  } else if (kind == RX_GROUP) {
    if (!(c->w = case_add(info, "weight", false, dt, 2, xs + rank - 2, err, el))) goto fail;
  } else if (kind == RX_WN) {
    if (!(c->g = case_add(info, "g", false, dt, 1, &c->m, err, el))) goto fail;
  } else {
    if (!(c->w =
              case_add(info, kind == RX_QK ? "q_weight" : "weight", false, dt, 1, &c->n, err, el)))
      goto fail;
    if (kind == RX_QK && !(c->kw = case_add(info, "k_weight", false, dt, 1, &c->n, err, el)))
      goto fail;
    if (rx_ln(kind) && !(c->b = case_add(info, "bias", false, dt, 1, &c->n, err, el))) goto fail;
  }
  if (!(c->y = case_add(info,
                        rx_quant(kind)  ? "q"
                        : kind == RX_QK ? "q_out"
                                        : "y",
                        true, yt, rank, xs, err, el)))
    goto fail;
  if (rx_fused(kind) && !(c->ro = case_add(info, "residual_out", true, dt, rank, xs, err, el)))
    goto fail;
  if (kind == RX_QK && !(c->ky = case_add(info, "k_out", true, dt, rank, xs, err, el))) goto fail;
  if (rx_quant(kind)) {
    if (!(c->scale = case_add(info, "scale", true, NKL_F32, 1, &c->m, err, el))) goto fail;
  } else if (kind != RX_QK) {
    if (rx_ln(kind) && !(c->mean = case_add(info, "mean", true, NKL_F32, 1, &c->m, err, el)))
      goto fail;
    if (!(c->rstd =
              case_add(info, kind == RX_WN ? "norm" : "rstd", true, NKL_F32, 1, &c->m, err, el)))
      goto fail;
  }
  const int64_t mn = c->m * c->n;
  nkl_fill_normal(c->x->data, dt, mn, 1, 1.0);
  if (c->res) nkl_fill_normal(c->res->data, dt, mn, 4, 1.0);
  if (c->k) nkl_fill_normal(c->k->data, dt, mn, 5, 1.0);
  if (c->w) nkl_fill_normal(c->w->data, dt, nkl__numel_of(c->w), 2, 1.0);
  if (c->b) nkl_fill_normal(c->b->data, dt, nkl__numel_of(c->b), 3, 1.0);
  if (c->kw) nkl_fill_normal(c->kw->data, dt, c->n, 6, 1.0);
  if (c->g) nkl_fill_normal(c->g->data, dt, c->m, 7, 1.0);
  rx_counts(c, info);
  return c;
fail:
  case_free_args(info);
  free(c);
  return NULL;
}

#define RX_CREATE(name, kind)                                             \
  static void *name(nkl_desc *d, case_info *info, char *err, size_t el) { \
    return rx_create(d, info, kind, err, el);                             \
  }
RX_CREATE(gemma_create, RX_GEMMA)
RX_CREATE(fadd_rms_create, RX_FADD_RMS)
RX_CREATE(fadd_ln_create, RX_FADD_LN)
RX_CREATE(adaln_create, RX_ADALN)
RX_CREATE(qk_create, RX_QK)
RX_CREATE(group_create, RX_GROUP)
RX_CREATE(rmsq_create, RX_RMSQ)
RX_CREATE(lnq_create, RX_LNQ)
RX_CREATE(wn_create, RX_WN)

static nkl_status rx_run(void *p) {
  rx_case *c = p;
  switch (c->kind) {
    case RX_GEMMA: return nkl_gemma_rmsnorm_fwd(c->x, c->w, c->eps, c->y, c->rstd);
    case RX_FADD_RMS:
      return nkl_fused_add_rmsnorm_fwd(c->x, c->res, c->w, c->eps, c->y, c->ro, c->rstd);
    case RX_FADD_LN:
      return nkl_fused_add_layernorm_fwd(c->x, c->res, c->w, c->b, c->eps, c->y, c->ro, c->mean,
                                         c->rstd);
    case RX_ADALN: return nkl_adalayernorm_fwd(c->x, c->w, c->b, c->eps, c->y, c->mean, c->rstd);
    case RX_QK: return nkl_qknorm_fwd(c->x, c->k, c->w, c->kw, c->eps, c->y, c->ky);
    case RX_GROUP: return nkl_group_rmsnorm_fwd(c->x, c->w, c->eps, c->y, c->rstd);
    case RX_RMSQ: return nkl_rmsnorm_quant_fwd(c->x, c->w, c->eps, 1e-12f, c->y, c->scale);
    case RX_LNQ: return nkl_layernorm_quant_fwd(c->x, c->w, c->b, c->eps, 1e-12f, c->y, c->scale);
    case RX_WN: return nkl_weightnorm_fwd(c->x, c->g, c->y, c->rstd);
  }
  return NKL_ERR_INTERNAL;
}

static void rx_row(const void *p, nkl_dtype dt, int64_t off, int64_t n, double *out) {
  for (int64_t i = 0; i < n; i++) out[i] = nkl_get(p, dt, off + i);
}

/* One normalized row (of y, q_out or k_out, or the codes of q) against the oracle. */
static void rx_check_row(const rx_case *c, nkl_cmp *cmp, const double *x, const double *w,
                         const double *b, const nkl_tensor *out, const float *stat, int64_t r,
                         double *yref) {
  const int64_t n = c->n;
  double mean = 0.0, rstd;
  if (c->kind == RX_WN)
    rstd = 1.0 / oracle_weightnorm_row(x, n, w[0], yref);
  else if (c->kind == RX_GEMMA)
    rstd = oracle_gemma_rmsnorm_row(x, n, w, c->eps, yref);
  else if (rx_ln(c->kind))
    rstd = oracle_layernorm_row(x, n, w, b, c->eps, yref, &mean);
  else
    rstd = oracle_rmsnorm_row(x, n, w, c->eps, yref);
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  const nkl_dtype ot = rx_quant(c->kind) ? NKL_F32 : c->dt;
  double ytol = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double wi = c->kind == RX_WN ? w[0] : c->kind == RX_GEMMA ? 1.0 + w[i] : w[i];
    const double t = rownorm_tolerance(ot, n, yref[i], (fabs(x[i]) + fabs(mean)) * rstd + 1.0, wi,
                                       b ? b[i] : 0.0);
    if (rx_quant(c->kind))
      ytol = t > ytol ? t : ytol;
    else
      nkl_cmp_add(cmp, nkl_get(out->data, c->dt, r * n + i), yref[i], t, r * n + i);
  }
  if (rx_quant(c->kind)) {
    oracle_check_quant_row(cmp, yref, n, ytol, 1e-12, (const uint8_t *)out->data + r * n,
                           ((float *)c->scale->data)[r], r * n);
    return;
  }
  if (!stat) return;
  const double want = c->kind == RX_WN ? 1.0 / rstd : rstd;
  nkl_cmp_add(cmp, stat[r], want, 4 * gamma * want, -1);
  if (c->mean)
    nkl_cmp_add(cmp, ((float *)c->mean->data)[r], mean, 4 * gamma * (fabs(mean) + 1.0 / rstd), -1);
}

/* Every output of every row against the oracle (one pass in double). */
static void rx_check(void *p, check_result *res) {
  rx_case *c = p;
  const int64_t n = c->n, G = c->kind == RX_GROUP ? c->w->shape[0] : 1;
  double *x = malloc((size_t)n * 8), *r = malloc((size_t)n * 8), *w = malloc((size_t)n * 8),
         *b = malloc((size_t)n * 8), *y = malloc((size_t)n * 8);
  nkl_cmp_init(&res->cmp);
  for (int64_t row = 0; row < c->m; row++) {
    const int64_t woff = c->kind == RX_ADALN ? row * n : c->kind == RX_GROUP ? (row % G) * n : 0;
    if (c->w) rx_row(c->w->data, c->dt, woff, n, w);
    if (c->b) rx_row(c->b->data, c->dt, woff, n, b);
    if (c->g) w[0] = nkl_get(c->g->data, c->dt, row);
    rx_row(c->x->data, c->dt, row * n, n, x);
    if (c->res) {
      rx_row(c->res->data, c->dt, row * n, n, r);
      oracle_fused_add_row(x, r, n, c->dt, x);
      for (int64_t i = 0; i < n; i++)
        nkl_cmp_add(&res->cmp, nkl_get(c->ro->data, c->dt, row * n + i), x[i], 0.0, row * n + i);
    }
    rx_check_row(c, &res->cmp, x, w, c->b ? b : NULL, c->y, c->rstd ? c->rstd->data : NULL, row, y);
    if (c->k) {
      rx_row(c->k->data, c->dt, row * n, n, x);
      rx_row(c->kw->data, c->dt, 0, n, w);
      rx_check_row(c, &res->cmp, x, w, NULL, c->ky, NULL, row, y);
    }
  }
  res->pass = res->cmp.bad == 0;
  snprintf(res->note, sizeof res->note, "all %lld outputs%s and row statistics",
           (long long)(c->m * n),
           c->k     ? " of q and k"
           : c->res ? " (and residual_out)"
                    : "");
  free(x), free(r), free(w), free(b), free(y);
}

static void rx_destroy(void *p) {
  rx_case *c = p;
  case_free_args(c->info);
  free(c);
}

static const nkl_adapter kGemma = {"GemmaRMSNormFwd", gemma_create, rx_run, rx_check, rx_destroy};
static const nkl_adapter kFaddRms = {"FusedAddRMSNormFwd", fadd_rms_create, rx_run, rx_check,
                                     rx_destroy};
static const nkl_adapter kFaddLn = {"FusedAddLayerNormFwd", fadd_ln_create, rx_run, rx_check,
                                    rx_destroy};
static const nkl_adapter kAdaLn = {"AdaLayerNormFwd", adaln_create, rx_run, rx_check, rx_destroy};
static const nkl_adapter kQk = {"QKNormFwd", qk_create, rx_run, rx_check, rx_destroy};
static const nkl_adapter kGroup = {"GroupRMSNormFwd", group_create, rx_run, rx_check, rx_destroy};
static const nkl_adapter kRmsQ = {"RMSNormQuantFwd", rmsq_create, rx_run, rx_check, rx_destroy};
static const nkl_adapter kLnQ = {"LayerNormQuantFwd", lnq_create, rx_run, rx_check, rx_destroy};
static const nkl_adapter kWn = {"WeightNormFwd", wn_create, rx_run, rx_check, rx_destroy};

/* ---- backward: RMSNormBwd, LayerNormBwd --------------------------------------------- */

typedef struct bw_case {
  bool ln;
  nkl_dtype dt;
  int64_t m, n;
  case_info *info;
  nkl_tensor *x, *dy, *w, *mean, *rstd, *dx, *dw, *db;
} bw_case;

static void *bw_create(nkl_desc *d, case_info *info, bool ln, char *err, size_t el) {
  static const nkl_dtype kTypes[] = {NKL_F32, NKL_F16, NKL_BF16};
  bw_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->ln = ln;
  c->info = info;
  int64_t xs[NKL_MAX_RANK], ns[NKL_MAX_RANK];
  int rank = 0, nn = 0;
  if (case_dtype(d, kTypes, 3, &c->dt, err, el) < 0) goto fail;
  int r = desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el);
  if (r != 0) {
    if (r > 0) snprintf(err, el, "%s needs x=[...]", d->op);
    goto fail;
  }
  if ((r = desc_ints(d, "normalized", ns, NKL_MAX_RANK, &nn, err, el)) < 0) goto fail;
  if (r == 0 && (nn != 1 || ns[0] != xs[rank - 1])) {
    snprintf(err, el, "normalized must be [last dim of x] (row norms reduce the last dim)");
    goto fail;
  }
  c->n = xs[rank - 1];
  c->m = 1;
  for (int i = 0; i < rank - 1; i++) c->m *= xs[i];
  const nkl_dtype dt = c->dt;
  if (!(c->x = case_add(info, "x", false, dt, rank, xs, err, el)) ||
      !(c->dy = case_add(info, "dy", false, dt, rank, xs, err, el)) ||
      !(c->w = case_add(info, "weight", false, dt, 1, &c->n, err, el)) ||
      (ln && !(c->mean = case_add(info, "mean", false, NKL_F32, 1, &c->m, err, el))) ||
      !(c->rstd = case_add(info, "rstd", false, NKL_F32, 1, &c->m, err, el)) ||
      !(c->dx = case_add(info, "dx", true, dt, rank, xs, err, el)) ||
      !(c->dw = case_add(info, "dw", true, dt, 1, &c->n, err, el)) ||
      (ln && !(c->db = case_add(info, "db", true, dt, 1, &c->n, err, el))))
    goto fail;
  nkl_fill_normal(c->x->data, dt, c->m * c->n, 1, 1.0);
  nkl_fill_normal(c->dy->data, dt, c->m * c->n, 8, 1.0);
  nkl_fill_normal(c->w->data, dt, c->n, 2, 1.0);
  /* mean/rstd from a forward pass over the same x (eps 1e-5 LN, 1e-6 RMS, per the spec):
   * the oracle's, rounded to f32 */
  double *x = malloc((size_t)c->n * 8), *y = malloc((size_t)c->n * 8);
  for (int64_t row = 0; row < c->m; row++) {
    for (int64_t i = 0; i < c->n; i++) x[i] = nkl_get(c->x->data, dt, row * c->n + i);
    double mean = 0.0;
    const double rstd = ln ? oracle_layernorm_row(x, c->n, NULL, NULL, 1e-5, y, &mean)
                           : oracle_rmsnorm_row(x, c->n, NULL, 1e-6, y);
    ((float *)c->rstd->data)[row] = (float)rstd;
    if (ln) ((float *)c->mean->data)[row] = (float)mean;
  }
  free(x), free(y);
  const double e = (double)nkl_dtype_size(dt), mn = (double)(c->m * c->n), n = (double)c->n,
               m = (double)c->m;
  info->flops = (ln ? 12.0 : 9.0) * mn;
  info->bytes = ln ? (3 * mn + 3 * n) * e + 8 * m : (3 * mn + 2 * n) * e + 4 * m;
  return c;
fail:
  case_free_args(info);
  free(c);
  return NULL;
}

static void *rms_bwd_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  return bw_create(d, info, false, err, el);
}
static void *ln_bwd_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  return bw_create(d, info, true, err, el);
}

static nkl_status bw_run(void *p) {
  bw_case *c = p;
  if (c->ln) return nkl_layernorm_bwd(c->x, c->dy, c->w, c->mean, c->rstd, c->dx, c->dw, c->db);
  return nkl_rmsnorm_bwd(c->x, c->dy, c->w, c->rstd, c->dx, c->dw);
}

/* Every dx element, and dw/db, against the oracle (one pass in double). */
static void bw_check(void *p, check_result *res) {
  bw_case *c = p;
  const int64_t n = c->n;
  const nkl_dtype dt = c->dt;
  double *x = malloc((size_t)n * 8), *dy = malloc((size_t)n * 8), *w = malloc((size_t)n * 8);
  double *dx = malloc((size_t)n * 8), *ts = malloc((size_t)n * 8);
  double *dw = calloc((size_t)n, 8), *db = calloc((size_t)n, 8), *adw = calloc((size_t)n, 8),
         *adb = calloc((size_t)n, 8);
  for (int64_t i = 0; i < n; i++) w[i] = nkl_get(c->w->data, dt, i);
  const double gamma = ((double)n / 16.0 + 12.0) * 0x1p-24;
  nkl_cmp_init(&res->cmp);
  for (int64_t r = 0; r < c->m; r++) {
    for (int64_t i = 0; i < n; i++)
      x[i] = nkl_get(c->x->data, dt, r * n + i), dy[i] = nkl_get(c->dy->data, dt, r * n + i);
    const double mean = c->ln ? ((float *)c->mean->data)[r] : 0.0,
                 rstd = ((float *)c->rstd->data)[r];
    oracle_rownorm_bwd_row(x, dy, w, n, mean, rstd, c->ln, dx, dw, db, ts);
    for (int64_t i = 0; i < n; i++) {
      adw[i] += fabs(dy[i] * (x[i] - mean) * rstd), adb[i] += fabs(dy[i]);
      nkl_cmp_add(&res->cmp, nkl_get(c->dx->data, dt, r * n + i), dx[i],
                  nkl_unit_roundoff(dt) * fabs(dx[i]) + nkl_denorm_min(dt) + 4 * gamma * ts[i],
                  r * n + i);
    }
  }
  const double gm = ((double)c->m + 16.0) * 0x1p-24; /* m sequential f32 adds per column */
  for (int64_t i = 0; i < n; i++) {
    nkl_cmp_add(&res->cmp, nkl_get(c->dw->data, dt, i), dw[i],
                nkl_unit_roundoff(dt) * fabs(dw[i]) + nkl_denorm_min(dt) + 2 * gm * adw[i], -2);
    if (c->ln)
      nkl_cmp_add(&res->cmp, nkl_get(c->db->data, dt, i), db[i],
                  nkl_unit_roundoff(dt) * fabs(db[i]) + nkl_denorm_min(dt) + 2 * gm * adb[i], -3);
  }
  res->pass = res->cmp.bad == 0;
  snprintf(res->note, sizeof res->note, "all %lld dx and %lld %s", (long long)(c->m * n),
           (long long)n, c->ln ? "dw, db" : "dw");
  free(x), free(dy), free(w), free(dx), free(ts), free(dw), free(db), free(adw), free(adb);
}

static void bw_destroy(void *p) {
  bw_case *c = p;
  case_free_args(c->info);
  free(c);
}

static const nkl_adapter kRmsBwd = {"RMSNormBwd", rms_bwd_create, bw_run, bw_check, bw_destroy};
static const nkl_adapter kLnBwd = {"LayerNormBwd", ln_bwd_create, bw_run, bw_check, bw_destroy};

/* ---- L1NormFwd, L2NormFwd ---------------------------------------------------------- */

typedef struct lp_case {
  int p;
  nkl_dtype dt;
  int dims[NKL_MAX_RANK], ndims;
  int64_t A, B, C;
  case_info *info;
  nkl_tensor *x, *y;
} lp_case;

static void *lp_create(nkl_desc *d, case_info *info, int p, char *err, size_t el) {
  static const nkl_dtype kTypes[] = {NKL_F32, NKL_F16, NKL_BF16};
  lp_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->p = p;
  c->info = info;
  int64_t xs[NKL_MAX_RANK], ds[NKL_MAX_RANK];
  int rank = 0, nd = 0;
  if (case_dtype(d, kTypes, 3, &c->dt, err, el) < 0) goto fail;
  int r = desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el);
  if (r != 0) {
    if (r > 0) snprintf(err, el, "%s needs x=[...]", d->op);
    goto fail;
  }
  if ((r = desc_ints(d, "dim", ds, NKL_MAX_RANK, &nd, err, el)) < 0) goto fail;
  bool red[NKL_MAX_RANK] = {false};
  c->ndims = r == 0 ? nd : 0;
  for (int i = 0; i < c->ndims; i++) {
    c->dims[i] = (int)ds[i];
    const int64_t dd = ds[i] < 0 ? ds[i] + rank : ds[i];
    if (dd < 0 || dd >= rank) {
      snprintf(err, el, "dim %lld out of range for rank %d", (long long)ds[i], rank);
      goto fail;
    }
    red[dd] = true;
  }
  if (c->ndims == 0)
    for (int i = 0; i < rank; i++) red[i] = true;
  int64_t ys[NKL_MAX_RANK];
  int yr = 0;
  c->A = c->B = c->C = 1;
  bool kept = false;
  for (int i = 0; i < rank; i++) {
    if (!red[i])
      ys[yr++] = xs[i], c->B *= xs[i], kept = true;
    else if (!kept)
      c->A *= xs[i];
    else
      c->C *= xs[i];
  }
  if (!kept) c->C *= c->A, c->A = 1;
  if (!(c->x = case_add(info, "x", false, c->dt, rank, xs, err, el)) ||
      !(c->y = case_add(info, "y", true, c->dt, yr, ys, err, el)))
    goto fail;
  const double numel = (double)(c->A * c->B * c->C), e = (double)nkl_dtype_size(c->dt);
  nkl_fill_normal(c->x->data, c->dt, c->A * c->B * c->C, 1, 1.0);
  info->flops = 2 * numel + (p == 2 ? 1 : 0);
  info->bytes = (numel + (double)c->B) * e;
  return c;
fail:
  case_free_args(info);
  free(c);
  return NULL;
}

static void *l1_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  return lp_create(d, info, 1, err, el);
}
static void *l2_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  return lp_create(d, info, 2, err, el);
}

static nkl_status lp_run(void *p) {
  lp_case *c = p;
  return c->p == 1 ? nkl_l1norm_fwd(c->x, c->dims, c->ndims, c->y)
                   : nkl_l2norm_fwd(c->x, c->dims, c->ndims, c->y);
}

static void lp_check(void *p, check_result *res) {
  lp_case *c = p;
  double *ref = malloc((size_t)c->B * 8);
  oracle_lpnorm(c->x->data, c->dt, c->A, c->B, c->C, c->p, ref);
  nkl_cmp_init(&res->cmp);
  for (int64_t b = 0; b < c->B; b++)
    nkl_cmp_add(&res->cmp, nkl_get(c->y->data, c->dt, b), ref[b],
                lpnorm_tolerance(c->dt, c->A, c->C, ref[b]), b);
  res->pass = res->cmp.bad == 0;
  snprintf(res->note, sizeof res->note, "all %lld outputs", (long long)c->B);
  free(ref);
}

static void lp_destroy(void *p) {
  lp_case *c = p;
  case_free_args(c->info);
  free(c);
}

static const nkl_adapter kL1 = {"L1NormFwd", l1_create, lp_run, lp_check, lp_destroy};
static const nkl_adapter kL2 = {"L2NormFwd", l2_create, lp_run, lp_check, lp_destroy};

/* ---- SpectralNormPowerIterFwd --------------------------------------------------------- */

typedef struct sn_case {
  nkl_dtype dt;
  int64_t o, i;
  case_info *info;
  nkl_tensor *w, *u, *uo, *v, *sigma;
} sn_case;

static void *sn_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  static const nkl_dtype kTypes[] = {NKL_F32, NKL_F16, NKL_BF16};
  sn_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->info = info;
  int64_t xs[NKL_MAX_RANK], ns[NKL_MAX_RANK], one = 1;
  int rank = 0, nn = 0;
  if (case_dtype(d, kTypes, 3, &c->dt, err, el) < 0) goto fail;
  int r = desc_ints(d, "x", xs, NKL_MAX_RANK, &rank, err, el);
  if (r != 0 || rank != 2) {
    if (r >= 0) snprintf(err, el, "%s needs x=[O,I]", d->op);
    goto fail;
  }
  if ((r = desc_ints(d, "normalized", ns, NKL_MAX_RANK, &nn, err, el)) < 0) goto fail;
  c->o = xs[0], c->i = xs[1];
  if (!(c->w = case_add(info, "weight", false, c->dt, 2, xs, err, el)) ||
      !(c->u = case_add(info, "u", false, NKL_F32, 1, &c->o, err, el)) ||
      !(c->uo = case_add(info, "u_out", true, NKL_F32, 1, &c->o, err, el)) ||
      !(c->v = case_add(info, "v_out", true, NKL_F32, 1, &c->i, err, el)) ||
      !(c->sigma = case_add(info, "sigma", true, NKL_F32, 1, &one, err, el)))
    goto fail;
  nkl_fill_normal(c->w->data, c->dt, c->o * c->i, 1, 1.0);
  /* u: seeded normal, unit-normalized (the spec's choice); v needs no input value */
  float *u = c->u->data;
  nkl_fill_normal(u, NKL_F32, c->o, 9, 1.0);
  double nu = 0.0;
  for (int64_t k = 0; k < c->o; k++) nu += (double)u[k] * u[k];
  for (int64_t k = 0; k < c->o; k++) u[k] = (float)(u[k] / sqrt(nu));
  const double oi = (double)(c->o * c->i), opi = (double)(c->o + c->i);
  info->flops = 6 * oi + 6 * opi;
  info->bytes = oi * (double)nkl_dtype_size(c->dt) + 8 * opi + 4;
  return c;
fail:
  case_free_args(info);
  free(c);
  return NULL;
}

static nkl_status sn_run(void *p) {
  sn_case *c = p;
  return nkl_spectral_norm_power_iter_fwd(c->w, c->u, 1e-12f, c->uo, c->v, c->sigma);
}

static void sn_check(void *p, check_result *res) {
  sn_case *c = p;
  double *u = malloc((size_t)c->o * 8), *ru = malloc((size_t)c->o * 8),
         *eu = malloc((size_t)c->o * 8);
  double *rv = malloc((size_t)c->i * 8), *ev = malloc((size_t)c->i * 8), es;
  for (int64_t k = 0; k < c->o; k++) u[k] = ((float *)c->u->data)[k];
  const double sigma =
      oracle_spectral_power_iter(c->w->data, c->dt, c->o, c->i, u, 1e-12, ru, rv, eu, ev, &es);
  nkl_cmp_init(&res->cmp);
  for (int64_t j = 0; j < c->i; j++)
    nkl_cmp_add(&res->cmp, ((float *)c->v->data)[j], rv[j], ev[j], j);
  for (int64_t k = 0; k < c->o; k++)
    nkl_cmp_add(&res->cmp, ((float *)c->uo->data)[k], ru[k], eu[k], c->i + k);
  nkl_cmp_add(&res->cmp, *(float *)c->sigma->data, sigma, es, -1);
  res->pass = res->cmp.bad == 0;
  snprintf(res->note, sizeof res->note, "sigma, all %lld of u_out and %lld of v_out",
           (long long)c->o, (long long)c->i);
  free(u), free(ru), free(eu), free(rv), free(ev);
}

static void sn_destroy(void *p) {
  sn_case *c = p;
  case_free_args(c->info);
  free(c);
}

static const nkl_adapter kSpectral = {"SpectralNormPowerIterFwd", sn_create, sn_run, sn_check,
                                      sn_destroy};

const nkl_adapter *const nkl_norm_adapters[] = {
    &kRmsNormFwd, &kLayerNormFwd, &kGemma, &kFaddRms,  &kFaddLn, &kAdaLn,
    &kQk,         &kGroup,        &kRmsQ,  &kLnQ,      &kWn,     &kRmsBwd,
    &kLnBwd,      &kL1,           &kL2,    &kSpectral, NULL};
