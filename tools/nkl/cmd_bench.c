/* nkl bench: time nkl on workloads with the protocol of docs/methodology.md. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "workload_case.h"

static const char kHelp[] =
    "usage: nkl bench [--op OP | --family F | --id W | --desc \"DESCRIPTOR\"] [--json FILE]\n"
    "                 [--warm] [--threads N] [--samples 30] [--warmup 10]\n"
    "  Times nkl on each selected workload: untimed setup, --warmup calls, then --samples\n"
    "  timed calls with the last-level cache evicted before each (--warm: no eviction).\n"
    "  Calls under ~20 us are timed in batches (marked 'batch N'). Prints median, min, p90\n"
    "  (ms), coefficient of variation, GB/s and GFLOP/s from the analytic bytes and flops,\n"
    "  and the kernel that ran. --json FILE also writes every sample.\n";

typedef struct run_ctx {
  const nkl_adapter *a;
  void *c;
} run_ctx;

static int run_ours(void *p) {
  run_ctx *r = p;
  return (int)r->a->run(r->c);
}

static cJSON *timing_json(const timing *t) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "median_ms", t->median);
  cJSON_AddNumberToObject(o, "min_ms", t->min);
  cJSON_AddNumberToObject(o, "p90_ms", t->p90);
  cJSON_AddNumberToObject(o, "cv", t->cv);
  cJSON_AddNumberToObject(o, "batch", t->batch);
  cJSON_AddItemToObject(o, "samples_ms", cJSON_CreateDoubleArray(t->ms, t->n));
  return o;
}

int cmd_bench(int argc, char **argv) {
  cli_opts o;
  if (cli_parse(argc, argv, 2, "bench", "op family id desc json warm threads samples warmup", &o) < 0)
    return EXIT_USAGE;
  if (o.help) {
    fputs(kHelp, stdout);
    return 0;
  }
  if (o.threads) nkl_set_num_threads(o.threads);
  catalog c;
  char err[300];
  if (catalog_load(&c, err, sizeof err) < 0) {
    fprintf(stderr, "nkl bench: %s\n", err);
    return EXIT_USAGE;
  }
  workload *w;
  const int n = catalog_select(&c, &o.sel, &w, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "nkl bench: %s\n", err);
    catalog_free(&c);
    return EXIT_USAGE;
  }
  time_opts to;
  time_opts_default(&to);
  to.warm = o.warm;
  to.samples = o.samples;
  to.warmup = o.warmup;
  cJSON *rows = cJSON_CreateArray();
  int failed = 0, usage_error = 0;
  const bool tty = isatty(2);
  printf("# threads %d, isa %s, %s cache, %d warm-up + %d timed calls, median of samples\n",
         nkl_get_num_threads(), nkl_isa_name(nkl_active_isa()), o.warm ? "warm" : "cold",
         to.warmup, to.samples);
  printf("%-26s %-4s %-5s %-22s %10s %10s %10s %6s %9s %9s  %s\n", "op", "id", "dtype", "label",
         "median_ms", "min_ms", "p90_ms", "cv%", "GB/s", "GFLOP/s", "kernel");
  for (int i = 0; i < n; i++) {
    if (tty) fprintf(stderr, "\r[%d/%d] %s %s ...\033[K", i + 1, n, w[i].op, w[i].id);
    workload_case wc;
    const int r = workload_open(&w[i], &wc, err, sizeof err);
    if (r != 0) {
      if (tty) fprintf(stderr, "\r\033[K");
      if (r < 0 && o.sel.desc) {
        fprintf(stderr, "nkl bench: %s\n", err);
        usage_error = 1;
        break;
      }
      printf("%-26s %-4s %-5s %-22s %s\n", w[i].op, w[i].id, w[i].dtype, w[i].label,
             r == 1 ? "skipped: not implemented yet" : err);
      failed += r < 0;
      continue;
    }
    run_ctx rc = {wc.adapter, wc.c};
    candidate cand = {"nkl", run_ours, &rc};
    timing t;
    time_candidates(&cand, 1, &to, &t);
    const char *kernel = nkl_last_kernel();
    if (tty) fprintf(stderr, "\r\033[K");
    if (t.status) {
      printf("%-26s %-4s %-5s %-22s error: %s\n", w[i].op, w[i].id, w[i].dtype, w[i].label,
             nkl_last_error());
      failed++;
      workload_close(&wc);
      continue;
    }
    const double gbps = wc.info.bytes / (t.median * 1e6), gflops = wc.info.flops / (t.median * 1e6);
    printf("%-26s %-4s %-5s %-22s %10.4f %10.4f %10.4f %6.1f %9.2f %9.2f  %s%s\n", w[i].op, w[i].id,
           w[i].dtype, w[i].label, t.median, t.min, t.p90, 100 * t.cv, gbps, gflops, kernel,
           t.batch > 1 ? " (batched)" : "");
    fflush(stdout);
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "op", w[i].op);
    cJSON_AddStringToObject(row, "id", w[i].id);
    cJSON_AddStringToObject(row, "family", w[i].family);
    cJSON_AddStringToObject(row, "dtype", w[i].dtype);
    cJSON_AddStringToObject(row, "label", w[i].label);
    cJSON_AddStringToObject(row, "descriptor", w[i].descriptor);
    cJSON_AddNumberToObject(row, "flops", wc.info.flops);
    cJSON_AddNumberToObject(row, "bytes", wc.info.bytes);
    cJSON *ours = timing_json(&t);
    cJSON_AddStringToObject(ours, "kernel", kernel);
    cJSON_AddItemToObject(row, "ours", ours);
    cJSON_AddNumberToObject(row, "gbps", gbps);
    cJSON_AddNumberToObject(row, "gflops", gflops);
    cJSON_AddItemToArray(rows, row);
    workload_close(&wc);
  }
  if (o.json && !usage_error) {
    cJSON *doc = cJSON_CreateObject();
    cJSON *settings = cJSON_CreateObject();
    cJSON_AddNumberToObject(settings, "threads", nkl_get_num_threads());
    cJSON_AddStringToObject(settings, "isa", nkl_isa_name(nkl_active_isa()));
    cJSON_AddStringToObject(settings, "cache", o.warm ? "warm" : "cold");
    cJSON_AddNumberToObject(settings, "warmup", to.warmup);
    cJSON_AddNumberToObject(settings, "samples", to.samples);
    cJSON_AddNumberToObject(settings, "llc_bytes", (double)llc_bytes());
    cJSON_AddItemToObject(doc, "settings", settings);
    cJSON_AddItemToObject(doc, "rows", rows);
    rows = NULL;
    char *s = cJSON_Print(doc);
    FILE *f = fopen(o.json, "w");
    if (!f || fputs(s, f) < 0) {
      fprintf(stderr, "nkl bench: cannot write %s\n", o.json);
      failed++;
    }
    if (f) fclose(f);
    free(s);
    cJSON_Delete(doc);
  }
  cJSON_Delete(rows);
  free(w);
  catalog_free(&c);
  if (usage_error) return EXIT_USAGE;
  return failed ? EXIT_FAILED : 0;
}
