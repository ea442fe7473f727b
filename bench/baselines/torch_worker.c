/* PyTorch eager and torch.compile candidates. They run in a worker process
 * (bench/baselines/torch_runner.py, started once per nkl bench with the project's .venv
 * python) that reads the row's input tensors from files nkl writes in /dev/shm (the same
 * bytes nkl and oneDNN read; memory-mapped on the Python side), and runs the protocol of
 * timing.c there: the same warm-up count, samples, eviction of a 4x-LLC buffer before each
 * timed call, batching rule and thread count. nkl drives it sample pass by sample pass, so
 * the A B C ... C B A order holds across processes. Protocol: one JSON object per line. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baseline.h"

static FILE *g_to, *g_from;
static pid_t g_pid;
static int g_state; /* 0 not started, 1 running, -1 unavailable */
static char g_reason[240];
static char g_version[64] = "not available";
static bool g_compile;
static char g_dir[256];

const char *torch_version(void) { return g_version; }

static cJSON *call(cJSON *req) {
  if (g_state != 1) {
    cJSON_Delete(req);
    return NULL;
  }
  char *s = cJSON_PrintUnformatted(req);
  cJSON_Delete(req);
  fprintf(g_to, "%s\n", s);
  fflush(g_to);
  free(s);
  size_t cap = 1 << 16, len = 0;
  char *line = malloc(cap);
  int ch;
  while (line && (ch = fgetc(g_from)) != EOF && ch != '\n') {
    if (len + 1 == cap) {
      char *p = realloc(line, cap *= 2);
      if (!p) break;
      line = p;
    }
    line[len++] = (char)ch;
  }
  if (!line || len == 0) {
    free(line);
    g_state = -1;
    snprintf(g_reason, sizeof g_reason, "the torch worker exited (see stderr)");
    return NULL;
  }
  line[len] = '\0';
  cJSON *r = cJSON_Parse(line);
  free(line);
  return r;
}

static void start(void) {
  if (g_state) return;
  g_state = -1;
  const char *py = getenv("NKL_TORCH_PYTHON");
  char pybuf[600];
  if (!py || !*py) {
    snprintf(pybuf, sizeof pybuf, "%s/.venv/bin/python", NKL_SOURCE_DIR);
    py = pybuf;
  }
  if (access(py, X_OK) != 0) {
    snprintf(g_reason, sizeof g_reason, "no PyTorch: %s missing (run scripts/setup-report.sh)", py);
    return;
  }
  char script[600];
  snprintf(script, sizeof script, "%s/bench/baselines/torch_runner.py", NKL_SOURCE_DIR);
  int to[2], from[2];
  if (pipe(to) < 0 || pipe(from) < 0) return;
  g_pid = fork();
  if (g_pid < 0) return;
  if (g_pid == 0) {
    dup2(to[0], 0);
    dup2(from[1], 1);
    close(to[1]);
    close(from[0]);
    execl(py, py, script, (char *)NULL);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  g_to = fdopen(to[1], "w");
  g_from = fdopen(from[0], "r");
  signal(SIGPIPE, SIG_IGN);
  g_state = 1;
  snprintf(g_dir, sizeof g_dir, "/dev/shm/nkl-bench-%d", (int)getpid());
  if (mkdir(g_dir, 0700) < 0 && errno != EEXIST) snprintf(g_dir, sizeof g_dir, "/tmp");
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "cmd", "hello");
  char cache[700];
  snprintf(cache, sizeof cache, "%s/build/torchinductor-cache", NKL_SOURCE_DIR);
  cJSON_AddStringToObject(req, "cache_dir", cache);
  cJSON_AddNumberToObject(req, "llc_bytes", (double)llc_bytes());
  cJSON *r = call(req);
  const cJSON *v = r ? cJSON_GetObjectItem(r, "torch") : NULL;
  if (!cJSON_IsString(v)) {
    g_state = -1;
    const cJSON *e = r ? cJSON_GetObjectItem(r, "error") : NULL;
    snprintf(g_reason, sizeof g_reason, "PyTorch worker failed to start: %s",
             cJSON_IsString(e) ? e->valuestring : "no answer");
  } else {
    snprintf(g_version, sizeof g_version, "torch %s", v->valuestring);
    g_compile = cJSON_IsTrue(cJSON_GetObjectItem(r, "compile"));
  }
  cJSON_Delete(r);
}

void torch_shutdown(void) {
  if (g_state == 1) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "cmd", "quit");
    cJSON_Delete(call(req));
    fclose(g_to);
    fclose(g_from);
    waitpid(g_pid, NULL, 0);
  }
  if (g_dir[0] && strcmp(g_dir, "/tmp") != 0) rmdir(g_dir);
  g_state = 0;
}

