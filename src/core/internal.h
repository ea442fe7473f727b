/* Library-internal helpers shared by every op family: errors, validation, dispatch,
 * threads. Nothing here is part of the public API. */
#ifndef NKL_CORE_INTERNAL_H
#define NKL_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nkl.h"

/* ---- cold calls (entry_text.c) ------------------------------------------------------ */

/* A call whose code is no longer in any cache (a decode-size norm after a model's other
 * layers) fetches it a line at a time as it runs, each line a DRAM round trip: on the Xeon
 * guest about 5 of the ~10 us of a cold RMSNorm [1, 16] call. The functions on the path from
 * an API entry to its kernel (validation, dispatch, threads) carry NKL_ENTRY_TEXT, which puts
 * them in one section, and nkl__prefetch_entry() at the entry asks for all of its lines
 * at once, with the settings that path reads (NKL_ENTRY_DATA: thread count, ISA, tuning).
 * Only on ELF targets (the linker's __start_/__stop_ symbols); elsewhere a no-op. */
#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define NKL_ENTRY_TEXT __attribute__((section("nkl_entry_text")))
#define NKL_ENTRY_DATA __attribute__((section("nkl_entry_data")))
#else
#define NKL_ENTRY_TEXT
#define NKL_ENTRY_DATA
#endif
/* Both sections, and the caller's n tensor descriptors t (NULL skipped), which the
 * validation reads one by one. NKL_PREFETCH_ENTRY(x, y, ...) passes its arguments as t. */
void nkl__prefetch_entry(const nkl_tensor *const *t, int n);
#define NKL_PREFETCH_ENTRY(...)                                                     \
  do {                                                                              \
    const nkl_tensor *const nkl_entry_args_[] = {__VA_ARGS__};                      \
    nkl__prefetch_entry(nkl_entry_args_,                                            \
                        (int)(sizeof nkl_entry_args_ / sizeof nkl_entry_args_[0])); \
  } while (0)
/* bytes from p, e.g. an op's kernel list */
void nkl__prefetch_bytes(const void *p, size_t bytes);

/* ---- errors (error.c) ---------------------------------------------------------------- */

/* Records a formatted message for nkl_last_error() and returns status. */
nkl_status nkl__fail(nkl_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Starts an entry point's call on this thread: clears the error message and names the
 * function for the messages of nkl__fail (op: e.g. "layernorm_fwd"). */
void nkl__begin(const char *op);
/* Records the kernel that ran (for nkl_last_kernel and NKL_VERBOSE). */
void nkl__ran_kernel(const char *op, const char *kernel);

/* ---- ISA (isa.c) --------------------------------------------------------------------- */

nkl_isa nkl__isa(void); /* the active ISA: min(cpu, NKL_MAX_ISA, nkl_set_max_isa) */

/* Memory tuning by CPU, set with the ISA (first nkl__isa call, before any kernel runs):
 * nkl__tune_intel 1 on Intel, nkl__tune_zen1 1 on AMD Zen and Zen+ (family 17h models below
 * 30h), both 0 elsewhere; NKL_CPU_TUNING=intel|zen1|other overrides both. See VF_PREFETCH,
 * the quantized norms' streamed codes (rownorm.c), the pools' y prefetch and the backward's
 * streamed dx (rownorm_bwd.c) for what they select and why. */
extern int nkl__tune_intel;
extern int nkl__tune_zen1;

/* A kernel list entry: the first entry whose isa <= active and whose key matches wins.
 * Lists are ordered best first and end with the portable scalar kernel. */
typedef struct nkl_kernel_entry {
  const char *name; /* storage dtype, accumulator, op, ISA: bf16_f32acc_rmsnorm_fwd__avx512 */
  nkl_isa isa;
  int key; /* op-defined selector, e.g. a packed (x dtype, w dtype) pair */
  void (*fn)(void);
} nkl_kernel_entry;

const nkl_kernel_entry *nkl__select(const nkl_kernel_entry *list, size_t count, int key);

/* ---- threads (threads.c) ------------------------------------------------------------- */

/* Threads for a job touching `bytes` of memory in `items` independent pieces: 1 below a
 * size where fork/join costs more than it saves, never more than items. */
int nkl__threads_for(int64_t items, int64_t bytes);

/* Runs body(ctx, lo, hi) over [0, n) split into `threads` contiguous, near-equal blocks
 * (block t is [n*t/T, n*(t+1)/T)): a fixed split, so results never depend on scheduling. */
typedef void (*nkl_range_fn)(const void *ctx, int64_t lo, int64_t hi);
void nkl__parallel_range(int threads, int64_t n, nkl_range_fn body, const void *ctx);
/* nkl__parallel_range for the arithmetic kernels: under NKL_DENORMALS_FLUSH each thread runs
 * its block with flush-to-zero and denormals-are-zero, restoring its own MXCSR after. */
void nkl__parallel_arith(int threads, int64_t n, nkl_range_fn body, const void *ctx);

/* True when an output of `bytes` is better written with non-temporal stores: it is larger
 * than the last-level cache (it would evict the caller's data and would not survive there
 * anyway) and `p` and `row_bytes` are multiples of `align`. NKL_STREAM_MIN_BYTES overrides
 * the size threshold (0 disables streaming). */
bool nkl__use_streaming_stores(const void *p, int64_t row_bytes, int64_t bytes, size_t align);
int64_t nkl__llc_bytes(void);

/* ---- validation (tensor.c) ----------------------------------------------------------- */

/* Checks rank range, dims >= 1, dtype known, non-NULL data, element and byte counts
 * representable; `what` names the argument in messages. */
nkl_status nkl__check_tensor(const nkl_tensor *t, const char *what);
int64_t nkl__numel(const nkl_tensor *t);
bool nkl__is_contiguous(const nkl_tensor *t);
/* Views t as [rows, cols] with cols = last dim (stride 1) and a uniform row stride. */
nkl_status nkl__as_rows(const nkl_tensor *t, const char *what, int64_t *rows, int64_t *cols,
                        int64_t *row_stride);
/* True if the byte ranges spanned by a and b overlap. */
bool nkl__overlaps(const nkl_tensor *a, const nkl_tensor *b);
const char *nkl__shape_str(const nkl_tensor *t, char *buf, size_t len);

#endif /* NKL_CORE_INTERNAL_H */
