/* nkl bench: time nkl and every baseline candidate on workloads with the protocol of
 * docs/methodology.md, check every candidate's output against the oracle, and write the
 * results JSON that `nkl report` turns into the report (schema: docs/report.md). */
#include <cjson/cJSON.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "baseline.h"
#include "bench_xcheck.h"
#include "calibration.h"
#include "cli.h"
#include "workload_case.h"

static const char kHelp[] =
    "usage: nkl bench [--op OP | --family F | --id W | --desc \"DESCRIPTOR\"] [--json FILE]\n"
    "                 [--warm] [--threads N] [--samples 30] [--warmup 10]\n"
    "                 [--baselines all|none|onednn,xnnpack,torch] [--calibration FILE]\n"
    "                 [--no-row-triad]\n"
    "  Times nkl and every baseline candidate on each selected workload: untimed setup,\n"
    "  --warmup calls, then --samples timed calls with the last-level cache evicted before\n"
    "  each (--warm: no eviction), candidates in the order A B C ... C B A. Calls under\n"
    "  ~20 us (cold calls in cold mode) are timed in batches (marked 'batch N'); a call\n"
    "  over 100 ms gets 2 warm-up calls (1 over 1 s) and ~5 s of samples, 2 to 10 (marked\n"
    "  'reduced'). Prints, per workload, our median / min / p90 (ms),\n"
    "  cv, GB/s and GFLOP/s, then each candidate (name, tier, median or the reason it did\n"
    "  not run, and its check against the oracle), the baseline (fastest valid candidate),\n"
    "  ratio = baseline / ours, SOL and bound from the calibration (nkl calibrate; default\n"
    "  build/calibration.json). Baselines: oneDNN in-process (plain layout and its\n"
    "  preferred layout), XNNPACK in-process (NHWC, 2-d pools), PyTorch eager and\n"
    "  torch.compile through bench/baselines/\n"
    "  torch_runner.py with the .venv python (NKL_TORCH_PYTHON overrides). --json FILE\n"
    "  writes every sample and result (docs/report.md). Progress goes to stderr.\n"
    "  Cold runs with a calibration also take a short DRAM triad just before and just after\n"
    "  each row's timed calls and print the row's SOL against their mean as well ('row\n"
    "  triad'; JSON row_triad_gbps, sol_row): the machine's bandwidth can drift during a run.\n"
    "  --no-row-triad skips it.\n";

typedef struct run_ctx {
  const nkl_adapter *a;
  void *c;
  int threads;
} run_ctx;

static int run_ours(void *p) {
  run_ctx *r = p;
  return (int)r->a->run(r->c);
}

static int run_bl(void *p) {
  bl_candidate *c = p;
  return c->run(c->state);
}
static void warm_bl(void *p, const time_opts *o, timing *t) {
  bl_candidate *c = p;
  c->remote_warmup(c->state, o, t);
}
static void samples_bl(void *p, const time_opts *o, timing *t, int count) {
  bl_candidate *c = p;
  c->remote_samples(c->state, o, t, count);
}
static void wake_bl(void *p) {
  bl_candidate *c = p;
  c->wake(c->state);
}

static void timing_to_json(cJSON *o, const timing *t) {
  cJSON_AddNumberToObject(o, "median_ms", t->median);
  cJSON_AddNumberToObject(o, "min_ms", t->min);
  cJSON_AddNumberToObject(o, "p90_ms", t->p90);
  cJSON_AddNumberToObject(o, "cv", t->cv);
  cJSON_AddNumberToObject(o, "batch", t->batch);
  cJSON_AddNumberToObject(o, "warmup", t->warmup);
  cJSON_AddBoolToObject(o, "reduced", t->reduced);
  cJSON_AddItemToObject(o, "samples_ms", cJSON_CreateDoubleArray(t->ms, t->n));
}

