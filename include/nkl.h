/* nkl: fast, correct CPU kernels for normalization, convolution, pooling and top-k.
 *
 * Conventions (details in docs/api.md and docs/numerics.md):
 *
 *  - A tensor is described by nkl_tensor: dtype, rank, shape, strides (in ELEMENTS, not
 *    bytes) and a data pointer. The library never owns tensor memory.
 *  - Every entry point validates all of its arguments before touching any output. On error
 *    it returns a specific nkl_status and sets a readable, per-thread message that
 *    nkl_last_error() returns; the outputs are left untouched.
 *  - Storage dtypes f16, bf16 and fp8 e4m3 are converted to f32 on load; all arithmetic and
 *    every reduction is done in f32 with a fixed partial-sum layout (identical results on
 *    every ISA and any thread count); results are rounded to the output dtype once, with
 *    round-to-nearest-even, NaN preserved. Statistics (mean, rstd, scales) are f32.
 *  - Every numeric constant (eps, ...) is a parameter. The library never changes the
 *    caller's floating-point environment: subnormal values are handled exactly, unless
 *    nkl_set_denormal_mode(NKL_DENORMALS_FLUSH) asks for flush-to-zero inside the kernels.
 *  - Threads: OpenMP. nkl_set_num_threads() sets the count nkl uses (default: the OpenMP
 *    default, i.e. OMP_NUM_THREADS or all cores). Small problems run on one thread.
 *  - ISA: chosen at run time (scalar, AVX2+FMA+F16C, AVX-512F/BW/VL, AVX-512-BF16); the
 *    environment variable NKL_MAX_ISA=scalar|avx2|avx512|avx512bf16 caps it, NKL_VERBOSE=1
 *    prints the kernel chosen for each call to stderr.
 */
#ifndef NKL_H
#define NKL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NKL_VERSION_MAJOR 0
#define NKL_VERSION_MINOR 1
#define NKL_VERSION_PATCH 0

/* Storage data types. */
typedef enum nkl_dtype {
  NKL_F32 = 0,
  NKL_F16 = 1,
  NKL_BF16 = 2,
  NKL_FP8_E4M3 = 3, /* "e4m3fn": bias 7, no infinities, max 448, NaN = 0x7F/0xFF */
  NKL_I8 = 4,
  NKL_I32 = 5,
  NKL_DTYPE_COUNT
} nkl_dtype;

/* Status codes. NKL_OK is 0; every error is a distinct positive value. */
typedef enum nkl_status {
  NKL_OK = 0,
  NKL_ERR_NULL_POINTER = 1, /* a required pointer (tensor, data, output) is NULL */
  NKL_ERR_BAD_DTYPE = 2,    /* dtype not supported by this op, or tensors disagree */
  NKL_ERR_BAD_RANK = 3,     /* rank outside what the op accepts */
  NKL_ERR_BAD_SHAPE = 4,    /* a dimension <= 0, or shapes that do not agree */
  NKL_ERR_BAD_STRIDE = 5,   /* a layout the op does not support (e.g. non-contiguous rows) */
  NKL_ERR_OVERFLOW = 6,     /* element or byte count overflows */
  NKL_ERR_BAD_PARAM = 7,    /* a scalar parameter out of range (eps < 0, NaN, ...) */
  NKL_ERR_UNSUPPORTED = 8,  /* valid request that this build does not implement */
  NKL_ERR_ALLOC = 9,        /* out of memory for scratch space */
  NKL_ERR_ALIAS = 10,       /* an output overlaps an input where that is not allowed */
  NKL_ERR_INTERNAL = 11
} nkl_status;

/* Instruction-set levels, ordered: each includes the ones below it. */
typedef enum nkl_isa {
  NKL_ISA_SCALAR = 0,     /* portable C */
  NKL_ISA_AVX2 = 1,       /* AVX2 + FMA + F16C */
  NKL_ISA_AVX512 = 2,     /* AVX-512 F/BW/VL/DQ */
  NKL_ISA_AVX512BF16 = 3, /* + AVX512_BF16 (and VNNI) */
  NKL_ISA_COUNT
} nkl_isa;

#define NKL_MAX_RANK 8

