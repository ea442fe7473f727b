#include "desc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nkl.h"

static bool is_word(int c) { return isalnum(c) || c == '_' || c == '.' || c == '-' || c == '+'; }

static int fail(char *err, size_t el, const char *s, const char *at, const char *what) {
  snprintf(err, el, "bad descriptor at column %d: %s (near \"%.20s\")", (int)(at - s) + 1, what,
           at);
  return -1;
}

/* Parses an integer at *p; -1 on failure. */
static int parse_int(const char **p, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(*p, &end, 10);
  if (end == *p || errno) return -1;
  *out = v;
  *p = end;
  return 0;
}

int desc_parse(const char *s, nkl_desc *d, char *err, size_t el) {
  memset(d, 0, sizeof *d);
  d->dtype = -1;
  if (!s) return fail(err, el, "", "", "empty");
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  const char *op = p;
  while (isalnum((unsigned char)*p) || *p == '_') p++;
  if (p == op) return fail(err, el, s, p, "expected an operator name");
  if ((size_t)(p - op) >= sizeof d->op) return fail(err, el, s, op, "operator name too long");
  if (*p && !isspace((unsigned char)*p)) return fail(err, el, s, p, "unexpected character");
  memcpy(d->op, op, (size_t)(p - op));
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    const char *key = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    if (p == key || *p != '=') return fail(err, el, s, key, "expected key=value");
    if ((size_t)(p - key) >= sizeof d->kv[0].key) return fail(err, el, s, key, "key too long");
    char k[32] = {0};
    memcpy(k, key, (size_t)(p - key));
    p++; /* '=' */
    const char *val = p;
    desc_kv kv;
    memset(&kv, 0, sizeof kv);
    strcpy(kv.key, k);
    if (*p == '[') {
      p++;
      kv.kind = DV_LIST;
      for (;;) {
        while (*p == ' ') p++;
        if (kv.nints == DESC_MAX_LIST) return fail(err, el, s, p, "list too long");
        if (parse_int(&p, &kv.ints[kv.nints]) < 0)
          return fail(err, el, s, p, "expected an integer");
        kv.nints++;
        while (*p == ' ') p++;
        if (*p == ',') {
          p++;
          continue;
        }
        if (*p == ']') {
          p++;
          break;
        }
        return fail(err, el, s, p, "expected ',' or ']'");
      }
    } else {
      while (is_word((unsigned char)*p)) p++;
      if (p == val) return fail(err, el, s, val, "missing value");
      const size_t len = (size_t)(p - val);
      if (len >= sizeof kv.name) return fail(err, el, s, val, "value too long");
      memcpy(kv.name, val, len);
      char *end;
      if (strcmp(kv.name, "true") == 0 || strcmp(kv.name, "false") == 0) {
        kv.kind = DV_BOOL;
        kv.ints[0] = kv.name[0] == 't';
      } else if ((kv.ints[0] = strtoll(kv.name, &end, 10), *end == '\0')) {
        kv.kind = DV_INT;
        kv.f = (double)kv.ints[0];
        kv.nints = 1;
      } else if ((kv.f = strtod(kv.name, &end), *end == '\0')) {
        kv.kind = DV_FLOAT;
      } else {
        kv.kind = DV_NAME;
      }
    }
    if (*p && !isspace((unsigned char)*p)) return fail(err, el, s, p, "unexpected character");
    if (strcmp(k, "dtype") == 0) {
      if (kv.kind != DV_NAME || (d->dtype = nkl_dtype_parse(kv.name)) < 0)
        return fail(err, el, s, val, "unknown dtype");
      continue;
    }
    if (strcmp(k, "label") == 0) {
      snprintf(d->label, sizeof d->label, "%s", kv.name);
      continue;
    }
    for (int i = 0; i < d->nkv; i++)
      if (strcmp(d->kv[i].key, k) == 0) return fail(err, el, s, key, "duplicate key");
    if (d->nkv == DESC_MAX_KV) return fail(err, el, s, key, "too many parameters");
    d->kv[d->nkv++] = kv;
  }
  return 0;
}

void desc_format(const nkl_desc *d, char *buf, size_t len) {
  size_t n = (size_t)snprintf(buf, len, "%s", d->op);
#define PUT(...) \
  if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__)
  if (d->dtype >= 0) PUT(" dtype=%s", nkl_dtype_name((nkl_dtype)d->dtype));
  for (int i = 0; i < d->nkv; i++) {
    const desc_kv *kv = &d->kv[i];
    PUT(" %s=", kv->key);
    if (kv->kind == DV_LIST) {
      for (int j = 0; j < kv->nints; j++) PUT(j ? ",%lld" : "[%lld", (long long)kv->ints[j]);
      PUT("]");
    } else {
      PUT("%s", kv->name);
    }
  }
  if (d->label[0]) PUT(" label=%s", d->label);
#undef PUT
}

static desc_kv *find(nkl_desc *d, const char *key) {
  for (int i = 0; i < d->nkv; i++)
    if (strcmp(d->kv[i].key, key) == 0) {
      d->kv[i].used = true;
      return &d->kv[i];
    }
  return NULL;
}

static int wrong(char *err, size_t el, const char *key, const char *want) {
  snprintf(err, el, "parameter %s must be %s", key, want);
  return -1;
}

int desc_ints(nkl_desc *d, const char *key, int64_t *out, int max, int *n, char *err, size_t el) {
  desc_kv *kv = find(d, key);
  if (!kv) return 1;
  if (kv->kind != DV_LIST && kv->kind != DV_INT) return wrong(err, el, key, "a list of integers");
  if (kv->nints > max) return wrong(err, el, key, "a shorter list");
  memcpy(out, kv->ints, sizeof(int64_t) * (size_t)kv->nints);
  *n = kv->nints;
  return 0;
}

int desc_int(nkl_desc *d, const char *key, int64_t *out, char *err, size_t el) {
  desc_kv *kv = find(d, key);
  if (!kv) return 1;
  if (kv->kind != DV_INT) return wrong(err, el, key, "an integer");
  *out = kv->ints[0];
  return 0;
}

int desc_double(nkl_desc *d, const char *key, double *out, char *err, size_t el) {
  desc_kv *kv = find(d, key);
  if (!kv) return 1;
  if (kv->kind != DV_INT && kv->kind != DV_FLOAT) return wrong(err, el, key, "a number");
  *out = kv->f;
  return 0;
}

int desc_bool(nkl_desc *d, const char *key, bool *out, char *err, size_t el) {
  desc_kv *kv = find(d, key);
  if (!kv) return 1;
  if (kv->kind != DV_BOOL && !(kv->kind == DV_INT && (kv->ints[0] == 0 || kv->ints[0] == 1)))
    return wrong(err, el, key, "true or false");
  *out = kv->ints[0] != 0;
  return 0;
}

int desc_name(nkl_desc *d, const char *key, const char **out, char *err, size_t el) {
  desc_kv *kv = find(d, key);
  if (!kv) return 1;
  if (kv->kind != DV_NAME) return wrong(err, el, key, "a name");
  *out = kv->name;
  return 0;
}

int desc_unused(const nkl_desc *d, char *err, size_t el) {
  for (int i = 0; i < d->nkv; i++)
    if (!d->kv[i].used) {
      snprintf(err, el, "%s has no parameter '%s'", d->op, d->kv[i].key);
      return -1;
    }
  return 0;
}
