#include "catalog.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "desc.h"
#include "nkl.h"

static const char *const kFamilies[] = {"norm", "conv", "pool", "topk"};

/* The catalog directory: $NKL_CATALOG_DIR, else <exe>/../bench/workloads (build tree or
 * install), else the source tree the binary was built from. */
static void find_dir(char *dir, size_t len) {
  const char *env = getenv("NKL_CATALOG_DIR");
  if (env && *env) {
    snprintf(dir, len, "%s", env);
    return;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      char probe[PATH_MAX + 64];
      snprintf(probe, sizeof probe, "%s/../bench/workloads/norm.txt", exe);
      if (access(probe, R_OK) == 0) {
        snprintf(dir, len, "%s/../bench/workloads", exe);
        return;
      }
    }
  }
#ifdef NKL_SOURCE_DIR
  snprintf(dir, len, "%s/bench/workloads", NKL_SOURCE_DIR);
#else
  snprintf(dir, len, "bench/workloads");
#endif
}

static int add(catalog *c, int *cap, const workload *w) {
  if (c->count == *cap) {
    *cap = *cap ? *cap * 2 : 512;
    workload *p = realloc(c->items, sizeof *p * (size_t)*cap);
    if (!p) return -1;
    c->items = p;
  }
  c->items[c->count++] = *w;
  return 0;
}

int catalog_load(catalog *c, char *err, size_t el) {
  memset(c, 0, sizeof *c);
  find_dir(c->dir, sizeof c->dir);
  int cap = 0;
  for (size_t f = 0; f < sizeof kFamilies / sizeof kFamilies[0]; f++) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s.txt", c->dir, kFamilies[f]);
    FILE *fp = fopen(path, "r");
    if (!fp) {
      snprintf(err, el, "cannot open %s (set NKL_CATALOG_DIR to bench/workloads)", path);
      catalog_free(c);
      return -1;
    }
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, fp)) {
      lineno++;
      line[strcspn(line, "\r\n")] = '\0';
      char *p = line;
      while (*p == ' ' || *p == '\t') p++;
      if (!*p || *p == '#') continue;
      workload w;
      memset(&w, 0, sizeof w);
      snprintf(w.family, sizeof w.family, "%s", kFamilies[f]);
      char *sp = strpbrk(p, " \t");
      if (!sp || sp - p >= (long)sizeof w.id) {
        snprintf(err, el, "%s:%d: expected '<id> <descriptor>'", path, lineno);
        fclose(fp);
        catalog_free(c);
        return -1;
      }
      memcpy(w.id, p, (size_t)(sp - p));
      while (*sp == ' ' || *sp == '\t') sp++;
      nkl_desc d;
      char derr[200];
      if (desc_parse(sp, &d, derr, sizeof derr) < 0) {
        snprintf(err, el, "%s:%d: %s", path, lineno, derr);
        fclose(fp);
        catalog_free(c);
        return -1;
      }
      snprintf(w.op, sizeof w.op, "%s", d.op);
      snprintf(w.dtype, sizeof w.dtype, "%s",
               d.dtype >= 0 ? nkl_dtype_name((nkl_dtype)d.dtype) : "");
      snprintf(w.label, sizeof w.label, "%s", d.label);
      snprintf(w.descriptor, sizeof w.descriptor, "%s", sp);
      if (add(c, &cap, &w) < 0) {
        snprintf(err, el, "out of memory");
        fclose(fp);
        catalog_free(c);
        return -1;
      }
    }
    fclose(fp);
  }
  return 0;
}

void catalog_free(catalog *c) {
  free(c->items);
  c->items = NULL;
  c->count = 0;
}

const char *catalog_family(const catalog *c, const char *op) {
  for (int i = 0; i < c->count; i++)
    if (strcmp(c->items[i].op, op) == 0) return c->items[i].family;
  return "";
}

static bool known_family(const char *f) {
  for (size_t i = 0; i < sizeof kFamilies / sizeof kFamilies[0]; i++)
    if (strcmp(kFamilies[i], f) == 0) return true;
  return false;
}

int catalog_select(const catalog *c, const selection *s, workload **out, char *err, size_t el) {
  *out = NULL;
  if (s->desc) {
    nkl_desc d;
    if (desc_parse(s->desc, &d, err, el) < 0) return -1;
    workload *w = calloc(1, sizeof *w);
    if (!w) return -1;
    snprintf(w->family, sizeof w->family, "%s", catalog_family(c, d.op));
    snprintf(w->op, sizeof w->op, "%s", d.op);
    snprintf(w->id, sizeof w->id, "desc");
    snprintf(w->dtype, sizeof w->dtype, "%s",
             d.dtype >= 0 ? nkl_dtype_name((nkl_dtype)d.dtype) : "");
    snprintf(w->label, sizeof w->label, "%s", d.label);
    desc_format(&d, w->descriptor, sizeof w->descriptor);
    if (!w->family[0]) {
      snprintf(err, el, "unknown op '%s' (see nkl list)", d.op);
      free(w);
      return -1;
    }
    *out = w;
    return 1;
  }
  const char *op = s->op, *id = s->id;
  char opbuf[48];
  const char *sep = id ? strpbrk(id, ":/") : NULL;
  if (sep) { /* Op:W8 (or Op/W8) */
    const size_t k = (size_t)(sep - id);
    snprintf(opbuf, sizeof opbuf, "%.*s", (int)(k < sizeof opbuf ? k : sizeof opbuf - 1), id);
    if (s->op && strcmp(s->op, opbuf) != 0) {
      snprintf(err, el, "--op %s and --id %s name different ops", s->op, s->id);
      return -1;
    }
    op = opbuf;
    id = sep + 1;
  }
  if (op && !catalog_family(c, op)[0]) {
    snprintf(err, el, "unknown op '%s' (see nkl list)", op);
    return -1;
  }
  if (s->family && !known_family(s->family)) {
    snprintf(err, el, "unknown family '%s' (norm, conv, pool, topk)", s->family);
    return -1;
  }
  workload *w = malloc(sizeof *w * (size_t)(c->count ? c->count : 1));
  if (!w) return -1;
  int n = 0;
  for (int i = 0; i < c->count; i++) {
    const workload *it = &c->items[i];
    if (op && strcmp(it->op, op) != 0) continue;
    if (s->family && strcmp(it->family, s->family) != 0) continue;
    if (id && strcmp(it->id, id) != 0) continue;
    w[n++] = *it;
  }
  if (n == 0) {
    if (op && s->family) /* both are known: the op is in another family */
      snprintf(err, el, "op %s is in family %s, not %s", op, catalog_family(c, op), s->family);
    else if (id)
      snprintf(err, el,
               "no workload %s%s%s (ids are W1, W2, ... within each op: --id W8 or --id Op:W8; "
               "see nkl list%s%s)",
               op ? op : "", op ? ":" : "", id, op ? " --op " : "", op ? op : "");
    else
      snprintf(err, el, "no workload matches the selection");
    free(w);
    return -1;
  }
  *out = w;
  return n;
}
