/* nkl bench's cross-check of candidates for ops without an oracle adapter yet (see
 * bench_xcheck.h). */
#include "bench_xcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XC_MAX_ELEMS ((int64_t)64 << 20)

/* The elements of the case's outputs, all together; *dt the last output's dtype. */
static int64_t output_elems(const case_info *info, nkl_dtype *dt) {
  int64_t total = 0;
  *dt = NKL_F32;
  for (int i = 0; i < info->nargs; i++)
    if (info->args[i].is_output) {
      int64_t n = 1;
      for (int k = 0; k < info->args[i].t.rank; k++) n *= info->args[i].t.shape[k];
      total += n;
      *dt = info->args[i].t.dtype;
    }
  return total;
}

/* The candidates' outputs as floats, one snapshot per candidate (NULL if not taken). */
static float *snapshot(const case_info *info) {
  nkl_dtype dt;
  const int64_t total = output_elems(info, &dt);
  if (total == 0 || total > XC_MAX_ELEMS) return NULL;
  float *buf = malloc(sizeof(float) * (size_t)total);
  if (!buf) return NULL;
  int64_t at = 0;
  for (int i = 0; i < info->nargs; i++)
    if (info->args[i].is_output) {
      const nkl_tensor *t = &info->args[i].t;
      int64_t n = 1;
      for (int k = 0; k < t->rank; k++) n *= t->shape[k];
      for (int64_t j = 0; j < n; j++) buf[at++] = (float)nkl_get(t->data, t->dtype, j);
    }
  return buf;
}

/* Without an oracle, every candidate is compared with the reference candidate on the same
 * inputs: max |a - b| relative to max |reference| (bench_xcheck.h). */
void cross_check(bl_candidate *bl, int nbl, const timing *const *tk, case_info *info, xcheck *xc) {
  memset(xc, 0, sizeof(xcheck) * (size_t)nbl);
  nkl_dtype odt;
  const int64_t n = output_elems(info, &odt);
  int ref = -1;
  for (int k = 0; k < nbl; k++)
    if (bl[k].status == BL_OK && tk[k] && !tk[k]->status && bl[k].fetch &&
        strcmp(bl[k].name, "torch_eager") == 0)
      ref = k;
  for (int k = 0; k < nbl && ref < 0; k++)
    if (bl[k].status == BL_OK && tk[k] && !tk[k]->status && bl[k].fetch) ref = k;
  if (ref < 0) return;
  if (n > XC_MAX_ELEMS) {
    for (int k = 0; k < nbl; k++)
      snprintf(xc[k].note, sizeof xc[k].note,
               "no oracle adapter yet; outputs too large to cross-check");
    return;
  }
  char miss[200];
  float *rv = NULL;
  if (bl[ref].fetch(bl[ref].state, info, miss, sizeof miss) > 0) rv = snapshot(info);
  if (!rv) return;
  double rmax = 0;
  for (int64_t j = 0; j < n; j++) rmax = fmax(rmax, fabs(rv[j]));
  const double tol = 8 * nkl_unit_roundoff(odt) + 1e-4;
  for (int k = 0; k < nbl; k++) {
    if (bl[k].status != BL_OK || !tk[k] || tk[k]->status || !bl[k].fetch) continue;
    if (k == ref) {
      xc[k].done = 1;
      xc[k].agrees = true;
      snprintf(xc[k].note, sizeof xc[k].note,
               "no oracle adapter yet; reference of the cross-check");
      continue;
    }
    float *v = NULL;
    if (bl[k].fetch(bl[k].state, info, miss, sizeof miss) > 0) v = snapshot(info);
    if (!v) continue;
    double err = 0;
    bool nan_mismatch = false;
    for (int64_t j = 0; j < n; j++) {
      if (isnan(rv[j]) != isnan(v[j]))
        nan_mismatch = true;
      else if (!isnan(rv[j]))
        err = fmax(err, fabs((double)v[j] - rv[j]));
    }
    xc[k].done = 1;
    xc[k].max_rel = rmax > 0 ? err / rmax : err;
    xc[k].agrees = !nan_mismatch && xc[k].max_rel <= tol;
    snprintf(xc[k].note, sizeof xc[k].note,
             "no oracle adapter yet; vs %s: max error %.2g of max |ref| (tol %.2g)%s", bl[ref].name,
             xc[k].max_rel, tol, nan_mismatch ? ", NaN pattern differs" : "");
    free(v);
  }
  free(rv);
}
