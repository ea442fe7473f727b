#include "adapter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

const nkl_adapter *adapter_find(const char *op) {
  const nkl_adapter *const *tables[] = {nkl_norm_adapters, nkl_pool_adapters, nkl_conv_adapters,
                                        nkl_topk_adapters};
  for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
    for (const nkl_adapter *const *a = tables[t]; *a; a++)
      if (strcmp((*a)->op, op) == 0) return *a;
  return NULL;
}

/* Buffers of 2 MiB or more are 2 MiB-aligned and backed by transparent huge pages where the
 * kernel allows it (MADV_HUGEPAGE; THP in "madvise" or "always" mode), as runtimes do for
 * large tensors. With 4 KiB pages, streaming a tensor takes a TLB miss every 4 KiB, and in a
 * VM each miss is a two-level page walk whose cost depends on how the host backs the
 * buffer's pages: on the 2-vCPU Xeon guest one MaxPool2d call (W6, 128 MiB of traffic, 2
 * threads, cold) took 4.9-8.1 ms depending on which buffer it read, in one process, and
 * 4.3-4.4 ms on every buffer with huge pages (docs/methodology.md). The page size is the
 * same for every candidate that reads these buffers. */
enum { kHugePage = 2 << 20 };
static size_t case_rounded(size_t bytes) {
  const size_t align = bytes >= kHugePage ? kHugePage : 64;
  return bytes ? (bytes + align - 1) / align * align : 64;
}
void *case_alloc_untouched(size_t bytes) {
  const size_t rounded = case_rounded(bytes);
  const bool huge = rounded >= kHugePage;
  void *p = aligned_alloc(huge ? kHugePage : 64, rounded);
#ifdef MADV_HUGEPAGE
  if (p && huge) (void)madvise(p, rounded, MADV_HUGEPAGE); /* advice: may be refused */
#endif
  return p;
}
void *case_alloc(size_t bytes) {
  void *p = case_alloc_untouched(bytes);
  if (p) memset(p, 0, case_rounded(bytes));
  return p;
}

void case_free(void *p) { free(p); }

nkl_tensor *case_add(case_info *info, const char *name, bool is_output, nkl_dtype dt, int rank,
                     const int64_t *shape, char *err, size_t errlen) {
  if (info->nargs == CASE_MAX_ARGS) {
    snprintf(err, errlen, "too many tensors");
    return NULL;
  }
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (shape[i] <= 0 || shape[i] > ((int64_t)1 << 40) / n) {
      snprintf(err, errlen, "%s: shape dim %d = %lld is invalid or too large", name, i,
               (long long)shape[i]);
      return NULL;
    }
    n *= shape[i];
  }
  void *data = case_alloc((size_t)n * nkl_dtype_size(dt));
  if (!data) {
    snprintf(err, errlen, "%s: cannot allocate %.1f MiB", name,
             (double)n * (double)nkl_dtype_size(dt) / 1048576.0);
    return NULL;
  }
  case_arg *a = &info->args[info->nargs++];
  a->name = name;
  a->is_output = is_output;
  a->t = nkl_tensor_make(dt, rank, shape, data);
  return &a->t;
}

void case_free_args(case_info *info) {
  for (int i = 0; i < info->nargs; i++) case_free(info->args[i].t.data);
  info->nargs = 0;
}

int case_dtype(const nkl_desc *d, const nkl_dtype *allowed, int nallowed, nkl_dtype *out, char *err,
               size_t errlen) {
  if (d->dtype < 0) {
    snprintf(err, errlen, "%s needs dtype=...", d->op);
    return -1;
  }
  for (int i = 0; i < nallowed; i++)
    if (allowed[i] == (nkl_dtype)d->dtype) {
      *out = allowed[i];
      return 0;
    }
  snprintf(err, errlen, "%s does not support dtype %s", d->op, nkl_dtype_name((nkl_dtype)d->dtype));
  return -1;
}
