/* The README's usage example: RMSNorm over a [4, 4096] bf16 tensor. Built and run by
 * `make test` (ctest: example_quickstart), so it always compiles and works. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "nkl.h"

int main(void) {
  enum { M = 4, N = 4096 };
  uint16_t *x = malloc(sizeof(uint16_t) * M * N), *y = malloc(sizeof(uint16_t) * M * N);
  uint16_t *w = malloc(sizeof(uint16_t) * N);
  float rstd[M];
  if (!x || !y || !w) return 1;
  for (int i = 0; i < M * N; i++) x[i] = nkl_f32_to_bf16(sinf((float)i));
  for (int i = 0; i < N; i++) w[i] = nkl_f32_to_bf16(1.0f);

  /* Describe the buffers: dtype, rank, shape (contiguous row-major), data. */
  const int64_t shape[2] = {M, N}, wshape[1] = {N}, sshape[1] = {M};
  nkl_tensor tx = nkl_tensor_make(NKL_BF16, 2, shape, x);
  nkl_tensor ty = nkl_tensor_make(NKL_BF16, 2, shape, y);
  nkl_tensor tw = nkl_tensor_make(NKL_BF16, 1, wshape, w);
  nkl_tensor ts = nkl_tensor_make(NKL_F32, 1, sshape, rstd); /* optional: pass NULL */

  nkl_status s = nkl_rmsnorm_fwd(&tx, &tw, 1e-6f, &ty, &ts);
  if (s != NKL_OK) {
    fprintf(stderr, "rmsnorm failed: %s\n", nkl_last_error());
    return 1;
  }
  printf("y[0][1] = %g, rstd[0] = %g, kernel %s\n", nkl_bf16_to_f32(y[1]), rstd[0],
         nkl_last_kernel());

  /* Errors are values, never crashes: a mismatched weight is rejected with a message. */
  const int64_t bad[1] = {N - 1};
  nkl_tensor tbad = nkl_tensor_make(NKL_BF16, 1, bad, w);
  s = nkl_rmsnorm_fwd(&tx, &tbad, 1e-6f, &ty, NULL);
  printf("bad weight -> status %d, \"%s\"\n", (int)s, nkl_last_error());

  free(x);
  free(y);
  free(w);
  return s == NKL_ERR_BAD_SHAPE ? 0 : 1;
}