static cJSON *check_json(const char *status, const check_result *r, const char *note) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "status", status);
  if (r) {
    cJSON_AddNumberToObject(o, "max_err", r->cmp.max_err);
    cJSON_AddNumberToObject(o, "max_err_over_tol", r->cmp.max_ratio);
    cJSON_AddNumberToObject(o, "checked", (double)r->cmp.checked);
    cJSON_AddNumberToObject(o, "bad", (double)r->cmp.bad);
    if (r->cmp.bad) {
      cJSON_AddNumberToObject(o, "worst_index", (double)r->cmp.worst);
      cJSON_AddNumberToObject(o, "worst_got", r->cmp.worst_got);
      cJSON_AddNumberToObject(o, "worst_ref", r->cmp.worst_ref);
    }
  }
  char buf[400];
  snprintf(buf, sizeof buf, "%s%s%s", r ? r->note : "", r && note && *note ? "; " : "",
           note ? note : "");
  cJSON_AddStringToObject(o, "note", buf);
  return o;
}

static const char *status_name(bl_status s) {
  switch (s) {
    case BL_OK: return "ok";
    case BL_UNSUPPORTED: return "unsupported";
    case BL_UNAVAILABLE: return "unavailable";
    default: return "error";
  }
}

/* The DRAM triad now (three 128 MiB arrays, best of 6 passes), compared with the
 * calibration at the start and the end of a run: the machine's bandwidth can drift (other
 * tenants), and SOL is only as good as the figure it divides by. */
static double bandwidth_now(int threads) {
  double runs[8];
  return calibration_triad_gbps((size_t)16 << 20, threads, 6, runs);
}

/* The triad next to a row: the same arrays, kept between rows, best of 3 passes (~30 ms at
 * 40 GB/s). Taken just before and just after the row's timed calls, it tells whether a row
 * below the calibration's SOL ran while the machine itself was slower (other tenants). */
static double bandwidth_row(int threads) {
  double runs[3];
  return calibration_triad_kept((size_t)16 << 20, threads, 3, runs);
}

static void bandwidth_say(const char *when, double now, const calibration *cal) {
  if (now <= 0) return;
  const double rel = now / cal->bandwidth_gbps - 1.0;
  fprintf(stderr, "nkl bench: DRAM triad at %s %.1f GB/s (calibration %.1f GB/s, %+.0f%%)%s\n",
          when, now, cal->bandwidth_gbps, 100.0 * rel,
          rel > 0.15 || rel < -0.15
              ? ": the machine's bandwidth has drifted; SOL figures are relative "
                "to the calibration (re-run nkl calibrate)"
              : "");
}

/* Compute roof for the row (operators.md: norms, pools, top-k use the f32 peak; convs the
 * peak of their dtype path). */
static double compute_roof(const calibration *cal, const workload *w, const char **which) {
  const bool conv = strcmp(w->family, "conv") == 0;
  if (conv && strcmp(w->dtype, "bf16") == 0 && cal->bf16_gflops > 0) {
    *which = "bf16";
    return cal->bf16_gflops;
  }
  *which = "f32";
  return cal->f32_gflops;
}

static void progress(bool tty, int i, int n, const workload *w, double t0, const char *what) {
  const double el = (now_ms() - t0) / 1000.0;
  const double eta = i > 0 ? el / i * (n - i) : 0;
  if (tty) {
    char bar[31];
    const int f = n ? 30 * i / n : 30;
    for (int k = 0; k < 30; k++) bar[k] = k < f ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %d/%d %s %s %s  %02d:%02d elapsed, ETA %02d:%02d\033[K", bar, i, n,
            w->op, w->id, what, (int)el / 60, (int)el % 60, (int)eta / 60, (int)eta % 60);
  } else {
    fprintf(stderr, "[%d/%d] %s %s %s  elapsed %ds, ETA %ds\n", i + 1, n, w->op, w->id, what,
            (int)el, (int)eta);
  }
  fflush(stderr);
}

/* Extra options of bench, taken out of argv before the shared parser sees it. */
typedef struct bench_extra {
  const char *calibration;
  bool onednn, xnnpack, torch;
  bool row_triad; /* cold runs with a calibration: a triad next to each row (--no-row-triad) */
} bench_extra;

