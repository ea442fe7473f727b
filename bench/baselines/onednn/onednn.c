/* oneDNN candidates, linked in-process through its C API (docs/methodology.md). Each op
 * gets up to two candidates: "onednn" on plain row-major NC(D)HW memory (the tensors nkl
 * reads), and "onednn_any" on the layout oneDNN prefers (format `any`), with the reorders
 * of inputs done before timing and of outputs after it (labelled so). A primitive oneDNN
 * does not implement for the row (f16 in oneDNN 2.6, ...) is recorded with its reason. */
#include <dnnl.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "onednn_internal.h"

static dnnl_engine_t g_eng;
static dnnl_stream_t g_stream;

const char *onednn_version(void) {
  static char buf[64];
  const dnnl_version_t *v = dnnl_version();
  snprintf(buf, sizeof buf, "oneDNN %d.%d.%d (%s)", v->major, v->minor, v->patch,
           v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other runtime");
  return buf;
}

static int dn_init(void) {
  if (g_eng) return 0;
  if (dnnl_engine_create(&g_eng, dnnl_cpu, 0) != dnnl_success) return -1;
  if (dnnl_stream_create(&g_stream, g_eng, dnnl_stream_default_flags) != dnnl_success) return -1;
  return 0;
}

dnnl_engine_t dn_engine(void) { return g_eng; }

dnnl_data_type_t dn_dtype(nkl_dtype t) {
  switch (t) {
    case NKL_F32: return dnnl_f32;
    case NKL_F16: return dnnl_f16;
    case NKL_BF16: return dnnl_bf16;
    case NKL_I8: return dnnl_s8;
    case NKL_I32: return dnnl_s32;
    default: return dnnl_data_type_undef;
  }
}

dnnl_format_tag_t dn_plain_tag(int ndims) {
  static const dnnl_format_tag_t tags[] = {dnnl_a,    dnnl_a,     dnnl_ab,    dnnl_abc,
                                           dnnl_abcd, dnnl_abcde, dnnl_abcdef};
  return ndims >= 1 && ndims <= 6 ? tags[ndims] : dnnl_format_tag_undef;
}

dnnl_format_tag_t dn_channels_last_tag(int ndims) {
  return ndims == 3   ? dnnl_acb
         : ndims == 4 ? dnnl_acdb
         : ndims == 5 ? dnnl_acdeb
                      : dn_plain_tag(ndims);
}

void dn_plain_md(dnnl_memory_desc_t *md, const nkl_tensor *t, dnnl_data_type_t dt) {
  dnnl_dims_t dims;
  for (int i = 0; i < t->rank; i++) dims[i] = t->shape[i];
  dnnl_memory_desc_init_by_tag(md, t->rank, dims,
                               dt == dnnl_data_type_undef ? dn_dtype(t->dtype) : dt,
                               dn_plain_tag(t->rank));
}

/* Binds one execution argument: the primitive's md, over the user's plain memory `user`
 * (md user_md). Same layout: no copy. Otherwise an owned buffer, with a reorder now
 * (inputs) or at fetch (outputs). Returns 0 or -1 (reason set). */
int dn_bind(dn_state *s, int arg, const dnnl_memory_desc_t *prim_md, void *user,
            const dnnl_memory_desc_t *user_md, bool is_output) {
  dn_arg *a = &s->args[s->nargs];
  memset(a, 0, sizeof *a);
  a->arg = arg;
  a->is_output = is_output;
  if (!user || dnnl_memory_desc_equal(prim_md, user_md)) {
    if (dnnl_memory_create(&a->mem, prim_md, g_eng, user ? user : DNNL_MEMORY_ALLOCATE) !=
        dnnl_success)
      return -1;
  } else {
    if (!(a->buf = case_alloc(dnnl_memory_desc_get_size(prim_md))) ||
        dnnl_memory_create(&a->mem, prim_md, g_eng, a->buf) != dnnl_success ||
        dnnl_memory_create(&a->user, user_md, g_eng, user) != dnnl_success) {
      if (a->mem) dnnl_memory_destroy(a->mem);
      case_free(a->buf);
      memset(a, 0, sizeof *a);
      return -1;
    }
    dnnl_primitive_desc_t rpd;
    const dnnl_memory_desc_t *from = is_output ? prim_md : user_md,
                             *to = is_output ? user_md : prim_md;
    if (dnnl_reorder_primitive_desc_create(&rpd, from, g_eng, to, g_eng, NULL) != dnnl_success)
      return -1;
    dnnl_primitive_t r;
    const dnnl_status_t st = dnnl_primitive_create(&r, rpd);
    dnnl_primitive_desc_destroy(rpd);
    if (st != dnnl_success) return -1;
    if (!is_output) {
      dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a->user}, {DNNL_ARG_TO, a->mem}};
      dnnl_primitive_execute(r, g_stream, 2, args);
      dnnl_stream_wait(g_stream);
      dnnl_primitive_destroy(r);
    } else {
      a->reorder_out = r;
    }
    s->reordered = true;
  }
  s->exec[s->nargs].arg = arg;
  s->exec[s->nargs].memory = a->mem;
  s->nargs++;
  return 0;
}

