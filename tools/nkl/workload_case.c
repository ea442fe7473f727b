#include "workload_case.h"

#include <stdio.h>
#include <string.h>

int workload_open(const workload *w, workload_case *wc, char *err, size_t el) {
  memset(wc, 0, sizeof *wc);
  nkl_desc d;
  if (desc_parse(w->descriptor, &d, err, el) < 0) return -1;
  wc->adapter = adapter_find(d.op);
  if (!wc->adapter) return 1;
  wc->c = wc->adapter->create(&d, &wc->info, err, el);
  if (!wc->c) return -1;
  if (desc_unused(&d, err, el) < 0) {
    workload_close(wc);
    return -1;
  }
  return 0;
}

void workload_close(workload_case *wc) {
  if (wc->adapter && wc->c) wc->adapter->destroy(wc->c);
  wc->c = NULL;
}
