/* The nkl command: shared option parsing and the subcommands. */
#ifndef NKL_TOOL_CLI_H
#define NKL_TOOL_CLI_H

#include <stdbool.h>

#include "catalog.h"
#include "timing.h"

typedef struct cli_opts {
  selection sel;
  const char *json; /* bench: --json FILE; list: --json (flag) */
  bool json_flag;
  bool warm;
  int threads; /* 0: default */
  int samples, warmup;
  bool help;
} cli_opts;

/* Parses argv[first..]. Returns 0, or -1 after printing a one-line error. `allowed` lists
 * the options this subcommand takes, e.g. "op family id desc json threads". */
int cli_parse(int argc, char **argv, int first, const char *cmd, const char *allowed, cli_opts *o);

int cmd_list(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Exit statuses: 0 success, 1 a workload failed, 2 usage or input error. */
enum { EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* A new JSON document {"schema": 1, "date": now in UTC, ISO 8601}: the head of the files
 * nkl calibrate and nkl bench write. */
struct cJSON;
struct cJSON *json_doc_new(void);

#endif