/* The arg's memory as seen by the primitive (after fetch's reorders: user layout). */
void *dn_arg_data(dn_state *s, int arg) {
  for (int i = 0; i < s->nargs; i++)
    if (s->args[i].arg == arg) {
      void *p = NULL;
      dnnl_memory_get_data_handle(s->args[i].user ? s->args[i].user : s->args[i].mem, &p);
      return p;
    }
  return NULL;
}

int dn_create(dn_state *s, const_dnnl_op_desc_t op, const_dnnl_primitive_attr_t attr, char *why,
              size_t len) {
  const dnnl_status_t st = dnnl_primitive_desc_create(&s->pd, op, attr, g_eng, s->hint);
  if (st != dnnl_success) {
    snprintf(why, len, "oneDNN %s: %s", onednn_version() + 7,
             st == dnnl_unimplemented ? "unimplemented (no primitive for this dtype/shape)"
                                      : "invalid arguments");
    s->pd = NULL;
    return -1;
  }
  const char *impl = NULL;
  dnnl_primitive_desc_query(s->pd, dnnl_query_impl_info_str, 0, &impl);
  snprintf(s->impl, sizeof s->impl, "%s", impl ? impl : "?");
  if (dnnl_primitive_create(&s->prim, s->pd) != dnnl_success) {
    snprintf(why, len, "oneDNN: primitive creation failed");
    return -1;
  }
  return 0;
}

const dnnl_memory_desc_t *dn_query_md(dn_state *s, dnnl_query_t what, int index) {
  return dnnl_primitive_desc_query_md(s->pd, what, index);
}

static int dn_threads;

static int dn_run(void *p) {
  dn_state *s = p;
  omp_set_num_threads(dn_threads);
  if (dnnl_primitive_execute(s->prim, g_stream, s->nargs, s->exec) != dnnl_success) return 1;
  return dnnl_stream_wait(g_stream) == dnnl_success ? 0 : 1;
}

static int dn_fetch(void *p, case_info *info, char *missing, size_t len) {
  dn_state *s = p;
  if (dn_run(s) != 0) return 0; /* one clean call: the case's tensors hold someone else's */
  for (int i = 0; i < s->nargs; i++)
    if (s->args[i].reorder_out) {
      dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, s->args[i].mem}, {DNNL_ARG_TO, s->args[i].user}};
      dnnl_primitive_execute(s->args[i].reorder_out, g_stream, 2, args);
      dnnl_stream_wait(g_stream);
    }
  missing[0] = '\0';
  return s->fetch ? s->fetch(s, info, missing, len) : 1;
}

static void dn_destroy(void *p) {
  dn_state *s = p;
  if (!s) return;
  for (int i = 0; i < s->nargs; i++) {
    if (s->args[i].mem) dnnl_memory_destroy(s->args[i].mem);
    if (s->args[i].user) dnnl_memory_destroy(s->args[i].user);
    if (s->args[i].reorder_out) dnnl_primitive_destroy(s->args[i].reorder_out);
    case_free(s->args[i].buf);
  }
  if (s->prim) dnnl_primitive_destroy(s->prim);
  if (s->pd) dnnl_primitive_desc_destroy(s->pd);
  if (s->hint) dnnl_primitive_desc_destroy(s->hint);
  for (int i = 0; i < 4; i++) free(s->owned[i]);
  free(s);
}

/* ---- registry ---------------------------------------------------------------------------- */