static int take_extra(int *argc, char **argv, bench_extra *x) {
  x->calibration = NULL;
  x->onednn = x->xnnpack = x->torch = true;
  x->row_triad = true;
  int j = 2;
  for (int i = 2; i < *argc; i++) {
    if (strcmp(argv[i], "--no-row-triad") == 0) {
      x->row_triad = false;
      continue;
    }
    if ((strcmp(argv[i], "--calibration") == 0 || strcmp(argv[i], "--baselines") == 0)) {
      if (i + 1 >= *argc) {
        fprintf(stderr, "nkl bench: %s needs a value\n", argv[i]);
        return -1;
      }
      const char *v = argv[++i];
      if (argv[i - 1][2] == 'c') {
        x->calibration = v;
      } else {
        x->onednn = strstr(v, "onednn") || strcmp(v, "all") == 0;
        x->xnnpack = strstr(v, "xnnpack") || strcmp(v, "all") == 0;
        x->torch = strstr(v, "torch") || strcmp(v, "all") == 0;
        if (!x->onednn && !x->xnnpack && !x->torch && strcmp(v, "none") != 0) {
          fprintf(stderr,
                  "nkl bench: --baselines takes all, none, or a comma-separated list of "
                  "onednn, xnnpack, torch\n");
          return -1;
        }
      }
      continue;
    }
    argv[j++] = argv[i];
  }
  *argc = j;
  return 0;
}

/* What every row of a run shares. */
typedef struct bench_run {
  const cli_opts *o;
  const bench_extra *x;
  const time_opts *to;
  const calibration *cal; /* NULL: no calibration (no SOL, no row triads) */
  int threads, n;         /* n: the rows of the run */
  bool tty;
  double t_start;
  int failed; /* rows with an error or a failed check */
} bench_run;

/* Ours after timing (t: our timing, NULL when nkl has no adapter for the op): the timing,
 * kernel and oracle check into row["ours"]. Returns our timing, NULL when nkl did not run or
 * a timed call failed; *status and reason say why. */
static const timing *ours_result(bench_run *run, cJSON *row, const timing *t, workload_case *wc,
                                 check_result *chk, const char **status, char *reason,
                                 size_t reason_len, const char **kernel) {
  cJSON *ours = cJSON_CreateObject();
  const timing *tours = NULL;
  if (t) {
    *kernel = nkl_last_kernel();
    if (t->status) {
      *status = "error";
      snprintf(reason, reason_len, "%s", nkl_last_error());
      run->failed++;
    } else {
      tours = t;
      timing_to_json(ours, t);
      cJSON_AddStringToObject(ours, "kernel", *kernel);
      wc->adapter->run(wc->c); /* outputs of one clean call for the check */
      wc->adapter->check(wc->c, chk);
      cJSON_AddItemToObject(ours, "check", check_json(chk->pass ? "pass" : "fail", chk, NULL));
      if (!chk->pass) run->failed++;
    }
  }
  cJSON_AddStringToObject(ours, "status", *status);
  cJSON_AddStringToObject(ours, "reason", reason);
  cJSON_AddItemToObject(row, "ours", ours);
  return tours;
}

/* The candidates bl[0 .. nbl) after timing (tk[k]: candidate k's timing, NULL if it did not
 * run): each one's status, timing and output check (against the oracle through the case's
 * adapter, or else the cross-check) into the array cands. Returns the fastest valid
 * candidate, -1 if none, with its median in *best_ms and its check in *best_check. */
