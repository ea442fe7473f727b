/* Inputs for ops that have no nkl adapter yet, so the baselines still run on seeded data
 * (baseline.h). Names follow the op's PyTorch program (bench/baselines/torch_programs.py). */
#include <stdio.h>
#include <string.h>

#include "baseline.h"

nkl_tensor *bl_arg(case_info *info, const char *name) {
  for (int i = 0; i < info->nargs; i++)
    if (strcmp(info->args[i].name, name) == 0) return &info->args[i].t;
  return NULL;
}

int bl_inputs_create(nkl_desc *d, case_info *info, char *err, size_t el) {
  (void)d;
  (void)info;
  (void)err;
  (void)el;
  return 1;
}