typedef struct dn_op {
  const char *op;
  /* Builds the candidate for one layout (any = oneDNN's preferred); 0 ok, -1 with reason. */
  int (*build)(bl_row *row, dn_state *s, bool any, char *why, size_t len);
  bool has_any; /* a second, preferred-layout candidate makes sense */
  const char *any_reason;
} dn_op;

static const dn_op kOps[] = {
    {"LayerNormFwd", dn_layernorm, true, NULL},
    {"BatchNormFwd", dn_batchnorm, true, NULL},
    {"BatchNormInferenceFwd", dn_batchnorm, true, NULL},
    {"BatchNormBwd", dn_batchnorm_bwd, true, NULL},
    {"GroupNormFwd", dn_groupnorm, false, NULL},
    {"MaxPool1dFwd", dn_pool, true, NULL},
    {"MaxPool2dFwd", dn_pool, true, NULL},
    {"MaxPool3dFwd", dn_pool, true, NULL},
    {"AvgPool1dFwd", dn_pool, true, NULL},
    {"AvgPool2dFwd", dn_pool, true, NULL},
    {"AvgPool3dFwd", dn_pool, true, NULL},
    {"Conv1dFwd", dn_conv, true, NULL},
    {"Conv1dCausal", dn_conv, true, NULL},
    {"Conv2dFwd", dn_conv, true, NULL},
    {"PointwiseConv2d", dn_conv, true, NULL},
    {"DepthwiseConv2d", dn_conv, true, NULL},
    {"GroupedConv2d", dn_conv, true, NULL},
    {"DilatedConv2d", dn_conv, true, NULL},
    {"Conv2dBiasRelu", dn_conv, true, NULL},
    {"Conv3dFwd", dn_conv, true, NULL},
    {"Conv2dDgrad", dn_conv, true, NULL},
    {"Conv2dWgrad", dn_conv, true, NULL},
    {"Conv2dTranspose", dn_conv, true, NULL},
    {"Conv2dFp8Fwd", NULL, false, "no fp8 data type in oneDNN 2.6"},
    {"L1NormFwd", dn_reduction, false, NULL},
    {"L2NormFwd", dn_reduction, false, NULL},
};

static void add_unsupported(bl_candidate *c, const char *name, bl_status st, const char *why) {
  bl_candidate_mark(c, name, "vendor library", st, why);
}

int onednn_candidates(bl_row *row, bl_candidate *c, int max) {
  const dn_op *op = NULL;
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++)
    if (strcmp(kOps[i].op, row->desc.op) == 0) op = &kOps[i];
  if (max < 2) return 0;
  if (!op) {
    add_unsupported(&c[0], "onednn", BL_UNSUPPORTED, "oneDNN 2.6 has no primitive for this op");
    return 1;
  }
  if (!op->build) {
    add_unsupported(&c[0], "onednn", BL_UNSUPPORTED, op->any_reason);
    return 1;
  }
  if (!row->info) {
    add_unsupported(&c[0], "onednn", BL_UNAVAILABLE, "no inputs for this op on the C side yet");
    return 1;
  }
  if (dn_init() < 0) {
    add_unsupported(&c[0], "onednn", BL_UNAVAILABLE, "oneDNN: cannot create the CPU engine");
    return 1;
  }
  dn_threads = row->threads;
  omp_set_num_threads(row->threads);
  int n = 0;
  for (int any = 0; any <= (op->has_any ? 1 : 0); any++) {
    bl_candidate *k = &c[n++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, any ? "onednn_any" : "onednn");
    snprintf(k->tier, sizeof k->tier, "vendor library");
    dn_state *s = calloc(1, sizeof *s);
    const double t0 = now_ms();
    char why[200] = "";
    if (!s || op->build(row, s, any, why, sizeof why) < 0) {
      k->status = strstr(why, "cannot") || strstr(why, "failed") ? BL_ERROR : BL_UNSUPPORTED;
      snprintf(k->reason, sizeof k->reason, "%s", why[0] ? why : "oneDNN: setup failed");
      dn_destroy(s);
      continue;
    }
    k->setup_ms = now_ms() - t0;
    snprintf(k->label, sizeof k->label, "%s%s, %s",
             any ? "preferred layout" : "plain NC(D)HW layout",
             any ? (s->reordered ? " (reorders untimed)" : " (same as plain)") : "", s->impl);
    k->state = s;
    k->run = dn_run;
    k->fetch = dn_fetch;
    k->destroy = dn_destroy;
  }
  return n;
}
