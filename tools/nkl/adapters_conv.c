/* Adapters of the conv family (see adapter.h). */
#include "adapter.h"

const nkl_adapter *const nkl_conv_adapters[] = {NULL};
