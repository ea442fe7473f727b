/* Dtype-generic loads and stores on top of an ISA shim (include one vec_<isa>.h first).
 * `dt` is a compile-time constant at every call site, so the switch folds away. Partial
 * vectors (row tails) go through a zero-padded 16-lane buffer: zero lanes add nothing to
 * sums, so the tail keeps the same partial-sum layout as full vectors. */
#ifndef NKL_VEC_COMMON_H
#define NKL_VEC_COMMON_H

#include <stdint.h>
#include <string.h>

#include "nkl.h"

#define NKL_CAT_(a, b) a##__##b
#define NKL_CAT(a, b) NKL_CAT_(a, b)
/* NKL_KERNEL(bf16_f32acc_rmsnorm_fwd) -> bf16_f32acc_rmsnorm_fwd__avx512 in that TU */
#define NKL_KERNEL(name) NKL_CAT(name, NKL_ISA_SUFFIX)

static inline vf vf_load_fp8(const uint8_t *p) {
  float t[VF_LANES];
  for (int i = 0; i < VF_LANES; i++) t[i] = nkl__fp8e4m3_to_f32(p[i]);
  return vf_load_f32(t);
}
static inline void vf_store_fp8(uint8_t *p, vf a) { vf_store_e4m3(p, a); }

static inline __attribute__((always_inline)) vf vf_load(const void *p, nkl_dtype dt) {
  switch (dt) {
    case NKL_F16: return vf_load_f16((const uint16_t *)p);
    case NKL_BF16: return vf_load_bf16((const uint16_t *)p);
    case NKL_FP8_E4M3: return vf_load_fp8((const uint8_t *)p);
    default: return vf_load_f32((const float *)p);
  }
}

/* Lane-swapped loads, for passes whose lanes are independent (element-wise results, lane-wise
 * sums undone before the lane tree of vf_reduce_add, a max): vf_load_ls gives the vector
 * vf_lane_swap(vf_load(p, dt)), on an ISA whose shim has a cheaper form of that for bf16
 * (VF_HAVE_LANE_SWAP, vec_avx512.h: lanes 1 and 2 of four 128-bit lanes exchanged); elsewhere
 * vf_lane_swap is the identity. Swapping is an involution and commutes with every lane-wise
 * operation, so results are bit for bit those of the in-order loads. */
#ifdef VF_HAVE_LANE_SWAP
static inline __attribute__((always_inline)) vf vf_load_ls(const void *p, nkl_dtype dt) {
  return dt == NKL_BF16 ? vf_load_bf16_ls((const uint16_t *)p) : vf_lane_swap(vf_load(p, dt));
}
#else
static inline vf vf_lane_swap(vf a) { return a; }
static inline __attribute__((always_inline)) vf vf_load_ls(const void *p, nkl_dtype dt) {
  return vf_load(p, dt);
}
#endif
/* vf_load_ls when ls, else vf_load. */
static inline __attribute__((always_inline)) vf vf_load_as(const void *p, nkl_dtype dt, int ls) {
  return ls ? vf_load_ls(p, dt) : vf_load(p, dt);
}

static inline __attribute__((always_inline)) void vf_store(void *p, nkl_dtype dt, vf a) {
  switch (dt) {
    case NKL_F16: vf_store_f16((uint16_t *)p, a); break;
    case NKL_BF16: vf_store_bf16((uint16_t *)p, a); break;
    case NKL_FP8_E4M3: vf_store_fp8((uint8_t *)p, a); break;
    default: vf_store_f32((float *)p, a); break;
  }
}

/* vf_store that may leave some lanes wrong, returning nonzero if it did; the caller stores
 * them again with vf_store. With vcvtneps2bf16 (avx512bf16) bf16 lanes that are subnormal in
 * f32 come out as zero, and vf_store_bf16 tests for them and fixes them up on every vector. A
 * caller that ORs the results over a whole row and redoes the row when it is nonzero (never,
 * in practice) saves that test and branch per vector: AvgPool1d 4/2 on bf16 rows, warm, -6%.
 * Elsewhere this is vf_store, returning 0. */
