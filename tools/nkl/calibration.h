/* The calibration file written by `nkl calibrate` and read by `nkl bench` (SOL, bound). */
#ifndef NKL_TOOL_CALIBRATION_H
#define NKL_TOOL_CALIBRATION_H

#include <stdbool.h>

#define CALIBRATION_DEFAULT "build/calibration.json"

typedef struct calibration {
  bool ok;
  double bandwidth_gbps; /* DRAM, STREAM triad */
  double f32_gflops, bf16_gflops, int8_gops; /* 0 when not measured */
  char path[512];
} calibration;

/* Reads path (NULL: the default). Returns 0, or -1 with c->ok false. */
int calibration_load(const char *path, calibration *c);

#endif