static int rate_candidates(const bench_run *run, int i, const workload *w, bl_candidate *bl,
                           int nbl, const timing *const *tk, const bl_row *br, workload_case *wc,
                           cJSON *cands, double *best_ms, cJSON **best_check) {
  int best = -1;
  *best_ms = 0;
  *best_check = NULL;
  xcheck xc[BL_MAX_CANDIDATES];
  memset(xc, 0, sizeof xc);
  if (!br->have_oracle && br->info) {
    progress(run->tty, i, run->n, w, run->t_start, "cross-check");
    cross_check(bl, nbl, tk, br->info, xc);
    if (run->tty) fprintf(stderr, "\r\033[K");
  }
  for (int k = 0; k < nbl; k++) {
    cJSON *cj = cJSON_CreateObject();
    cJSON_AddStringToObject(cj, "name", bl[k].name);
    cJSON_AddStringToObject(cj, "tier", bl[k].tier);
    cJSON_AddStringToObject(cj, "label", bl[k].label);
    const char *st = status_name(bl[k].status);
    char reason[300];
    snprintf(reason, sizeof reason, "%s", bl[k].reason);
    bool valid = false;
    cJSON *chk = NULL;
    if (bl[k].status == BL_OK && tk[k]) {
      if (tk[k]->status) {
        st = "error";
        snprintf(reason, sizeof reason, "a timed call failed (status %d)", tk[k]->status);
      } else {
        cJSON_AddNumberToObject(cj, "setup_ms", bl[k].setup_ms);
        timing_to_json(cj, tk[k]);
        /* Output check: the candidate's outputs in the case's output tensors. */
        char missing[200] = "";
        if (!br->have_oracle && xc[k].done) {
          chk = check_json(xc[k].agrees ? "agrees" : "disagrees", NULL, xc[k].note);
          cJSON_AddNumberToObject(chk, "max_rel_err", xc[k].max_rel);
          valid = xc[k].agrees;
          if (!valid) {
            st = "mismatch";
            snprintf(reason, sizeof reason,
                     "output disagrees with the reference candidate: not rated (%s)", xc[k].note);
          }
        } else if (!br->have_oracle) {
          chk =
              check_json("not checked", NULL, xc[k].note[0] ? xc[k].note : "no oracle adapter yet");
          valid = true;
        } else if (bl[k].fetch && (wc->adapter->run(wc->c), 1) &&
                   bl[k].fetch(bl[k].state, br->info, missing, sizeof missing) > 0) {
          check_result cr;
          memset(&cr, 0, sizeof cr);
          wc->adapter->check(wc->c, &cr);
          chk = check_json(cr.pass ? "pass" : "fail", &cr, missing);
          valid = cr.pass;
          if (!cr.pass) {
            st = "mismatch";
            snprintf(reason, sizeof reason,
                     "output disagrees with the oracle (%lld of %lld outside tolerance): not rated",
                     (long long)cr.cmp.bad, (long long)cr.cmp.checked);
          }
        } else {
          chk = check_json("not checked", NULL,
                           missing[0] ? missing : "the candidate returned no output");
          valid = true;
        }
        if (valid && (best < 0 || tk[k]->median < *best_ms)) {
          best = k;
          *best_ms = tk[k]->median;
          *best_check = chk;
        }
      }
    }
    cJSON_AddStringToObject(cj, "status", st);
    cJSON_AddStringToObject(cj, "reason", reason);
    if (chk) cJSON_AddItemToObject(cj, "check", chk);
    cJSON_AddItemToArray(cands, cj);
  }
  return best;
}

/* Throughput, SOL and bound of the row (ours: tours, the case's flops and bytes: info) into
 * row, and the SOL column's text into line_sol. bw_row: the triads next to the row (0: none
 * taken). */
static void add_sol(const bench_run *run, const workload *w, cJSON *row, const case_info *info,
                    const timing *tours, const double bw_row[2], char *line_sol, size_t len) {
  const double gbps = info->bytes / (tours->median * 1e6),
               gflops = info->flops / (tours->median * 1e6);
  cJSON_AddNumberToObject(row, "gbps", gbps);
  cJSON_AddNumberToObject(row, "gflops", gflops);
  if (!run->cal) return;
  const char *which;
  const double roof = compute_roof(run->cal, w, &which);
  const double t_mem = info->bytes / (run->cal->bandwidth_gbps * 1e6);
  const double t_comp = info->flops / (roof * 1e6);
  const double sol_time = t_mem > t_comp ? t_mem : t_comp;
  const char *bound = t_mem >= t_comp ? "mem" : "comp";
  if (sol_time < 0.003 && tours->median < 0.020) bound = "lat";
  cJSON_AddNumberToObject(row, "sol_time_ms", sol_time);
  cJSON_AddStringToObject(row, "compute_roof", which);
  cJSON_AddStringToObject(row, "bound", bound);
  if (bw_row[0] > 0 && bw_row[1] > 0)
    cJSON_AddItemToObject(row, "row_triad_gbps", cJSON_CreateDoubleArray(bw_row, 2));
  if (strcmp(bound, "lat") == 0) {
    cJSON_AddNullToObject(row, "sol");
    snprintf(line_sol, len, "lat");
    return;
  }
  const double sol = sol_time / tours->median;
  cJSON_AddNumberToObject(row, "sol", sol);
  snprintf(line_sol, len, "SOL %.0f%% %s%s", 100 * sol, bound,
           sol > 1.05 ? " (anomaly >105%)" : "");
  /* The same against the mean of the triads next to the row (informative: the SOL of
   * record is the calibration's, methodology.md). */
  if (bw_row[0] > 0 && bw_row[1] > 0) {
    const double bw = 0.5 * (bw_row[0] + bw_row[1]), tm = info->bytes / (bw * 1e6);
    const double sol_row = (tm > t_comp ? tm : t_comp) / tours->median;
    cJSON_AddNumberToObject(row, "sol_row", sol_row);
    const size_t used = strlen(line_sol);
    snprintf(line_sol + used, len - used, "  (row triad %.1f GB/s: %.0f%%)", bw, 100 * sol_row);
  }
}

