#include "calibration.h"

#include "adapter.h"

#include <cjson/cJSON.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

int calibration_load(const char *path, calibration *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->path, sizeof c->path, "%s", path ? path : CALIBRATION_DEFAULT);
  FILE *f = fopen(c->path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  buf[n] = '\0';
  cJSON *doc = cJSON_Parse(buf);
  free(buf);
  if (!doc) return -1;
  c->bandwidth_gbps = num(cJSON_GetObjectItem(doc, "memory"), "bandwidth_gbps");
  const cJSON *p = cJSON_GetObjectItem(doc, "peaks");
  c->f32_gflops = num(p, "f32_gflops");
  c->bf16_gflops = num(p, "bf16_gflops");
  c->int8_gops = num(p, "int8_gops");
  cJSON_Delete(doc);
  c->ok = c->bandwidth_gbps > 0 && c->f32_gflops > 0;
  return c->ok ? 0 : -1;
}

static double triad_wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- bandwidth ------------------------------------------------------------------------- */

/* The passes of a triad over arrays a, b, c of n doubles (b and c hold 1 and 2). */
static double triad_passes(double *a, const double *b, const double *c, size_t n, int threads,
                           int passes, double *runs) {
  const long long nn = (long long)n;
  const double s = 3.0;
  for (int p = 0; p < passes; p++) {
    const double t0 = triad_wall();
#pragma omp parallel for schedule(static) num_threads(threads)
    for (long long i = 0; i < nn; i++) a[i] = b[i] + s * c[i];
    runs[p] = 3.0 * sizeof(double) * (double)n / (triad_wall() - t0) / 1e9;
  }
  volatile double sink = a[n / 2];
  (void)sink;
  /* STREAM's convention: the best pass (interference from other tenants only slows a pass
   * down, so the best one is the most repeatable estimate of what the machine can do). */
  double best = 0;
  for (int p = 0; p < passes; p++) best = runs[p] > best ? runs[p] : best;
  return best;
}

static double *triad_alloc(size_t n, int threads, double **b, double **c) {
  /* the page size of the benchmarked tensors (huge pages, see case_alloc), so that SOL
   * compares like with like; the pages are first touched by the threads below */
  double *a = case_alloc_untouched(n * sizeof(double));
  *b = case_alloc_untouched(n * sizeof(double));
  *c = case_alloc_untouched(n * sizeof(double));
  if (!a || !*b || !*c) {
    case_free(a), case_free(*b), case_free(*c);
    *b = *c = NULL;
    return NULL;
  }
  const long long nn = (long long)n;
  double *bb = *b, *cc = *c;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long long i = 0; i < nn; i++) a[i] = 0.0, bb[i] = 1.0, cc[i] = 2.0;
  return a;
}

double calibration_triad_gbps(size_t n, int threads, int passes, double *runs) {
  double *b, *c, *a = triad_alloc(n, threads, &b, &c);
  if (!a) return 0;
  const double best = triad_passes(a, b, c, n, threads, passes, runs);
  case_free(a), case_free(b), case_free(c);
  return best;
}

static double *g_kept[3];
static size_t g_kept_n;

double calibration_triad_kept(size_t n, int threads, int passes, double *runs) {
  if (g_kept[0] && g_kept_n != n) calibration_triad_release();
  if (!g_kept[0]) {
    g_kept[0] = triad_alloc(n, threads, &g_kept[1], &g_kept[2]);
    if (!g_kept[0]) return 0;
    g_kept_n = n;
  }
  return triad_passes(g_kept[0], g_kept[1], g_kept[2], n, threads, passes, runs);
}

void calibration_triad_release(void) {
  for (int k = 0; k < 3; k++) case_free(g_kept[k]), g_kept[k] = NULL;
  g_kept_n = 0;
}
