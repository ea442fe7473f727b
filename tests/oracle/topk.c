/* Oracle of the top-k selector: a full sort of the window (qsort with the spec's order),
 * and a one-pass verifier for rows too many to sort. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "oracle/oracle.h"

typedef struct {
  double v;
  int64_t j;
} item;

/* True if (a, ia) ranks before (b, ib): NaN above everything, then larger values, then the
 * lower index (-0 and +0 compare equal). */
static bool before(double a, int64_t ia, double b, int64_t ib) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? ia < ib : isnan(a);
  if (a != b) return a > b;
  return ia < ib;
}

static int cmp_items(const void *p, const void *q) {
  const item *a = p, *b = q;
  return before(a->v, a->j, b->v, b->j) ? -1 : before(b->v, b->j, a->v, a->j) ? 1 : 0;
}

static void window(int64_t s_kv, int64_t *start, int64_t *end) {
  if (*start < 0) *start = 0;
  if (*end > s_kv) *end = s_kv;
  if (*end < *start) *end = *start;
}

void oracle_topk_row(const float *x, int64_t stride, int64_t s_kv, int64_t start, int64_t end,
                     int64_t k, int32_t *out) {
  window(s_kv, &start, &end);
  const int64_t n = end - start;
  item *it = malloc((size_t)(n > 0 ? n : 1) * sizeof *it);
  for (int64_t j = start; j < end; j++) it[j - start] = (item){x[j * stride], j};
  qsort(it, (size_t)n, sizeof *it, cmp_items);
  for (int64_t i = 0; i < k; i++) out[i] = i < n ? (int32_t)it[i].j : -1;
  free(it);
}

bool oracle_topk_verify_row(const float *x, int64_t stride, int64_t s_kv, int64_t start,
                            int64_t end, int64_t k, const int32_t *got, uint8_t *mark, char *msg,
                            size_t len) {
  window(s_kv, &start, &end);
  const int64_t n = end - start, want = n < k ? n : k;
  bool ok = true;
  int64_t i = 0;
  for (; i < want && ok; i++) {
    const int64_t j = got[i];
    if (j < start || j >= end) {
      snprintf(msg, len, "slot %lld holds %lld, outside the window [%lld, %lld)", (long long)i,
               (long long)j, (long long)start, (long long)end);
      ok = false;
    } else if (mark[j]) {
      snprintf(msg, len, "slot %lld repeats position %lld", (long long)i, (long long)j);
      ok = false;
    } else if (i > 0 && !before(x[got[i - 1] * stride], got[i - 1], x[j * stride], j)) {
      snprintf(msg, len, "slots %lld, %lld out of order (%lld: %.9g, %lld: %.9g)",
               (long long)(i - 1), (long long)i, (long long)got[i - 1], x[got[i - 1] * stride],
               (long long)j, x[j * stride]);
      ok = false;
    } else {
      mark[j] = 1;
    }
  }
  for (int64_t t = want; t < k && ok; t++)
    if (got[t] != -1) {
      snprintf(msg, len, "slot %lld holds %lld; the window has only %lld positions", (long long)t,
               (long long)got[t], (long long)n);
      ok = false;
    }
  if (ok && want > 0 && want < n) {
    const int64_t last = got[want - 1];
    for (int64_t j = start; j < end && ok; j++)
      if (!mark[j] && before(x[j * stride], j, x[last * stride], last)) {
        snprintf(
            msg, len, "position %lld (%.9g) was left out but ranks before slot %lld (%lld: %.9g)",
            (long long)j, x[j * stride], (long long)(want - 1), (long long)last, x[last * stride]);
        ok = false;
      }
  }
  for (int64_t t = 0; t < i && t < want; t++)
    if (got[t] >= start && got[t] < end) mark[got[t]] = 0;
  return ok;
}
