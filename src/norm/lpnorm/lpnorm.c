/* Public entry points of the L1 / L2 norms: validate, view x as [A, B, C] (B kept), sum
 * fixed blocks in parallel, then add each kept element's block sums in index order. */
#include <math.h>
#include <stdlib.h>

#include "core/convert_scalar.h"
#include "core/internal.h"
#include "norm/lpnorm/lpnorm.h"
#include "core/scratch.h"

#define DECL_ISA(op, pfx, isa) \
  void pfx##_f32acc_##op##__##isa(const void *a, int64_t i0, int64_t i1);
#define DECL(op, pfx, xt) \
  DECL_ISA(op, pfx, scalar) DECL_ISA(op, pfx, avx2) DECL_ISA(op, pfx, avx512)
NKL_LPNORM_DTYPES(DECL, l1norm_fwd)
NKL_LPNORM_DTYPES(DECL, l2norm_fwd)

#define ENTRY(op, pfx, isa, level, xt) \
  {#pfx "_f32acc_" #op "__" #isa, level, (int)(xt), (void (*)(void))pfx##_f32acc_##op##__##isa},
#if defined(__x86_64__)
#define X86(op, pfx, xt) \
  ENTRY(op, pfx, avx512, NKL_ISA_AVX512, xt) ENTRY(op, pfx, avx2, NKL_ISA_AVX2, xt)
#else
#define X86(op, pfx, xt)
#endif
#define SCALAR(op, pfx, xt) ENTRY(op, pfx, scalar, NKL_ISA_SCALAR, xt)
static const nkl_kernel_entry k_l1[] = {NKL_LPNORM_DTYPES(X86, l1norm_fwd)
                                            NKL_LPNORM_DTYPES(SCALAR, l1norm_fwd)};
static const nkl_kernel_entry k_l2[] = {NKL_LPNORM_DTYPES(X86, l2norm_fwd)
                                            NKL_LPNORM_DTYPES(SCALAR, l2norm_fwd)};

/* Block length of the partial sums: a constant of the algorithm (never of the thread
 * count), long enough that the block loop streams, short enough to split a row over
 * threads. */
enum { kBlock = 4096 };

typedef struct final_ctx {
  const float *part;
  int64_t per; /* partial sums per kept element: A * nblk */
  int p;
  void *y;
  nkl_dtype dt;
} final_ctx;

static void finish(const void *p, int64_t b0, int64_t b1) {
  const final_ctx *f = p;
  for (int64_t b = b0; b < b1; b++) {
    float s = 0.0f;
    for (int64_t i = 0; i < f->per; i++) s += f->part[b * f->per + i];
    if (f->p == 2) s = sqrtf(s);
    switch (f->dt) {
      case NKL_F16: ((uint16_t *)f->y)[b] = nkl__f32_to_f16(s); break;
      case NKL_BF16: ((uint16_t *)f->y)[b] = nkl__f32_to_bf16(s); break;
      default: ((float *)f->y)[b] = s; break;
    }
  }
}

static nkl_status lpnorm(const char *op, int p, const nkl_tensor *x, const int *dims, int ndims,
                         nkl_tensor *y) {
  nkl__begin(op);
  nkl_status s;
  if ((s = nkl__check_tensor(x, "x")) || (s = nkl__check_tensor(y, "y"))) return s;
  const nkl_dtype xt = x->dtype;
  if (xt != NKL_F32 && xt != NKL_F16 && xt != NKL_BF16)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: x dtype %s not supported (f32, f16, bf16)", op,
                     nkl_dtype_name(xt));
  if (y->dtype != xt)
    return nkl__fail(NKL_ERR_BAD_DTYPE, "%s: y is %s but x is %s", op, nkl_dtype_name(y->dtype),
                     nkl_dtype_name(xt));
  if (x->rank < 1) return nkl__fail(NKL_ERR_BAD_RANK, "%s: x must have rank >= 1", op);
  if (!nkl__is_contiguous(x)) return nkl__fail(NKL_ERR_BAD_STRIDE, "%s: x must be contiguous", op);
  if (!nkl__is_contiguous(y)) return nkl__fail(NKL_ERR_BAD_STRIDE, "%s: y must be contiguous", op);
  if (ndims < 0 || (ndims > 0 && !dims))
    return nkl__fail(NKL_ERR_BAD_PARAM, "%s: dims must list ndims >= 0 dimensions", op);
  bool red[NKL_MAX_RANK] = {false};
  for (int i = 0; i < ndims; i++) {
    const int d = dims[i] < 0 ? dims[i] + x->rank : dims[i];
    if (d < 0 || d >= x->rank || red[d])
      return nkl__fail(NKL_ERR_BAD_PARAM, "%s: dim %d is out of range or repeated (rank %d)", op,
                       dims[i], x->rank);
    red[d] = true;
  }
  if (ndims == 0)
    for (int d = 0; d < x->rank; d++) red[d] = true;
  /* kept dims must form one block: [reduced..., kept..., reduced...] */
  int first = -1, last = -1, kept = 0;
  for (int d = 0; d < x->rank; d++)
    if (!red[d]) {
      if (first < 0) first = d;
      last = d, kept++;
    }
  if (kept && last - first + 1 != kept)
    return nkl__fail(NKL_ERR_UNSUPPORTED, "%s: the kept dims must be adjacent", op);
  int64_t A = 1, B = 1, C = 1;
  for (int d = 0; d < x->rank; d++) {
    if (!red[d])
      B *= x->shape[d];
    else if (kept && d < first)
      A *= x->shape[d];
    else
      C *= x->shape[d];
  }
  if (y->rank != kept)
    return nkl__fail(NKL_ERR_BAD_RANK, "%s: y must have rank %d (keepdim=false), got %d", op, kept,
                     y->rank);
  for (int d = 0, j = 0; d < x->rank; d++)
    if (!red[d] && y->shape[j++] != x->shape[d]) {
      char bx[128], by[128];
      return nkl__fail(NKL_ERR_BAD_SHAPE, "%s: y shape %s does not match the kept dims of %s", op,
                       nkl__shape_str(y, by, sizeof by), nkl__shape_str(x, bx, sizeof bx));
    }
  if (nkl__overlaps(x, y)) return nkl__fail(NKL_ERR_ALIAS, "%s: y overlaps x", op);
  const nkl_kernel_entry *k =
      nkl__select(p == 1 ? k_l1 : k_l2,
                  p == 1 ? sizeof k_l1 / sizeof k_l1[0] : sizeof k_l2 / sizeof k_l2[0], (int)xt);
  if (!k) return nkl__fail(NKL_ERR_INTERNAL, "%s: no kernel for this dtype", op);
  const int64_t nblk = (C + kBlock - 1) / kBlock, total = B * A * nblk;
  float *part = nkl__scratch_get((size_t)total * sizeof(float));
  if (!part) return nkl__fail(NKL_ERR_ALLOC, "%s: cannot allocate the partial sums", op);
  const lpnorm_args a = {x->data, A, B, C, kBlock, nblk, part};
  const int64_t bytes = A * B * C * (int64_t)nkl_dtype_size(xt);
  nkl__parallel_arith(nkl__threads_for(total, bytes), total, (nkl_range_fn)k->fn, &a);
  const final_ctx f = {part, A * nblk, p, y->data, xt};
  nkl__parallel_arith(nkl__threads_for(B, total * 4), B, finish, &f);
  nkl__scratch_put(part);
  nkl__ran_kernel(op, k->name);
  return NKL_OK;
}

nkl_status nkl_l1norm_fwd(const nkl_tensor *x, const int *dims, int ndims, nkl_tensor *y) {
  return lpnorm("l1norm_fwd", 1, x, dims, ndims, y);
}

nkl_status nkl_l2norm_fwd(const nkl_tensor *x, const int *dims, int ndims, nkl_tensor *y) {
  return lpnorm("l2norm_fwd", 2, x, dims, ndims, y);
}