/* One text block per row: ours, each candidate (the baseline marked), ratio and SOL. */
static void print_row(const workload *w, const timing *tours, const char *kernel, bool pass,
                      const char *ours_reason, const cJSON *cands, const char *baseline,
                      const char *line_ratio, const char *line_sol) {
  printf("%s %s %s %s\n", w->op, w->id, w->dtype, w->label);
  if (tours)
    printf("  %-14s %-16s %10.4f ms  (min %.4f, p90 %.4f, cv %.1f%%%s%s)  %s  check %s\n", "nkl",
           "ours", tours->median, tours->min, tours->p90, 100 * tours->cv,
           tours->batch > 1 ? ", batched" : "", tours->reduced ? ", reduced" : "", kernel,
           pass ? "pass" : "FAIL");
  else
    printf("  %-14s %-16s %s\n", "nkl", "ours", ours_reason);
  const cJSON *cj;
  cJSON_ArrayForEach(cj, cands) {
    const cJSON *med = cJSON_GetObjectItem(cj, "median_ms"), *ck = cJSON_GetObjectItem(cj, "check");
    const char *name = cJSON_GetObjectItem(cj, "name")->valuestring,
               *tier = cJSON_GetObjectItem(cj, "tier")->valuestring,
               *stt = cJSON_GetObjectItem(cj, "status")->valuestring;
    if (med && strcmp(stt, "ok") == 0)
      printf("  %-14s %-16s %10.4f ms  check %s%s\n", name, tier, med->valuedouble,
             ck ? cJSON_GetObjectItem(ck, "status")->valuestring : "-",
             baseline && strcmp(name, baseline) == 0 ? "  <- baseline" : "");
    else
      printf("  %-14s %-16s %s: %s\n", name, tier, stt,
             cJSON_GetObjectItem(cj, "reason")->valuestring);
  }
  printf("  ratio %s  %s\n", line_ratio, line_sol);
  fflush(stdout);
}

/* Row i, workload w: its tensors (the adapter's case, else inputs built for the baselines),
 * the candidates, the timing of all of them in one protocol, the checks, the baseline
 * (fastest valid candidate), ratio and SOL; printed, and its JSON appended to rows.
 * Returns -1 when a --desc workload cannot be set up (a usage error), else 0. */