typedef struct tc_state {
  char tier[16]; /* "eager" | "compile" */
  int row;       /* row serial, to match the worker's state */
  case_info *info;
  char paths[CASE_MAX_ARGS][300];
  int owner; /* the eager candidate owns the files */
} tc_state;

static int g_row;

static void tc_warmup(void *p, const time_opts *o, timing *t) {
  tc_state *s = p;
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "cmd", "warmup");
  cJSON_AddStringToObject(req, "tier", s->tier);
  cJSON_AddNumberToObject(req, "warmup", o->warmup);
  cJSON_AddBoolToObject(req, "warm", o->warm);
  cJSON *r = call(req);
  if (!r || cJSON_GetObjectItem(r, "error")) {
    t->status = 1;
  } else {
    t->batch = cJSON_GetObjectItem(r, "batch")->valueint;
    t->warmup = cJSON_GetObjectItem(r, "warmup")->valueint;
    t->reduced = cJSON_IsTrue(cJSON_GetObjectItem(r, "reduced"));
    const cJSON *ty = cJSON_GetObjectItem(r, "typical_ms");
    t->typical_ms = cJSON_IsNumber(ty) ? ty->valuedouble : 1.0;
  }
  cJSON_Delete(r);
}

static void tc_samples(void *p, const time_opts *o, timing *t, int count) {
  tc_state *s = p;
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "cmd", "samples");
  cJSON_AddStringToObject(req, "tier", s->tier);
  cJSON_AddNumberToObject(req, "count", count);
  cJSON_AddNumberToObject(req, "batch", t->batch);
  cJSON_AddBoolToObject(req, "warm", o->warm);
  cJSON *r = call(req);
  const cJSON *ms = r ? cJSON_GetObjectItem(r, "ms") : NULL;
  if (!cJSON_IsArray(ms)) {
    t->status = 1;
  } else {
    const cJSON *v;
    cJSON_ArrayForEach(v, ms) if (t->n < TIMING_MAX_SAMPLES) t->ms[t->n++] = v->valuedouble;
  }
  cJSON_Delete(r);
}

static int tc_fetch(void *p, case_info *info, char *missing, size_t len) {
  tc_state *s = p;
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "cmd", "output");
  cJSON_AddStringToObject(req, "tier", s->tier);
  cJSON *r = call(req);
  int got = 0;
  missing[0] = '\0';
  const cJSON *outs = r ? cJSON_GetObjectItem(r, "outputs") : NULL;
  const cJSON *miss = r ? cJSON_GetObjectItem(r, "missing") : NULL;
  if (cJSON_IsString(miss) && miss->valuestring[0])
    snprintf(missing, len, "%s not produced by the program (nkl's kept)", miss->valuestring);
  for (int i = 0; i < info->nargs && outs; i++) {
    const cJSON *path = cJSON_GetObjectItem(outs, info->args[i].name);
    if (!info->args[i].is_output || !cJSON_IsString(path)) continue;
    FILE *f = fopen(path->valuestring, "rb");
    if (!f) continue;
    const nkl_tensor *t = &info->args[i].t;
    size_t n = nkl_dtype_size(t->dtype);
    for (int k = 0; k < t->rank; k++) n *= (size_t)t->shape[k];
    if (fread(t->data, 1, n, f) == n) got++;
    fclose(f);
    unlink(path->valuestring);
  }
  cJSON_Delete(r);
  return got;
}

static void tc_destroy(void *p) {
  tc_state *s = p;
  if (s->owner) {
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "cmd", "release");
    cJSON_Delete(call(req));
    for (int i = 0; i < CASE_MAX_ARGS; i++)
      if (s->paths[i][0]) unlink(s->paths[i]);
  }
  free(s);
}

static void unavailable(bl_candidate *c, const char *name, const char *tier, bl_status st,
                        const char *why) {
  bl_candidate_mark(c, name, tier, st, why);
}

