/* Scratch memory of the ops: the norms' partial-sum rows, the pools' row buffers and tap
 * tables. */
#ifndef NKL_CORE_SCRATCH_H
#define NKL_CORE_SCRATCH_H

#include <stddef.h>

/* A 64-byte aligned buffer of at least `bytes` for the calling thread, or NULL. Buffers up
 * to 16 MiB are kept per thread and reused by the next call: allocating them each time
 * (mmap, page faults, munmap) costs tens of microseconds, more than a decode-size op, and
 * even a small malloc and free cost about 0.8 us right after an LLC sweep (the allocator's
 * bins and chunk headers are DRAM misses), a fifth of a cold 2-plane pool.
 * Release with nkl__scratch_put; not reentrant (one buffer in use per thread). A thread's
 * kept buffer is freed when the thread exits. */
void *nkl__scratch_get(size_t bytes);
void nkl__scratch_put(void *p);

#endif