static inline __attribute__((always_inline)) unsigned vf_store_fast(void *p, nkl_dtype dt, vf a) {
#ifdef VF_HAVE_STORE_BF16_FAST
  if (dt == NKL_BF16) return vf_store_bf16_fast((uint16_t *)p, a);
#endif
  vf_store(p, dt, a);
  return 0;
}

/* Non-temporal store of a full vector; p must be aligned to 16 elements' bytes (f32: 64,
 * f16/bf16: 32). fp8 falls back to a plain store. Call vf_stream_fence() after the last. */
static inline __attribute__((always_inline)) void vf_stream(void *p, nkl_dtype dt, vf a) {
  switch (dt) {
    case NKL_F16: vf_stream_f16((uint16_t *)p, a); break;
    case NKL_BF16: vf_stream_bf16((uint16_t *)p, a); break;
    case NKL_FP8_E4M3: vf_store_fp8((uint8_t *)p, a); break;
    default: vf_stream_f32((float *)p, a); break;
  }
}

/* vf_store and vf_stream of a vector known to hold no NaN lane: where rounding to bf16 is
 * done with integer operations (AVX2), the NaN test and blend are left out. A caller proves
 * a row NaN-free from its statistics (see rownorm_kernels.inc). vf_nonnan_helps(dt): there
 * is something to gain (a compile-time constant after inlining). */
static inline int vf_nonnan_helps(nkl_dtype dt) {
#ifdef VF_HAVE_BF16_NONNAN
  return dt == NKL_BF16;
#else
  (void)dt;
  return 0;
#endif
}
static inline __attribute__((always_inline)) void vf_store_nonnan(void *p, nkl_dtype dt, vf a) {
#ifdef VF_HAVE_BF16_NONNAN
  if (dt == NKL_BF16) {
    vf_store_bf16_nonnan((uint16_t *)p, a);
    return;
  }
#endif
  vf_store(p, dt, a);
}
static inline __attribute__((always_inline)) void vf_stream_nonnan(void *p, nkl_dtype dt, vf a) {
#ifdef VF_HAVE_BF16_NONNAN
  if (dt == NKL_BF16) {
    vf_stream_bf16_nonnan((uint16_t *)p, a);
    return;
  }
#endif
  vf_stream(p, dt, a);
}

static inline size_t vf_esize(nkl_dtype dt) {
  return dt == NKL_F32 ? 4 : dt == NKL_FP8_E4M3 ? 1 : 2;
}

/* Element i of a row of dtype dt. */
static inline const void *vf_at(const void *p, nkl_dtype dt, int64_t i) {
  return (const char *)p + i * (int64_t)vf_esize(dt);
}
static inline void *vf_at_mut(void *p, nkl_dtype dt, int64_t i) {
  return (char *)p + i * (int64_t)vf_esize(dt);
}

/* Phase r of the s-way split of p[0 .. 16 s) of dtype dt, as f32 (lane i is p[s i + r];
 * see vf_phase): f32 through vf_load_phase_f32, others converted then split (bf16 with s = 2
 * by the shim's one-load split where it has one). */
static inline __attribute__((always_inline)) vf vf_load_phase(const void *p, nkl_dtype dt, int s,
                                                              int r) {
  if (dt == NKL_F32) return vf_load_phase_f32((const float *)p, s, r);
#ifdef VF_HAVE_PHASE2_BF16
  if (dt == NKL_BF16 && s == 2) return vf_phase2_bf16((const uint16_t *)p, r);
#endif
  const vf a = vf_load(p, dt);
  return vf_phase(a, s > 1 ? vf_load(vf_at(p, dt, VF_LANES), dt) : a,
                  s > 2 ? vf_load(vf_at(p, dt, 2 * VF_LANES), dt) : a,
                  s > 3 ? vf_load(vf_at(p, dt, 3 * VF_LANES), dt) : a, s, r);
}