static int bench_row(bench_run *run, int i, const workload *w, cJSON *rows) {
  char err[300];
  progress(run->tty, i, run->n, w, run->t_start, "setup");
  workload_case wc;
  const int r = workload_open(w, &wc, err, sizeof err);
  if (r < 0 && run->o->sel.desc) {
    if (run->tty) fprintf(stderr, "\r\033[K");
    fprintf(stderr, "nkl bench: %s\n", err);
    return -1;
  }
  cJSON *row = cJSON_CreateObject();
  cJSON_AddStringToObject(row, "op", w->op);
  cJSON_AddStringToObject(row, "id", w->id);
  cJSON_AddStringToObject(row, "family", w->family);
  cJSON_AddStringToObject(row, "dtype", w->dtype);
  cJSON_AddStringToObject(row, "label", w->label);
  cJSON_AddStringToObject(row, "descriptor", w->descriptor);
  char rerun[200];
  snprintf(rerun, sizeof rerun, "build/nkl bench --id %s:%s", w->op, w->id);
  cJSON_AddStringToObject(row, "rerun", rerun);

  /* The row's tensors: the adapter's case, else inputs built for the baselines. */
  bl_row br;
  memset(&br, 0, sizeof br);
  br.w = w;
  br.threads = run->threads;
  br.to = run->to;
  desc_parse(w->descriptor, &br.desc, err, sizeof err);
  case_info own_info;
  memset(&own_info, 0, sizeof own_info);
  bool own_inputs = false;
  const char *ours_status = "ok";
  char ours_reason[300] = "";
  if (r == 0) {
    br.info = &wc.info;
    br.have_oracle = true;
  } else {
    ours_status = r == 1 ? "not implemented" : "error";
    snprintf(ours_reason, sizeof ours_reason, "%s", r == 1 ? "skipped: not implemented yet" : err);
    run->failed += r < 0;
    nkl_desc d2;
    desc_parse(w->descriptor, &d2, err, sizeof err);
    if (bl_inputs_create(&d2, &own_info, err, sizeof err) == 0) {
      br.info = &own_info;
      own_inputs = true;
    }
  }
  if (br.info) {
    cJSON_AddNumberToObject(row, "flops", br.info->flops);
    cJSON_AddNumberToObject(row, "bytes", br.info->bytes);
  }

  /* Candidates: ours first, then the pool. */
  const bench_extra *x = run->x;
  bl_candidate bl[BL_MAX_CANDIDATES];
  int nbl = 0;
  if (x->onednn) nbl += onednn_candidates(&br, bl + nbl, BL_MAX_CANDIDATES - nbl);
  if (x->xnnpack) nbl += xnnpack_candidates(&br, bl + nbl, BL_MAX_CANDIDATES - nbl);
  if (x->torch) {
    progress(run->tty, i, run->n, w, run->t_start, "torch setup");
    nbl += torch_candidates(&br, bl + nbl, BL_MAX_CANDIDATES - nbl);
  }
  candidate cand[BL_MAX_CANDIDATES + 1];
  int map[BL_MAX_CANDIDATES + 1], nc = 0;
  run_ctx rc = {wc.adapter, wc.c, run->threads};
  if (r == 0) {
    cand[nc] = (candidate){"nkl", run_ours, &rc, NULL, NULL, NULL};
    map[nc++] = -1;
  }
  for (int k = 0; k < nbl; k++)
    if (bl[k].status == BL_OK) {
      cand[nc] = (candidate){bl[k].name,
                             bl[k].run ? run_bl : NULL,
                             &bl[k],
                             bl[k].remote_warmup ? warm_bl : NULL,
                             bl[k].remote_samples ? samples_bl : NULL,
                             bl[k].wake ? wake_bl : NULL};
      map[nc++] = k;
    }

  /* All of them timed in one protocol, between two triads (cold runs with a calibration). */
  timing t[BL_MAX_CANDIDATES + 1];
  progress(run->tty, i, run->n, w, run->t_start, "timing");
  const bool row_triad = run->cal && !run->o->warm && x->row_triad && nc;
  double bw_row[2] = {0, 0};
  if (row_triad) bw_row[0] = bandwidth_row(run->threads);
  if (nc) time_candidates(cand, nc, run->to, t);
  if (row_triad) bw_row[1] = bandwidth_row(run->threads);
  if (run->tty) fprintf(stderr, "\r\033[K");

  check_result ours_chk;
  memset(&ours_chk, 0, sizeof ours_chk);
  const char *kernel = "";
  const timing *tours = ours_result(run, row, r == 0 ? &t[0] : NULL, &wc, &ours_chk, &ours_status,
                                    ours_reason, sizeof ours_reason, &kernel);

  /* Candidates: timing, output check, baseline = fastest valid. */
  const timing *tk[BL_MAX_CANDIDATES];
  for (int k = 0; k < nbl; k++) tk[k] = NULL;
  for (int j = 0; j < nc; j++)
    if (map[j] >= 0) tk[map[j]] = &t[j];
  cJSON *cands = cJSON_AddArrayToObject(row, "candidates");
  double best_ms;
  cJSON *best_check;
  const int best = rate_candidates(run, i, w, bl, nbl, tk, &br, &wc, cands, &best_ms, &best_check);
  /* Restore our outputs (the checks above overwrote them). */
  if (r == 0 && nbl && tours) wc.adapter->run(wc.c);

  /* Baseline, correctness, ratio, throughput, SOL, bound. */
  if (best >= 0) {
    cJSON *baseline = cJSON_AddObjectToObject(row, "baseline");
    cJSON_AddStringToObject(baseline, "name", bl[best].name);
    cJSON_AddStringToObject(baseline, "tier", bl[best].tier);
    cJSON_AddNumberToObject(baseline, "median_ms", best_ms);
  } else {
    cJSON_AddNullToObject(row, "baseline");
  }
  cJSON *corr = cJSON_AddObjectToObject(row, "correctness");
  cJSON_AddItemToObject(corr, "ours",
                        tours ? check_json(ours_chk.pass ? "pass" : "fail", &ours_chk, NULL)
                              : check_json("not run", NULL, ours_reason));
  cJSON_AddItemToObject(
      corr, "baseline",
      best_check ? cJSON_Duplicate(best_check, 1) : check_json("no baseline", NULL, NULL));
  char line_ratio[32] = "-";
  if (tours && best >= 0 && ours_chk.pass) {
    const double ratio = best_ms / tours->median;
    cJSON_AddNumberToObject(row, "ratio", ratio);
    snprintf(line_ratio, sizeof line_ratio, "%.2fx", ratio);
  } else {
    cJSON_AddNullToObject(row, "ratio");
  }
  char line_sol[96] = "";
  if (tours && br.info) add_sol(run, w, row, br.info, tours, bw_row, line_sol, sizeof line_sol);
  print_row(w, tours, kernel, ours_chk.pass, ours_reason, cands, best >= 0 ? bl[best].name : NULL,
            line_ratio, line_sol);

  cJSON_AddItemToArray(rows, row);
  for (int k = 0; k < nbl; k++)
    if (bl[k].destroy) bl[k].destroy(bl[k].state);
  if (own_inputs) case_free_args(&own_info);
  if (r == 0) workload_close(&wc);
  return 0;
}

