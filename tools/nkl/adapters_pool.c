/* Adapters of the pool family (see adapter.h): one create/run/check for all eight pools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

typedef enum { PK_MAX, PK_AVG, PK_AMAX, PK_AAVG } pk_kind;

typedef struct pk_case {
  pk_kind kind;
  int nsp;
  nkl_dtype dt;
  int64_t n, c;
  nkl_pool_params p;
  oracle_pool q;
  case_info *info;
  nkl_tensor *x, *y;
} pk_case;

/* A per-axis parameter: a list of nsp values, or one integer for every axis. */
static int axis_param(nkl_desc *d, const char *key, int nsp, int64_t *out, char *err, size_t el) {
  int64_t v[DESC_MAX_LIST];
  int n = 0;
  const int r = desc_ints(d, key, v, DESC_MAX_LIST, &n, err, el);
  if (r != 0) return r;
  if (n != nsp && n != 1) {
    snprintf(err, el, "%s needs %d values (or one for all)", key, nsp);
    return -1;
  }
  for (int i = 0; i < nsp; i++) out[i] = v[n == 1 ? 0 : i];
  return 0;
}

static void *pk_create(nkl_desc *d, case_info *info, pk_kind kind, int nsp, char *err, size_t el) {
  static const nkl_dtype kTypes[] = {NKL_F32, NKL_F16, NKL_BF16};
  static const char *const kIn[3][3] = {{"L_in"}, {"H_in", "W_in"}, {"D_in", "H_in", "W_in"}};
  pk_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->kind = kind, c->nsp = nsp, c->info = info;
  oracle_pool *q = &c->q;
  q->nsp = nsp, q->avg = kind == PK_AVG || kind == PK_AAVG, q->adaptive = kind >= PK_AMAX;
  bool ceil_mode = false, cip = true;
  if (case_dtype(d, kTypes, 3, &c->dt, err, el) < 0) goto fail;
  if (desc_int(d, "N", &c->n, err, el) != 0 || desc_int(d, "C", &c->c, err, el) != 0) {
    if (!err[0]) snprintf(err, el, "%s needs N=... C=...", d->op);
    goto fail;
  }
  for (int i = 0; i < nsp; i++)
    if (desc_int(d, kIn[nsp - 1][i], &q->in[i], err, el) != 0) {
      if (!err[0]) snprintf(err, el, "%s needs %s=...", d->op, kIn[nsp - 1][i]);
      goto fail;
    }
  if (q->adaptive) {
    if (axis_param(d, "output_size", nsp, q->out, err, el) != 0) {
      if (!err[0]) snprintf(err, el, "%s needs output_size=[...]", d->op);
      goto fail;
    }
  } else {
    if (axis_param(d, "kernel_size", nsp, q->k, err, el) != 0) {
      if (!err[0]) snprintf(err, el, "%s needs kernel_size=...", d->op);
      goto fail;
    }
    for (int i = 0; i < nsp; i++)
      q->s[i] = q->k[i], q->p[i] = 0, q->d[i] = 1; /* PyTorch defaults */
    if (axis_param(d, "stride", nsp, q->s, err, el) < 0 ||
        axis_param(d, "padding", nsp, q->p, err, el) < 0 ||
        (kind == PK_MAX && axis_param(d, "dilation", nsp, q->d, err, el) < 0) ||
        desc_bool(d, "ceil_mode", &ceil_mode, err, el) < 0)
      goto fail;
    if (kind == PK_AVG && (desc_bool(d, "count_include_pad", &cip, err, el) < 0 ||
                           desc_int(d, "divisor_override", &q->divisor_override, err, el) < 0))
      goto fail;
    q->ceil_mode = ceil_mode, q->count_include_pad = cip;
    for (int i = 0; i < nsp; i++) {
      c->p.kernel_size[i] = q->k[i], c->p.stride[i] = q->s[i];
      c->p.padding[i] = q->p[i], c->p.dilation[i] = q->d[i];
      if (q->k[i] < 1 || q->s[i] < 1 || q->d[i] < 1 || q->p[i] < 0 || q->in[i] < 1) {
        snprintf(err, el, "axis %d: sizes and parameters must be positive", i);
        goto fail;
      }
      q->out[i] = oracle_pool_out_size(q->in[i], q->k[i], q->s[i], q->p[i], q->d[i], ceil_mode);
      if (q->out[i] < 1) {
        snprintf(err, el, "axis %d: input %lld too small for the window", i, (long long)q->in[i]);
        goto fail;
      }
    }
    c->p.ceil_mode = ceil_mode, c->p.count_include_pad = cip;
    c->p.divisor_override = q->divisor_override;
  }
  int64_t xs[5] = {c->n, c->c}, ys[5] = {c->n, c->c};
  double in = 1, out = 1, taps = 1;
  for (int i = 0; i < nsp; i++) {
    xs[2 + i] = q->in[i], ys[2 + i] = q->out[i];
    in *= (double)q->in[i], out *= (double)q->out[i];
    taps *= q->adaptive ? (double)q->in[i] / (double)q->out[i] : (double)q->k[i];
  }
  if (!(c->x = case_add(info, "x", false, c->dt, nsp + 2, xs, err, el))) goto fail;
  if (!(c->y = case_add(info, "y", true, c->dt, nsp + 2, ys, err, el))) goto fail;
  nkl_fill_normal(c->x->data, c->dt, c->n * c->c * (int64_t)in, 1, 1.0);
  const double planes = (double)(c->n * c->c), e = (double)nkl_dtype_size(c->dt);
  info->flops = planes * out * taps;
  info->bytes = planes * (in + out) * e;
  return c;
fail:
  case_free_args(info);
  free(c);
  return NULL;
}

