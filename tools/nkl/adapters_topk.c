/* Adapters of the topk family (see adapter.h). */
#include "adapter.h"

const nkl_adapter *const nkl_topk_adapters[] = {NULL};
