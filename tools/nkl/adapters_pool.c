/* Adapters of the pool family (see adapter.h). */
#include "adapter.h"

const nkl_adapter *const nkl_pool_adapters[] = {NULL};
