/* A workload made ready to run: adapter + case + info, shared by check and bench. */
#ifndef NKL_TOOL_WORKLOAD_CASE_H
#define NKL_TOOL_WORKLOAD_CASE_H

#include "adapter.h"
#include "catalog.h"

typedef struct workload_case {
  const nkl_adapter *adapter; /* NULL: op not implemented */
  void *c;
  case_info info;
} workload_case;

/* 0 ready; 1 not implemented (adapter NULL); -1 error (message in err). */
int workload_open(const workload *w, workload_case *wc, char *err, size_t el);
void workload_close(workload_case *wc);

#endif
