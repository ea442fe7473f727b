#include "calibration.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

int calibration_load(const char *path, calibration *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->path, sizeof c->path, "%s", path ? path : CALIBRATION_DEFAULT);
  FILE *f = fopen(c->path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  buf[n] = '\0';
  cJSON *doc = cJSON_Parse(buf);
  free(buf);
  if (!doc) return -1;
  c->bandwidth_gbps = num(cJSON_GetObjectItem(doc, "memory"), "bandwidth_gbps");
  const cJSON *p = cJSON_GetObjectItem(doc, "peaks");
  c->f32_gflops = num(p, "f32_gflops");
  c->bf16_gflops = num(p, "bf16_gflops");
  c->int8_gops = num(p, "int8_gops");
  cJSON_Delete(doc);
  c->ok = c->bandwidth_gbps > 0 && c->f32_gflops > 0;
  return c->ok ? 0 : -1;
}
