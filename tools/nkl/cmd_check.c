/* nkl check: run nkl on full-size workloads and compare with the double-precision oracle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "workload_case.h"

static const char kHelp[] =
    "usage: nkl check [--op OP | --family F | --id W | --desc \"DESCRIPTOR\"] [--threads N]\n"
    "  Runs nkl on each selected workload at full size and compares the outputs with an\n"
    "  independent double-precision oracle, using a tolerance derived from the dtype and\n"
    "  the reduction length. Each line: PASS / FAIL / SKIP, the workload, the largest error\n"
    "  and how much of the output was checked. Ops not implemented yet are SKIP.\n"
    "  Last line: 'N passed, M failed, K skipped'. Exit status 1 if anything failed,\n"
    "  2 for a bad option or descriptor.\n";

int cmd_check(int argc, char **argv) {
  cli_opts o;
  if (cli_parse(argc, argv, 2, "check", "op family id desc threads", &o) < 0) return EXIT_USAGE;
  if (o.help) {
    fputs(kHelp, stdout);
    return 0;
  }
  if (o.threads) nkl_set_num_threads(o.threads);
  catalog c;
  char err[300];
  if (catalog_load(&c, err, sizeof err) < 0) {
    fprintf(stderr, "nkl check: %s\n", err);
    return EXIT_USAGE;
  }
  workload *w;
  const int n = catalog_select(&c, &o.sel, &w, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "nkl check: %s\n", err);
    catalog_free(&c);
    return EXIT_USAGE;
  }
  int passed = 0, failed = 0, skipped = 0, usage_error = 0;
  for (int i = 0; i < n; i++) {
    char name[160];
    snprintf(name, sizeof name, "%s %s %s %s", w[i].op, w[i].id, w[i].dtype, w[i].label);
    workload_case wc;
    const int r = workload_open(&w[i], &wc, err, sizeof err);
    if (r == 1) {
      printf("SKIP  %-52s not implemented yet\n", name);
      skipped++;
      continue;
    }
    if (r < 0) {
      if (o.sel.desc) {
        fprintf(stderr, "nkl check: %s\n", err);
        usage_error = 1;
        break;
      }
      printf("FAIL  %-52s %s\n", name, err);
      failed++;
      continue;
    }
    const nkl_status s = wc.adapter->run(wc.c);
    if (s != NKL_OK) {
      printf("FAIL  %-52s nkl returned %s: %s\n", name, nkl_status_name(s), nkl_last_error());
      failed++;
      workload_close(&wc);
      continue;
    }
    const char *kernel = nkl_last_kernel();
    check_result res;
    memset(&res, 0, sizeof res);
    wc.adapter->check(wc.c, &res);
    if (res.pass) {
      printf("PASS  %-52s max_err %.3g (%.2f of tol)  %s  [%s]\n", name, res.cmp.max_err,
             res.cmp.max_ratio, res.note, kernel);
      passed++;
    } else {
      printf("FAIL  %-52s %lld of %lld wrong; worst #%lld got %.9g want %.9g tol %.3g  %s\n", name,
             (long long)res.cmp.bad, (long long)res.cmp.checked, (long long)res.cmp.worst,
             res.cmp.worst_got, res.cmp.worst_ref, res.cmp.worst_tol, res.note);
      failed++;
    }
    fflush(stdout);
    workload_close(&wc);
  }
  free(w);
  catalog_free(&c);
  if (usage_error) return EXIT_USAGE;
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? EXIT_FAILED : 0;
}
