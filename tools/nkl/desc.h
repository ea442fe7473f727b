/* Problem descriptors: one short string names a workload everywhere (catalog, check, bench,
 * report, error messages). Grammar (docs/descriptors.md):
 *
 *   descriptor := OP (WS key=value)*
 *   value      := int | float | true | false | [int(,int)*] | name
 *
 * e.g. "RMSNormFwd dtype=bf16 x=[2048,4096] normalized=[4096] label=llama-8b-prefill".
 * `dtype` and `label` are common to every op; the rest are the op's own parameters. */
#ifndef NKL_TOOL_DESC_H
#define NKL_TOOL_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DESC_MAX_KV 32
#define DESC_MAX_LIST 8

typedef enum { DV_INT, DV_FLOAT, DV_BOOL, DV_LIST, DV_NAME } desc_kind;

typedef struct desc_kv {
  char key[32];
  desc_kind kind;
  int64_t ints[DESC_MAX_LIST]; /* DV_INT: ints[0]; DV_BOOL: 0/1; DV_LIST: nints values */
  int nints;
  double f; /* DV_FLOAT (and DV_INT as a double) */
  char name[64];
  bool used;
} desc_kv;

typedef struct nkl_desc {
  char op[48];
  int dtype;      /* nkl_dtype; -1 if not given */
  char label[64]; /* "" if not given */
  int nkv;
  desc_kv kv[DESC_MAX_KV];
} nkl_desc;

/* Parses s into d. On error returns -1 and writes a one-line message (with the column) to
 * err. */
int desc_parse(const char *s, nkl_desc *d, char *err, size_t errlen);
/* Writes the canonical form back (same grammar, keys in their original order). */
void desc_format(const nkl_desc *d, char *buf, size_t len);

/* Accessors mark the key used; desc_unused() then reports keys no op consumed (typos).
 * Each returns 0 if found, 1 if absent (out untouched), -1 if present with the wrong kind
 * (message in err). */
int desc_ints(nkl_desc *d, const char *key, int64_t *out, int max, int *n, char *err, size_t el);
int desc_int(nkl_desc *d, const char *key, int64_t *out, char *err, size_t el);
int desc_double(nkl_desc *d, const char *key, double *out, char *err, size_t el);
int desc_bool(nkl_desc *d, const char *key, bool *out, char *err, size_t el);
int desc_name(nkl_desc *d, const char *key, const char **out, char *err, size_t el);
/* -1 with a message if a key was never read by the op, else 0. */
int desc_unused(const nkl_desc *d, char *err, size_t el);

#endif
