#include "cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool allowed_opt(const char *allowed, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = allowed; (p = strstr(p, name)); p += n)
    if ((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

static int positive_int(const char *cmd, const char *opt, const char *v, int *out) {
  char *end;
  long x = strtol(v, &end, 10);
  if (*end || x < 1 || x > 1 << 20) {
    fprintf(stderr, "nkl %s: %s needs a positive integer, got '%s'\n", cmd, opt, v);
    return -1;
  }
  *out = (int)x;
  return 0;
}

int cli_parse(int argc, char **argv, int first, const char *cmd, const char *allowed, cli_opts *o) {
  memset(o, 0, sizeof *o);
  o->samples = 30;
  o->warmup = 10;
  for (int i = first; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      o->help = true;
      continue;
    }
    if (strncmp(a, "--", 2) != 0 || !allowed_opt(allowed, a + 2)) {
      fprintf(stderr, "nkl %s: unknown option '%s' (try nkl %s --help)\n", cmd, a, cmd);
      return -1;
    }
    const char *name = a + 2;
    const bool is_flag =
        strcmp(name, "warm") == 0 || (strcmp(name, "json") == 0 && strcmp(cmd, "list") == 0);
    if (is_flag) {
      if (strcmp(name, "warm") == 0)
        o->warm = true;
      else
        o->json_flag = true;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "nkl %s: %s needs a value\n", cmd, a);
      return -1;
    }
    const char *v = argv[++i];
    if (strcmp(name, "op") == 0)
      o->sel.op = v;
    else if (strcmp(name, "family") == 0)
      o->sel.family = v;
    else if (strcmp(name, "id") == 0)
      o->sel.id = v;
    else if (strcmp(name, "desc") == 0)
      o->sel.desc = v;
    else if (strcmp(name, "json") == 0)
      o->json = v;
    else if (strcmp(name, "threads") == 0) {
      if (positive_int(cmd, a, v, &o->threads) < 0) return -1;
    } else if (strcmp(name, "samples") == 0) {
      if (positive_int(cmd, a, v, &o->samples) < 0) return -1;
      if (o->samples > TIMING_MAX_SAMPLES) o->samples = TIMING_MAX_SAMPLES;
    } else if (strcmp(name, "warmup") == 0) {
      if (positive_int(cmd, a, v, &o->warmup) < 0) return -1;
    }
  }
  if (o->sel.desc && (o->sel.op || o->sel.family || o->sel.id)) {
    fprintf(stderr,
            "nkl %s: --desc names one workload; do not combine it with --op/--family/--id\n", cmd);
    return -1;
  }
  return 0;
}

struct cJSON *json_doc_new(void) {
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddNumberToObject(doc, "schema", 1);
  char stamp[64];
  const time_t now = time(NULL);
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  cJSON_AddStringToObject(doc, "date", stamp);
  return doc;
}
