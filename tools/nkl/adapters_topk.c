/* Adapters of the topk family (see adapter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

typedef struct tk_case {
  int64_t B, S, S_kv, G, k;
  case_info *info;
  nkl_tensor *x, *starts, *ends, *out;
} tk_case;

/* Approximately standard normal scores, fast enough for 8 GiB: each value is the sum of four
 * 16-bit uniforms of one splitmix64 draw (Irwin-Hall, variance scaled to 1), seeded per row
 * so rows fill in parallel and reproducibly. Values repeat (18-bit resolution), so the tie
 * rule is exercised too. */
static void fill_rows(float *x, int64_t rows, int64_t len, uint64_t seed) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + (uint64_t)r;
    float *row = x + r * len;
    for (int64_t j = 0; j < len; j++) {
      const uint64_t u = nkl_rand_u64(&s);
      const int64_t sum = (int64_t)(u & 0xFFFF) + (int64_t)((u >> 16) & 0xFFFF) +
                          (int64_t)((u >> 32) & 0xFFFF) + (int64_t)(u >> 48);
      /* mean 4 * 32767.5, variance 4 * (65536^2 - 1) / 12 */
      row[j] = (float)(((double)sum - 131070.0) * (1.7320508075688772 / 65536.0));
    }
  }
}

static void *tk_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  static const nkl_dtype kTypes[] = {NKL_F32};
  tk_case *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->info = info;
  nkl_dtype dt;
  c->B = 1, c->G = 1;
  if (case_dtype(d, kTypes, 1, &dt, err, el) < 0) goto fail;
  if (desc_int(d, "batch", &c->B, err, el) < 0 || desc_int(d, "kv_group", &c->G, err, el) < 0)
    goto fail;
  if (desc_int(d, "seq_len", &c->S, err, el) != 0 ||
      desc_int(d, "seq_len_kv", &c->S_kv, err, el) != 0 ||
      desc_int(d, "topk", &c->k, err, el) != 0) {
    if (!err[0]) snprintf(err, el, "%s needs seq_len=, seq_len_kv=, topk=", d->op);
    goto fail;
  }
  if (c->B < 1 || c->S < 1 || c->S_kv < 1 || c->G < 1 || c->k < 1 || c->k > c->S_kv) {
    snprintf(err, el, "sizes must be >= 1 and topk <= seq_len_kv");
    goto fail;
  }
  const int64_t xs[4] = {c->B, c->S, c->S_kv, c->G}, ws[2] = {c->B, c->S},
                os[4] = {c->B, c->S, c->G, c->k};
  if (!(c->x = case_add(info, "index_score", false, NKL_F32, 4, xs, err, el))) goto fail;
  if (!(c->starts = case_add(info, "starts", false, NKL_I32, 2, ws, err, el))) goto fail;
  if (!(c->ends = case_add(info, "ends", false, NKL_I32, 2, ws, err, el))) goto fail;
  if (!(c->out = case_add(info, "indices", true, NKL_I32, 4, os, err, el))) goto fail;
  fill_rows(c->x->data, c->B * c->S, c->S_kv * c->G, 1);
  for (int64_t i = 0; i < c->B * c->S; i++) {
    ((int32_t *)c->starts->data)[i] = 0; /* the catalog's full windows */
    ((int32_t *)c->ends->data)[i] = (int32_t)c->S_kv;
  }
  const double rows = (double)(c->B * c->S * c->G);
  info->flops = rows * (double)c->S_kv;
  info->bytes =
      4.0 * rows * (double)c->S_kv + 8.0 * (double)(c->B * c->S) + 4.0 * rows * (double)c->k;
  return c;
fail:
  case_free_args(info);
  free(c);
  return NULL;
}

static nkl_status tk_run(void *p) {
  tk_case *c = p;
  return nkl_topk_selector_fwd(c->x, c->starts, c->ends, c->k, c->out);
}

/* Every row with the one-pass verifier (membership, order, ties, window, -1 padding, and no
 * better score left out), and a sample of rows against the full sort. */
static void tk_check(void *p, check_result *res) {
  tk_case *c = p;
  const int64_t rows = c->B * c->S * c->G, k = c->k;
  const float *x = c->x->data;
  const int32_t *st = c->starts->data, *en = c->ends->data, *out = c->out->data;
  int64_t bad = 0, first_bad = -1, sampled = 0, sample_bad = 0;
  char first_msg[200] = "";
  nkl_cmp_init(&res->cmp);
#pragma omp parallel reduction(+ : bad, sampled, sample_bad)
  {
    uint8_t *mark = calloc((size_t)c->S_kv, 1);
    int32_t *ref = malloc((size_t)k * 4);
    char msg[200];
#pragma omp for schedule(dynamic, 64)
    for (int64_t r = 0; r < rows; r++) {
      const int64_t bs = r / c->G, g = r % c->G;
      const float *row = x + bs * c->S_kv * c->G + g;
      bool ok = oracle_topk_verify_row(row, c->G, c->S_kv, st[bs], en[bs], k, out + r * k, mark,
                                       msg, sizeof msg);
      if (r % 512 == 0 || r == rows - 1) {
        oracle_topk_row(row, c->G, c->S_kv, st[bs], en[bs], k, ref);
        sampled++;
        if (memcmp(ref, out + r * k, (size_t)k * 4) != 0) {
          if (ok) snprintf(msg, sizeof msg, "differs from the sorted reference");
          ok = false;
          sample_bad++;
        }
      }
      if (!ok) {
        bad++;
#pragma omp critical
        if (first_bad < 0 || r < first_bad) {
          first_bad = r;
          snprintf(first_msg, sizeof first_msg, "%s", msg);
        }
      }
    }
    free(mark);
    free(ref);
  }
  res->cmp.checked = rows;
  res->cmp.bad = bad;
  res->cmp.worst = first_bad;
  res->pass = bad == 0;
  if (bad)
    snprintf(res->note, sizeof res->note, "row %lld: %.100s", (long long)first_bad, first_msg);
  else
    snprintf(res->note, sizeof res->note, "all %lld rows verified, %lld sorted fully",
             (long long)rows, (long long)sampled);
  (void)sample_bad;
}

static void tk_destroy(void *p) {
  tk_case *c = p;
  case_free_args(c->info);
  free(c);
}

static const nkl_adapter kTopk = {"TopkSelectorFwd", tk_create, tk_run, tk_check, tk_destroy};

const nkl_adapter *const nkl_topk_adapters[] = {&kTopk, NULL};
