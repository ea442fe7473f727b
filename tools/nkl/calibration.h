/* The calibration file written by `nkl calibrate` and read by `nkl bench` (SOL, bound). */
#ifndef NKL_TOOL_CALIBRATION_H
#define NKL_TOOL_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>

#define CALIBRATION_DEFAULT "build/calibration.json"

typedef struct calibration {
  bool ok;
  double bandwidth_gbps;                     /* DRAM, STREAM triad */
  double f32_gflops, bf16_gflops, int8_gops; /* 0 when not measured */
  char path[512];
} calibration;

/* Reads path (NULL: the default). Returns 0, or -1 with c->ok false. */
int calibration_load(const char *path, calibration *c);

/* STREAM triad a = b + s*c over three arrays of n doubles with `threads` threads: the GB/s
 * of each of `passes` passes into runs (24 bytes per element), returns the best. 0 if the
 * arrays cannot be allocated. */
double calibration_triad_gbps(size_t n, int threads, int passes, double *runs);

/* The same over three arrays kept from call to call (allocated and written on the first
 * call, freed by calibration_triad_release), so that a triad taken often costs only its
 * passes. */
double calibration_triad_kept(size_t n, int threads, int passes, double *runs);
void calibration_triad_release(void);

#endif
