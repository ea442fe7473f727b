/* The baseline pool of nkl bench (docs/methodology.md, "Baselines: the pool"): every
 * candidate that could replace nkl for a workload. A provider (oneDNN and XNNPACK in-process,
 * PyTorch eager / torch.compile through a worker process) looks at a row and appends candidates,
 * runnable ones and ones that cannot run this row with their reason. Candidates read the
 * row's input tensors (the same ones nkl reads) and, after timing, write their outputs into
 * the row's output tensors so the op's adapter can check them against the oracle. */
#ifndef NKL_BASELINE_H
#define NKL_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "adapter.h"
#include "catalog.h"
#include "timing.h"

#define BL_MAX_CANDIDATES 8

typedef enum { BL_OK = 0, BL_UNSUPPORTED = 1, BL_UNAVAILABLE = 2, BL_ERROR = 3 } bl_status;

typedef struct bl_row {
  const workload *w;
  nkl_desc desc;    /* parsed descriptor (providers read it with desc_*) */
  case_info *info;  /* named input/output tensors shared by nkl and every candidate; NULL
                       when nobody could build inputs for this op (no adapter) */
  bool have_oracle; /* the op has an nkl adapter: outputs can be checked */
  int threads;
  const time_opts *to;
} bl_row;

typedef struct bl_candidate {
  char name[32];  /* "onednn", "onednn_any", "xnnpack_nhwc", "torch_eager", "torch_compile" */
  char tier[32];  /* "vendor library", "open-source library", "framework eager", "compiler" */
  char label[96]; /* what exactly runs: layout, impl, ... */
  bl_status status;
  char reason[240];
  double setup_ms; /* untimed: plan/primitive creation, reorders, compilation */
  void *state;
  /* One complete call (returns 0 or an error code). NULL for remote candidates. */
  int (*run)(void *state);
  /* Remote candidates (another process) time themselves with the same protocol. */
  void (*remote_warmup)(void *state, const time_opts *o, timing *t);
  void (*remote_samples)(void *state, const time_opts *o, timing *t, int count);
  /* In-process candidates with a thread pool of their own: wakes it after an eviction
   * (timing.h's candidate.wake); NULL for OpenMP-based ones. */
  void (*wake)(void *state);
  /* After timing: writes the candidate's outputs into info's output tensors. Returns the
   * number of outputs written (0 if none could be), names of the outputs it did not produce
   * in `missing`. */
  int (*fetch)(void *state, case_info *info, char *missing, size_t len);
  void (*destroy)(void *state);
} bl_candidate;

/* A candidate that does not run this row: name, tier, status and the reason (every provider's,
 * and the stub a build without the provider's package uses). */
static inline void bl_candidate_mark(bl_candidate *c, const char *name, const char *tier,
                                     bl_status st, const char *why) {
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  snprintf(c->tier, sizeof c->tier, "%s", tier);
  c->status = st;
  snprintf(c->reason, sizeof c->reason, "%s", why);
}

/* Providers: append candidates for the row to c (at most max), return how many. */
int onednn_candidates(bl_row *row, bl_candidate *c, int max);
const char *onednn_version(void);
int xnnpack_candidates(bl_row *row, bl_candidate *c, int max);
const char *xnnpack_version(void);
int torch_candidates(bl_row *row, bl_candidate *c, int max);
void torch_shutdown(void);
const char *torch_version(void);

/* Inputs for a row whose op has no nkl adapter yet, built by the baseline layer itself from
 * the descriptor (seeded like the adapters): 0 and info filled, 1 if this op is not known to
 * the builder, -1 on error (message in err). */
int bl_inputs_create(nkl_desc *d, case_info *info, char *err, size_t el);

/* The named tensor of a case (NULL if absent). */
nkl_tensor *bl_arg(case_info *info, const char *name);

#endif