/* The results document (docs/report.md): settings, versions, the calibration inline (so the
 * report needs nothing else), the bandwidth check and the rows (taken over). Returns 0, or
 * -1 when the file cannot be written. */
static int write_results(const char *path, const bench_run *run, const calibration *cal,
                         double bw_start, double bw_end, cJSON *rows) {
  const time_opts *to = run->to;
  cJSON *doc = json_doc_new();
  cJSON *settings = cJSON_CreateObject();
  cJSON_AddNumberToObject(settings, "threads", run->threads);
  cJSON_AddStringToObject(settings, "isa", nkl_isa_name(nkl_active_isa()));
  cJSON_AddStringToObject(settings, "cache", to->warm ? "warm" : "cold");
  cJSON_AddNumberToObject(settings, "warmup", to->warmup);
  cJSON_AddNumberToObject(settings, "samples", to->samples);
  cJSON_AddNumberToObject(settings, "llc_bytes", (double)llc_bytes());
  cJSON_AddNumberToObject(settings, "evict_bytes", (double)evict_bytes());
  cJSON_AddNumberToObject(settings, "batch_below_ms", 0.020);
  cJSON_AddNumberToObject(settings, "slow_call_ms", TIMING_SLOW_MS);
  cJSON_AddStringToObject(settings, "order", "A B C ... then ... C B A, samples pooled");
  cJSON_AddNumberToObject(settings, "elapsed_s", (now_ms() - run->t_start) / 1000.0);
  cJSON_AddItemToObject(doc, "settings", settings);
  cJSON *ver = cJSON_AddObjectToObject(doc, "versions");
  char nv[32];
  snprintf(nv, sizeof nv, "%d.%d.%d", NKL_VERSION_MAJOR, NKL_VERSION_MINOR, NKL_VERSION_PATCH);
  cJSON_AddStringToObject(ver, "nkl", nv);
  cJSON_AddStringToObject(ver, "compiler", "gcc " __VERSION__);
  if (run->x->onednn) cJSON_AddStringToObject(ver, "onednn", onednn_version());
  if (run->x->xnnpack) cJSON_AddStringToObject(ver, "xnnpack", xnnpack_version());
  if (run->x->torch) cJSON_AddStringToObject(ver, "torch", torch_version());
  FILE *cf = fopen(cal->path, "rb");
  if (cf) {
    fseek(cf, 0, SEEK_END);
    const long len = ftell(cf);
    fseek(cf, 0, SEEK_SET);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)len, cf) == (size_t)len) {
      buf[len] = '\0';
      cJSON *cj = cJSON_Parse(buf);
      if (cj) cJSON_AddItemToObject(doc, "calibration", cj);
    }
    free(buf);
    fclose(cf);
  }
  if (!cJSON_GetObjectItem(doc, "calibration")) cJSON_AddNullToObject(doc, "calibration");
  if (run->cal) {
    cJSON *bc = cJSON_AddObjectToObject(doc, "bandwidth_check");
    cJSON_AddNumberToObject(bc, "calibration_gbps", cal->bandwidth_gbps);
    cJSON_AddNumberToObject(bc, "start_gbps", bw_start);
    cJSON_AddNumberToObject(bc, "end_gbps", bw_end);
    cJSON_AddStringToObject(bc, "method",
                            "STREAM triad, 3 x 128 MiB arrays, best of 6 passes, before the "
                            "first and after the last workload");
  }
  cJSON_AddItemToObject(doc, "rows", rows);
  char *s = cJSON_Print(doc);
  FILE *f = fopen(path, "w");
  int rc = 0;
  if (!s || !f || fputs(s, f) < 0) {
    fprintf(stderr, "nkl bench: cannot write %s\n", path);
    rc = -1;
  }
  if (f && fclose(f) != 0 && rc == 0) {
    fprintf(stderr, "nkl bench: cannot write %s\n", path);
    rc = -1;
  }
  free(s);
  cJSON_Delete(doc);
  return rc;
}

