/* Adapters of the normalization family (see adapter.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

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
    if (c->kind == RN_RMS) rstd = oracle_rmsnorm_row(x, n, c->w ? w : NULL, c->eps, y);
    else rstd = oracle_layernorm_row(x, n, c->w ? w : NULL, c->b ? b : NULL, c->eps, y, &mean);
    for (int64_t i = 0; i < n; i++)
      nkl_cmp_add(&res->cmp, nkl_get(yrow, c->dt, i), y[i],
                  rownorm_tolerance(c->dt, n, y[i], (fabs(x[i]) + fabs(mean)) * rstd + 1.0, w[i], b[i]),
                  r * n + i);
    nkl_cmp_add(&res->cmp, ((float *)c->rstd->data)[r], rstd, 4 * gamma * rstd, -1);
    if (c->mean)
      nkl_cmp_add(&res->cmp, ((float *)c->mean->data)[r], mean, 4 * gamma * (fabs(mean) + 1.0 / rstd), -1);
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

const nkl_adapter *const nkl_norm_adapters[] = {&kRmsNormFwd, &kLayerNormFwd, NULL};
