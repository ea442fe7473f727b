/* The workload catalog (bench/workloads/<family>.txt) and workload selection. */
#ifndef NKL_TOOL_CATALOG_H
#define NKL_TOOL_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

typedef struct workload {
  char family[8];
  char op[48];
  char id[16];
  char dtype[12];
  char label[64];
  char descriptor[320];
} workload;

typedef struct catalog {
  workload *items;
  int count;
  char dir[512];
} catalog;

/* Loads every family file. Returns 0, or -1 with a message naming file and line. */
int catalog_load(catalog *c, char *err, size_t errlen);
void catalog_free(catalog *c);
/* Family of an op ("" if the op is not in the catalog). */
const char *catalog_family(const catalog *c, const char *op);

/* Selection shared by list/check/bench: --op, --family, --id (W8 or Op:W8), --desc. */
typedef struct selection {
  const char *op, *family, *id, *desc;
} selection;

/* Fills out (allocated, caller frees) with the selected workloads. A --desc selection is
 * one ad-hoc workload with id "desc". Returns the count, or -1 with a message (unknown op or
 * family, malformed descriptor, nothing matched). */
int catalog_select(const catalog *c, const selection *s, workload **out, char *err, size_t el);

#endif
