/* How the nkl command drives one operator: an adapter turns a descriptor into buffers,
 * runs nkl on them, and checks the result against the oracle. One adapter per op, listed
 * in its family's table (adapters_<family>.c); `nkl check` and `nkl bench` know nothing
 * else about ops. Ops without an adapter are reported as SKIP ("not implemented"). */
#ifndef NKL_TOOL_ADAPTER_H
#define NKL_TOOL_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>

#include "desc.h"
#include "nkl.h"
#include "oracle/oracle.h"

#define CASE_MAX_ARGS 12

/* A tensor the case owns, named as in the op's PyTorch program (x, weight, y, ...). */
typedef struct case_arg {
  const char *name;
  nkl_tensor t;
  bool is_output;
} case_arg;

/* What create() reports about a case. flops/bytes follow ../shared/spec/operators.md. */
typedef struct case_info {
  double flops, bytes;
  int nargs;
  case_arg args[CASE_MAX_ARGS];
} case_info;

typedef struct check_result {
  bool pass;
  nkl_cmp cmp;    /* max error, worst element, counts */
  char note[160]; /* how much was checked, e.g. "all 8388608 outputs" */
} check_result;

typedef struct nkl_adapter {
  const char *op;
  /* Reads the descriptor (every key it accepts; defaults for the rest), allocates the
   * inputs and outputs and fills the inputs with seeded data. Returns the case, or NULL with
   * a one-line message in err (bad parameters, or not enough memory). */
  void *(*create)(nkl_desc *d, case_info *info, char *err, size_t errlen);
  /* One call of nkl's implementation on the case; returns its status. */
  nkl_status (*run)(void *c);
  /* After run(): compares the outputs with the double-precision oracle. */
  void (*check)(void *c, check_result *r);
  void (*destroy)(void *c);
} nkl_adapter;

/* NULL-terminated, one table per family. */
extern const nkl_adapter *const nkl_norm_adapters[];
extern const nkl_adapter *const nkl_pool_adapters[];
extern const nkl_adapter *const nkl_conv_adapters[];
extern const nkl_adapter *const nkl_topk_adapters[];

const nkl_adapter *adapter_find(const char *op);

/* Helpers for adapters. */
void *case_alloc(size_t bytes);           /* 64-byte aligned, zeroed; NULL on failure; from 2 MiB on
                                           * 2 MiB-aligned on huge pages where allowed (adapter.c) */
void *case_alloc_untouched(size_t bytes); /* the same, not zeroed: no page touched yet */
void case_free(void *p);
/* Adds a contiguous tensor of the given shape to info, allocating its memory. NULL on
 * failure (message in err). */
nkl_tensor *case_add(case_info *info, const char *name, bool is_output, nkl_dtype dt, int rank,
                     const int64_t *shape, char *err, size_t errlen);
void case_free_args(case_info *info);
/* Reads the dtype of the descriptor (err if missing or not one of `allowed`). */
int case_dtype(const nkl_desc *d, const nkl_dtype *allowed, int nallowed, nkl_dtype *out, char *err,
               size_t errlen);

#endif