/* Software prefetch for streaming reads. On two cores the hardware prefetchers keep too few
 * DRAM reads in flight to reach the bandwidth plateau: a 2-thread read of a 128 MiB buffer
 * ran at 33-37 GB/s without and 46-48 GB/s with a prefetch 2-8 KiB ahead of the loads, and
 * RMSNorm [2048, 4096] bf16 gained 15-20% with 8 KiB (Zen 5, measured A/B in one process).
 * vf_prefetch_ahead(p, dt, i) is called once per vector at element i of a row at p; it
 * prefetches the line VF_PREFETCH_BYTES ahead once per 64 bytes of elements (every vector
 * for f32, every other one for f16/bf16). Prefetches never fault, so running past the end
 * of the buffer is harmless. */
#define VF_PREFETCH_BYTES 8192
/* The hint depends on the vendor (nkl__tune_intel, a branch that always goes the same way).
 * Intel: "into L2" (prefetcht2), as the data is read a few KiB later and an L2 prefetch
 * does not wait on the core's few L1 miss buffers; on a Xeon guest (Sapphire Rapids class),
 * nkl bench cold, L1Norm/L2Norm [2048, 4096] went from 77% to 91% of the triad and RMSNorm
 * [2048, 8192] from 80% to 90% against prefetcht0. Elsewhere "into L1" (prefetcht0): on the
 * Zen 4 guest of sessions 1-9, the quantized norms' next-row prefetch to L2 was as slow as
 * none (0.82 -> 1.02 ms, docs/ops-norm.md). */
extern int nkl__tune_intel;
#define VF_PREFETCH(p) \
  (nkl__tune_intel ? __builtin_prefetch((p), 0, 1) : __builtin_prefetch((p), 0, 3))
/* True for the vectors that start a new 64-byte line of a row (element i, 16 lanes). */
static inline __attribute__((always_inline)) int vf_starts_line(nkl_dtype dt, int64_t i) {
  return ((i * (int64_t)vf_esize(dt)) & 63) < (int64_t)(VF_LANES * vf_esize(dt));
}
static inline __attribute__((always_inline)) void vf_prefetch_ahead(const void *p, nkl_dtype dt,
                                                                    int64_t i) {
  if (vf_starts_line(dt, i)) VF_PREFETCH((const char *)vf_at(p, dt, i) + VF_PREFETCH_BYTES);
}
/* vf_prefetch_ahead for a pass that reads several consecutive rows of n elements side by
 * side: past the end of its row the stream goes on, the same distance ahead, into the row
 * that takes its place in the next group, wrap elements further (+(R-1) n for the next group
 * of R rows, -(R+1) n for the previous one). Running on into row k + 1, which the group is
 * already reading, leaves the next group's first lines to demand misses. The address is
 * formed in uintptr_t: past either end of the buffer, a prefetch never faults. */
static inline __attribute__((always_inline)) void vf_prefetch_ahead_rows(const void *p,
                                                                         nkl_dtype dt, int64_t i,
                                                                         int64_t n, int64_t wrap) {
  if (!vf_starts_line(dt, i)) return;
  const int64_t es = (int64_t)vf_esize(dt);
  int64_t t = i + VF_PREFETCH_BYTES / es;
  if (t >= n) t += wrap;
  VF_PREFETCH((const void *)((uintptr_t)p + (uintptr_t)(t * es)));
}
/* The same for the line at element i itself (a row about to be read). */
static inline __attribute__((always_inline)) void vf_prefetch_at(const void *p, nkl_dtype dt,
                                                                 int64_t i) {
  if (vf_starts_line(dt, i)) VF_PREFETCH(vf_at(p, dt, i));
}

/* A share of another row's lines, spread over a pass of this row: at element i (a multiple
 * of 16) of the pass, the line holding element base + i * num / den of the row at p, once
 * per line (16 num / den must be a whole number of elements <= 64 bytes). A kernel whose
 * later passes run from cache uses it to stream the next row in while it computes, instead
 * of leaving DRAM idle until the next row's first pass. */
static inline __attribute__((always_inline)) void vf_prefetch_share(const void *p, nkl_dtype dt,
                                                                    int64_t base, int64_t i,
                                                                    int num, int den) {
  const int64_t es = (int64_t)vf_esize(dt), j = base + i * num / den;
  if (((j * es) & 63) < VF_LANES * num / den * es) VF_PREFETCH((const char *)p + j * es);
}

