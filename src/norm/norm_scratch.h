/* Scratch memory of the norm ops (partial-sum rows). */
#ifndef NKL_NORM_SCRATCH_H
#define NKL_NORM_SCRATCH_H

#include <stddef.h>

/* A 64-byte aligned buffer of at least `bytes` for the calling thread, or NULL. Buffers up
 * to 16 MiB are kept per thread and reused by the next call: allocating them each time
 * (mmap, page faults, munmap) costs tens of microseconds, more than a decode-size op.
 * Release with nkl__norm_scratch_put; not reentrant (one buffer in use per thread). */
void *nkl__norm_scratch_get(size_t bytes);
void nkl__norm_scratch_put(void *p);

#endif