int torch_candidates(bl_row *row, bl_candidate *c, int max) {
  if (max < 2) return 0;
  start();
  if (g_state != 1) {
    unavailable(&c[0], "torch_eager", "framework eager", BL_UNAVAILABLE, g_reason);
    unavailable(&c[1], "torch_compile", "compiler", BL_UNAVAILABLE, g_reason);
    return 2;
  }
  g_row++;
  tc_state *own = calloc(1, sizeof *own);
  own->row = g_row;
  own->info = row->info;
  own->owner = 1;
  cJSON *req = cJSON_CreateObject();
  cJSON_AddStringToObject(req, "cmd", "setup");
  cJSON_AddStringToObject(req, "descriptor", row->w->descriptor);
  cJSON_AddNumberToObject(req, "threads", row->threads);
  cJSON_AddBoolToObject(req, "compile", g_compile);
  cJSON *ts = cJSON_AddArrayToObject(req, "tensors");
  for (int i = 0; row->info && i < row->info->nargs; i++) {
    const case_arg *a = &row->info->args[i];
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", a->name);
    cJSON_AddStringToObject(t, "dtype", nkl_dtype_name(a->t.dtype));
    double shape[NKL_MAX_RANK];
    size_t bytes = nkl_dtype_size(a->t.dtype);
    for (int k = 0; k < a->t.rank; k++)
      shape[k] = (double)a->t.shape[k], bytes *= (size_t)a->t.shape[k];
    cJSON_AddItemToObject(t, "shape", cJSON_CreateDoubleArray(shape, a->t.rank));
    cJSON_AddBoolToObject(t, "output", a->is_output);
    snprintf(own->paths[i], sizeof own->paths[i], "%s/r%d-%s.bin", g_dir, g_row, a->name);
    cJSON_AddStringToObject(t, "path", own->paths[i]);
    if (!a->is_output) {
      FILE *f = fopen(own->paths[i], "wb");
      if (!f || fwrite(a->t.data, 1, bytes, f) != bytes) own->paths[i][0] = '\0';
      if (f) fclose(f);
    } else {
      own->paths[i][0] = '\0';
    }
    cJSON_AddItemToArray(ts, t);
  }
  cJSON *r = call(req);
  const cJSON *tiers = r ? cJSON_GetObjectItem(r, "tiers") : NULL;
  char setup_err[240] = "torch worker: setup failed";
  const cJSON *werr = r ? cJSON_GetObjectItem(r, "error") : NULL;
  if (cJSON_IsString(werr))
    snprintf(setup_err, sizeof setup_err, "torch worker: %s", werr->valuestring);
  static const char *const kTier[2] = {"eager", "compile"};
  static const char *const kName[2] = {"torch_eager", "torch_compile"};
  static const char *const kTierName[2] = {"framework eager", "compiler"};
  int n = 0;
  for (int k = 0; k < 2; k++) {
    bl_candidate *b = &c[n++];
    const cJSON *ti = tiers ? cJSON_GetObjectItem(tiers, kTier[k]) : NULL;
    const cJSON *st = ti ? cJSON_GetObjectItem(ti, "status") : NULL;
    const cJSON *why = ti ? cJSON_GetObjectItem(ti, "reason") : NULL;
    if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok") != 0) {
      const char *sv = cJSON_IsString(st) ? st->valuestring : "error";
      unavailable(b, kName[k], kTierName[k],
                  strcmp(sv, "unsupported") == 0   ? BL_UNSUPPORTED
                  : strcmp(sv, "unavailable") == 0 ? BL_UNAVAILABLE
                                                   : BL_ERROR,
                  cJSON_IsString(why) ? why->valuestring : (r ? setup_err : g_reason));
      continue;
    }
    memset(b, 0, sizeof *b);
    snprintf(b->name, sizeof b->name, "%s", kName[k]);
    snprintf(b->tier, sizeof b->tier, "%s", kTierName[k]);
    const cJSON *lab = cJSON_GetObjectItem(ti, "label");
    snprintf(b->label, sizeof b->label, "%s", cJSON_IsString(lab) ? lab->valuestring : "");
    b->setup_ms =
        cJSON_GetObjectItem(ti, "setup_ms") ? cJSON_GetObjectItem(ti, "setup_ms")->valuedouble : 0;
    tc_state *s = own;
    if (k == 1) {
      s = calloc(1, sizeof *s);
      s->row = g_row;
      s->info = row->info;
    }
    snprintf(s->tier, sizeof s->tier, "%s", kTier[k]);
    b->state = s;
    b->remote_warmup = tc_warmup;
    b->remote_samples = tc_samples;
    b->fetch = tc_fetch;
    b->destroy = tc_destroy;
  }
  cJSON_Delete(r);
  /* Make sure the owner is destroyed last and exactly once even if eager is not ok. */
  if (c[0].state != own) {
    bool used = false;
    for (int k = 0; k < n; k++) used |= c[k].state == own;
    if (!used) {
      c[0].state = own;
      c[0].destroy = tc_destroy;
    }
  }
  return n;
}