int cmd_bench(int argc, char **argv) {
  bench_extra x;
  if (take_extra(&argc, argv, &x) < 0) return EXIT_USAGE;
  cli_opts o;
  if (cli_parse(argc, argv, 2, "bench", "op family id desc json warm threads samples warmup", &o) <
      0)
    return EXIT_USAGE;
  if (o.help) {
    fputs(kHelp, stdout);
    return 0;
  }
  if (o.threads) nkl_set_num_threads(o.threads);
  const int threads = nkl_get_num_threads();
  omp_set_num_threads(threads);
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
  calibration cal;
  const bool have_cal = calibration_load(x.calibration, &cal) == 0;
  if (!have_cal)
    fprintf(stderr,
            "nkl bench: no calibration in %s (run nkl calibrate): SOL and bound left empty\n",
            cal.path);
  time_opts to;
  time_opts_default(&to);
  to.warm = o.warm;
  to.samples = o.samples;
  to.warmup = o.warmup;
  bench_run run = {&o, &x, &to, have_cal ? &cal : NULL, threads, n, isatty(2), 0, 0};
  printf("# threads %d, isa %s, %s cache, %d warm-up + %d timed calls, median of samples\n",
         threads, nkl_isa_name(nkl_active_isa()), o.warm ? "warm" : "cold", to.warmup, to.samples);
  double bw_start = 0, bw_end = 0;
  if (have_cal) bandwidth_say("start", bw_start = bandwidth_now(threads), &cal);
  run.t_start = now_ms();
  cJSON *rows = cJSON_CreateArray();
  int usage_error = 0;
  for (int i = 0; i < n && !usage_error; i++) usage_error = bench_row(&run, i, &w[i], rows) < 0;
  if (run.tty) fprintf(stderr, "\r\033[K");
  fprintf(stderr, "nkl bench: %d workloads in %.1f s\n", n, (now_ms() - run.t_start) / 1000.0);
  calibration_triad_release();
  if (have_cal) bandwidth_say("end", bw_end = bandwidth_now(threads), &cal);
  if (x.torch) torch_shutdown();
  if (o.json && !usage_error) {
    run.failed += write_results(o.json, &run, &cal, bw_start, bw_end, rows) < 0;
    rows = NULL; /* the document took them */
  }
  cJSON_Delete(rows);
  free(w);
  catalog_free(&c);
  if (usage_error) return EXIT_USAGE;
  return run.failed ? EXIT_FAILED : 0;
}