#define CREATE(name, kind, nsp)                                           \
  static void *name(nkl_desc *d, case_info *info, char *err, size_t el) { \
    return pk_create(d, info, kind, nsp, err, el);                        \
  }
CREATE(max1_create, PK_MAX, 1)
CREATE(max2_create, PK_MAX, 2)
CREATE(max3_create, PK_MAX, 3)
CREATE(avg1_create, PK_AVG, 1)
CREATE(avg2_create, PK_AVG, 2)
CREATE(avg3_create, PK_AVG, 3)
CREATE(amax_create, PK_AMAX, 2)
CREATE(aavg_create, PK_AAVG, 2)

static nkl_status pk_run(void *p) {
  pk_case *c = p;
  switch (c->kind) {
    case PK_MAX:
      return c->nsp == 1   ? nkl_maxpool1d_fwd(c->x, &c->p, c->y)
             : c->nsp == 2 ? nkl_maxpool2d_fwd(c->x, &c->p, c->y)
                           : nkl_maxpool3d_fwd(c->x, &c->p, c->y);
    case PK_AVG:
      return c->nsp == 1   ? nkl_avgpool1d_fwd(c->x, &c->p, c->y)
             : c->nsp == 2 ? nkl_avgpool2d_fwd(c->x, &c->p, c->y)
                           : nkl_avgpool3d_fwd(c->x, &c->p, c->y);
    case PK_AMAX: return nkl_adaptive_maxpool2d_fwd(c->x, c->y);
    default: return nkl_adaptive_avgpool2d_fwd(c->x, c->y);
  }
}

/* Every output of every plane against the oracle; planes in parallel (the oracle is a plain
 * loop per output, and the 3-d rows hold 100M inputs). */
static void pk_check(void *p, check_result *res) {
  pk_case *c = p;
  int64_t in = 1, out = 1;
  for (int i = 0; i < c->nsp; i++) in *= c->q.in[i], out *= c->q.out[i];
  const int64_t planes = c->n * c->c;
  nkl_cmp_init(&res->cmp);
#pragma omp parallel
  {
    double *x = malloc((size_t)in * 8), *y = malloc((size_t)out * 8),
           *mag = malloc((size_t)out * 8);
    nkl_cmp local;
    nkl_cmp_init(&local);
#pragma omp for schedule(dynamic, 8)
    for (int64_t pl = 0; pl < planes; pl++) {
      for (int64_t i = 0; i < in; i++) x[i] = nkl_get(c->x->data, c->dt, pl * in + i);
      oracle_pool_plane(&c->q, x, y, mag);
      for (int64_t i = 0; i < out; i++)
        nkl_cmp_add(&local, nkl_get(c->y->data, c->dt, pl * out + i), y[i],
                    oracle_pool_tolerance(&c->q, c->dt, y[i], mag[i]), pl * out + i);
    }
#pragma omp critical
    nkl_cmp_merge(&res->cmp, &local);
    free(x);
    free(y);
    free(mag);
  }
  res->pass = res->cmp.bad == 0 && res->cmp.checked == planes * out;
  snprintf(res->note, sizeof res->note, "all %lld outputs", (long long)(planes * out));
}

static void pk_destroy(void *p) {
  pk_case *c = p;
  case_free_args(c->info);
  free(c);
}

static const nkl_adapter kMaxPool1d = {"MaxPool1dFwd", max1_create, pk_run, pk_check, pk_destroy};
static const nkl_adapter kMaxPool2d = {"MaxPool2dFwd", max2_create, pk_run, pk_check, pk_destroy};
static const nkl_adapter kMaxPool3d = {"MaxPool3dFwd", max3_create, pk_run, pk_check, pk_destroy};
static const nkl_adapter kAvgPool1d = {"AvgPool1dFwd", avg1_create, pk_run, pk_check, pk_destroy};
static const nkl_adapter kAvgPool2d = {"AvgPool2dFwd", avg2_create, pk_run, pk_check, pk_destroy};
static const nkl_adapter kAvgPool3d = {"AvgPool3dFwd", avg3_create, pk_run, pk_check, pk_destroy};
static const nkl_adapter kAdaptiveMax = {"AdaptiveMaxPool2dFwd", amax_create, pk_run, pk_check,
                                         pk_destroy};
static const nkl_adapter kAdaptiveAvg = {"AdaptiveAvgPool2dFwd", aavg_create, pk_run, pk_check,
                                         pk_destroy};

const nkl_adapter *const nkl_pool_adapters[] = {&kMaxPool2d,   &kAvgPool2d,   &kMaxPool1d,
                                                &kAvgPool1d,   &kMaxPool3d,   &kAvgPool3d,
                                                &kAdaptiveMax, &kAdaptiveAvg, NULL};