#ifndef VF_HAVE_E4M3_X4
/* Portable forms of what vec_avx512.h and vec_avx2.h do faster (same results). Four
 * vectors' e4m3 codes at p, p + 16, p + 32, p + 48 (nt: streamed, p 64-byte aligned): */
static inline void vf_store_e4m3_finite_x4(uint8_t *p, const vf *y, int ls, int nt) {
  (void)ls; /* vf_lane_swap is the identity here */
  _Alignas(64) uint8_t t[64];
  uint8_t *d = nt ? t : p;
  for (int j = 0; j < 4; j++) vf_store_e4m3_finite(d + 16 * j, y[j]);
  if (nt) vf_stream_line(p, t);
}
/* The division-free encoder of y / s (see vec_avx512.h) has no portable form: always the
 * exact path. */
static inline int vf_store_e4m3_quot_x4(uint8_t *p, const vf *y, vf rv, int ls, int nt) {
  (void)p, (void)y, (void)rv, (void)ls, (void)nt;
  return 0;
}
#endif
#ifndef VF_HAVE_REDUCE16
/* Lane p: vf_reduce_add(v[p]) (resp. vf_reduce_max_nan(v[p])). */
static inline vf vf_reduce_add16(const vf *v) {
  float t[VF_LANES];
  for (int p = 0; p < VF_LANES; p++) t[p] = vf_reduce_add(v[p]);
  return vf_load_f32(t);
}
static inline vf vf_reduce_max_nan16(const vf *v) {
  float t[VF_LANES];
  for (int p = 0; p < VF_LANES; p++) t[p] = vf_reduce_max_nan(v[p]);
  return vf_load_f32(t);
}
#endif

#ifndef VF_HAVE_COMPRESS_LANES4
/* vf_compress_lanes over lanes base .. base + 63, mask q for lanes 16 q .. 16 q + 15. */
static inline int vf_compress_lanes4(int32_t *dst, int32_t base, uint32_t m0, uint32_t m1,
                                     uint32_t m2, uint32_t m3) {
  int n = vf_compress_lanes(dst, base, m0);
  n += vf_compress_lanes(dst + n, base + 16, m1);
  n += vf_compress_lanes(dst + n, base + 32, m2);
  return n + vf_compress_lanes(dst + n, base + 48, m3);
}
#endif

#ifndef VF_HAVE_EXCLUSIVE_SCAN
/* p[0..n) -> its exclusive prefix sums (mod 2^32); returns the total. */
static inline uint32_t vu_exclusive_scan(uint32_t *p, int64_t n) {
  uint32_t sum = 0;
  for (int64_t i = 0; i < n; i++) {
    const uint32_t c = p[i];
    p[i] = sum;
    sum += c;
  }
  return sum;
}
#endif

/* Row sums with four accumulators: vector j of a row (elements [16 j, 16 j + 16), the tail
 * vector included) adds into acc[j % 4], and the sum is (acc[0] + acc[1]) + (acc[2] +
 * acc[3]) before the lane tree of vf_reduce_add. One accumulator is a chain of dependent
 * adds, one add latency per vector; four chains let the loads and adds of a stats pass run
 * at their throughput (in cache, LayerNorm's two stats passes took 2x longer with one).
 * VF_SUM4(acc, nv, i, TERM) adds TERM, an expression of the element offset i, for the full
 * vectors i = 0, 16, ..., nv - 16; vf_acc4_slot(nv) is the accumulator of the tail vector
 * at nv. The inner loop has a constant trip count, so acc[] lives in registers. */
