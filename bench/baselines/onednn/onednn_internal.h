/* Shared by the oneDNN candidate files (onednn.c and one file per op group). */
#ifndef NKL_ONEDNN_INTERNAL_H
#define NKL_ONEDNN_INTERNAL_H

#include <dnnl.h>
#include <stdbool.h>

#include "baseline.h"

#define DN_MAX_ARGS 12

typedef struct dn_arg {
  int arg;
  dnnl_memory_t mem;  /* what the primitive reads/writes */
  dnnl_memory_t user; /* the case's plain tensor, when mem is a reordered copy */
  dnnl_primitive_t reorder_out;
  void *buf; /* mem's buffer when it is a reordered copy (case_alloc: the tensors' page size) */
  bool is_output;
} dn_arg;

typedef struct dn_state {
  dnnl_primitive_desc_t pd, hint;
  dnnl_primitive_t prim;
  dn_arg args[DN_MAX_ARGS];
  dnnl_exec_arg_t exec[DN_MAX_ARGS];
  int nargs;
  bool reordered;
  char impl[64];
  void *owned[4]; /* scratch the op owns (f32 copies of weights, ...) */
  double eps;
  int (*fetch)(struct dn_state *s, case_info *info, char *missing, size_t len);
} dn_state;

dnnl_engine_t dn_engine(void);
dnnl_data_type_t dn_dtype(nkl_dtype t);
dnnl_format_tag_t dn_plain_tag(int ndims);
dnnl_format_tag_t dn_channels_last_tag(int ndims); /* nwc / nhwc / ndhwc */
void dn_plain_md(dnnl_memory_desc_t *md, const nkl_tensor *t, dnnl_data_type_t dt);
int dn_bind(dn_state *s, int arg, const dnnl_memory_desc_t *prim_md, void *user,
            const dnnl_memory_desc_t *user_md, bool is_output);
void *dn_arg_data(dn_state *s, int arg);
int dn_create(dn_state *s, const_dnnl_op_desc_t op, const_dnnl_primitive_attr_t attr, char *why,
              size_t len);
const dnnl_memory_desc_t *dn_query_md(dn_state *s, dnnl_query_t what, int index);
/* f32 copy of a tensor (owned by s). */
float *dn_f32_copy(dn_state *s, const nkl_tensor *t);

int dn_layernorm(bl_row *row, dn_state *s, bool any, char *why, size_t len);
int dn_batchnorm(bl_row *row, dn_state *s, bool any, char *why, size_t len);
int dn_pool(bl_row *row, dn_state *s, bool any, char *why, size_t len);
int dn_conv(bl_row *row, dn_state *s, bool any, char *why, size_t len);
int dn_groupnorm(bl_row *row, dn_state *s, bool any, char *why, size_t len);
int dn_batchnorm_bwd(bl_row *row, dn_state *s, bool any, char *why, size_t len);
int dn_reduction(bl_row *row, dn_state *s, bool any, char *why, size_t len);

#endif