typedef struct nkl_tensor {
  nkl_dtype dtype;
  int rank;                      /* 0 (scalar) .. NKL_MAX_RANK */
  int64_t shape[NKL_MAX_RANK];   /* each >= 1 */
  int64_t strides[NKL_MAX_RANK]; /* in elements; row-major contiguous: strides[rank-1]=1 */
  void *data;
} nkl_tensor;

/* A contiguous row-major tensor over caller memory. rank > NKL_MAX_RANK gives rank -1
 * (rejected by every entry point). */
nkl_tensor nkl_tensor_make(nkl_dtype dtype, int rank, const int64_t *shape, void *data);

/* Element size in bytes (0 for an unknown dtype) and name ("f32", "bf16", ...). */
size_t nkl_dtype_size(nkl_dtype dtype);
const char *nkl_dtype_name(nkl_dtype dtype);
/* Parses a dtype name ("f32", "float32", "bf16", "f16", "fp8e4m3", ...); -1 if unknown. */
int nkl_dtype_parse(const char *name);

/* Error reporting. The message belongs to the calling thread and stays valid until that
 * thread's next nkl call. */
const char *nkl_last_error(void);
const char *nkl_status_name(nkl_status status);

/* Threads: n >= 1 sets the count, n <= 0 restores the default. */
void nkl_set_num_threads(int n);
int nkl_get_num_threads(void);

/* Subnormal f32 values in arithmetic (docs/numerics.md). NKL_DENORMALS_KEEP, the default,
 * computes with them exactly, as PyTorch does by default. On Intel cores an arithmetic
 * instruction with a subnormal operand or result then takes a microcode assist of ~100
 * cycles (RMSNorm f32 [256, 4096], one thread: 1% subnormal inputs 3x slower, 10%: 10x).
 * NKL_DENORMALS_FLUSH runs the arithmetic kernels (row norms, their backward, L1/L2, weight
 * and spectral norm, average pools) with flush-to-zero and denormals-are-zero set on each of
 * their threads for the duration of the call, then restores that thread's setting: subnormal
 * inputs count as zeros of their sign and subnormal results become zero, as under
 * torch.set_flush_denormal(True). Max pools, top-k and dtype conversions select or convert
 * values exactly and ignore it. x86 only (elsewhere FLUSH is accepted and changes nothing).
 * Process-wide; any other value is NKL_ERR_BAD_PARAM and leaves the mode as it was. The
 * environment variable NKL_DENORMALS=keep|flush sets the initial mode. */
typedef enum nkl_denormal_mode {
  NKL_DENORMALS_KEEP = 0,
  NKL_DENORMALS_FLUSH = 1
} nkl_denormal_mode;
nkl_status nkl_set_denormal_mode(nkl_denormal_mode mode);
nkl_denormal_mode nkl_get_denormal_mode(void);

/* ISA: what the CPU supports (after NKL_MAX_ISA), and the one in use. nkl_set_max_isa()
 * lowers the cap at run time (tests use it to reach every kernel); it never raises it past
 * the CPU. Returns the ISA now in use. */
nkl_isa nkl_cpu_isa(void);
nkl_isa nkl_active_isa(void);
nkl_isa nkl_set_max_isa(nkl_isa cap);
const char *nkl_isa_name(nkl_isa isa);
int nkl_isa_parse(const char *name); /* -1 if unknown */

/* Name of the kernel the most recent successful call on this thread ran ("" if none). */
const char *nkl_last_kernel(void);

/* Elementwise dtype conversion between any two of f32, f16, bf16, fp8 e4m3 (same shape,
 * contiguous). Rounding: nearest-even; fp8 saturates to +-448 and never emits NaN codes
 * for finite or infinite inputs (NaN stays NaN). */
nkl_status nkl_convert(const nkl_tensor *src, nkl_tensor *dst);

/* Scalar conversions (the exact reference the vector code matches). */
float nkl_bf16_to_f32(uint16_t v);
uint16_t nkl_f32_to_bf16(float v);
float nkl_f16_to_f32(uint16_t v);
uint16_t nkl_f32_to_f16(float v);
float nkl_fp8e4m3_to_f32(uint8_t v);
uint8_t nkl_f32_to_fp8e4m3(float v);

#ifdef __cplusplus
}
#endif

#include "nkl/norm.h"
#include "nkl/pool.h"
#include "nkl/conv.h"
#include "nkl/topk.h"

#endif /* NKL_H */