#define VF_SUM4(acc, nv, i, TERM)                                    \
  for (int64_t i##_blk = 0; i##_blk < (nv); i##_blk += 4 * VF_LANES) \
    for (int i##_k = 0; i##_k < 4; i##_k++) {                        \
      const int64_t i = i##_blk + i##_k * VF_LANES;                  \
      if (i < (nv)) (acc)[i##_k] = vf_add((acc)[i##_k], TERM);       \
    }
static inline int vf_acc4_slot(int64_t nv) { return (int)((nv / VF_LANES) % 4); }
static inline float vf_acc4_reduce(const vf *acc) {
  return vf_reduce_add(vf_add(vf_add(acc[0], acc[1]), vf_add(acc[2], acc[3])));
}
/* The same for accumulators of lane-swapped vectors (ls, vf_load_ls): the lane-wise sums are
 * swapped back before the lane tree, so the result is vf_acc4_reduce's of in-order loads. */
static inline float vf_acc4_reduce_ls(const vf *acc, int ls) {
  const vf s = vf_add(vf_add(acc[0], acc[1]), vf_add(acc[2], acc[3]));
  return vf_reduce_add(ls ? vf_lane_swap(s) : s);
}

/* Partial vectors go through a 64-byte aligned buffer: vf_bytes_in(buf, src, bytes) sets
 * buf to src[0 .. bytes) and zeros, vf_bytes_out(dst, buf, bytes) copies buf[0 .. bytes) to
 * dst (bytes <= 64). The AVX-512 shim does each with one masked load and one store
 * (VF_HAVE_BYTES_N); here, memset and memcpy. */
#ifndef VF_HAVE_BYTES_N
static inline void vf_bytes_in(unsigned char *buf, const void *src, size_t bytes) {
  memset(buf, 0, 64);
  memcpy(buf, src, bytes);
}
static inline void vf_bytes_out(void *dst, const unsigned char *buf, size_t bytes) {
  memcpy(dst, buf, bytes);
}
#endif

/* The first n (< 16) lanes from p, the rest zero; and the first n lanes of a stored to p. */
static inline __attribute__((always_inline)) vf vf_load_n(const void *p, nkl_dtype dt, int64_t n) {
  _Alignas(64) unsigned char buf[64];
  vf_bytes_in(buf, p, (size_t)n * vf_esize(dt));
  return vf_load(buf, dt);
}
static inline __attribute__((always_inline)) void vf_store_n(void *p, nkl_dtype dt, vf a,
                                                             int64_t n) {
  _Alignas(64) unsigned char buf[64];
  vf_store(buf, dt, a);
  vf_bytes_out(p, buf, (size_t)n * vf_esize(dt));
}

/* Portable helpers over the shims' 16-bit order keys (vh, and key lanes in a vf; see
 * nkl__key16). */
#ifndef VF_HAVE_LOAD_PHASE_K16
/* Phase r of the s-way split of the keys p[0 .. 16 s), sign-extended. */
static inline __attribute__((always_inline)) vf vf_load_phase_k16(const int16_t *p, int s, int r) {
  if (s == 2) return vf_phase2_k16(p, r);
  const vf a = vf_load_k16(p);
  return vf_phase(a, s > 1 ? vf_load_k16(p + VF_LANES) : a,
                  s > 2 ? vf_load_k16(p + 2 * VF_LANES) : a,
                  s > 3 ? vf_load_k16(p + 3 * VF_LANES) : a, s, r);
}
#endif
/* Keys p[0], p[s], ..., p[15 s], sign-extended. */
static inline vf vf_load_strided_k16(const int16_t *p, int64_t s) {
  _Alignas(64) int16_t t[VF_LANES];
  for (int i = 0; i < VF_LANES; i++) t[i] = p[i * s];
  return vf_load_k16(t);
}
/* The first n (<= 32) 16-bit lanes at p, the others zero. */
static inline vh vh_load_n(const void *p, int64_t n) {
  _Alignas(64) unsigned char buf[64];
  vf_bytes_in(buf, p, (size_t)n * 2);
  return vh_load(buf);
}
#ifndef VH_HAVE_STORE_N
/* The first n (<= 32) 16-bit lanes of a stored to p. */
static inline void vh_store_n(void *p, vh a, int64_t n) {
  _Alignas(64) unsigned char buf[64];
  vh_store(buf, a);
  vf_bytes_out(p, buf, (size_t)n * 2);
}
#endif
/* The first n (<= 16) lanes of vf_store_unkey16. */
static inline void vf_store_unkey16_n(uint16_t *p, vf a, int c, int64_t n) {
  _Alignas(64) unsigned char buf[64];
  vf_store_unkey16((uint16_t *)buf, a, c);
  vf_bytes_out(p, buf, (size_t)n * 2);
}

#endif
