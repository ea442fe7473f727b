/* nkl report RESULTS.json -o DIR: runs tools/report/report.py (Python 3, standard library
 * only) to write DIR/index.html, DIR/report.md and DIR/results.json. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char kHelp[] =
    "usage: nkl report RESULTS.json [MORE.json ...] [-o DIR]\n"
    "  Writes DIR/index.html (self-contained page: summary, roofline, one table per op),\n"
    "  DIR/report.md and DIR/results.json from the JSON of nkl bench --json (default DIR:\n"
    "  report). Several results files (e.g. runs of subsets) are merged in catalog order.\n"
    "  Needs python3 (standard library only). docs/report.md describes the page.\n";

int cmd_report(int argc, char **argv) {
  const char *in[64], *out = "report";
  int nin = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(kHelp, stdout);
      return 0;
    }
    if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--out") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "nkl report: %s needs a directory\n", argv[i]);
        return EXIT_USAGE;
      }
      out = argv[++i];
    } else if (argv[i][0] == '-' || nin == 64) {
      fprintf(stderr, "nkl report: unexpected argument '%s' (try nkl report --help)\n", argv[i]);
      return EXIT_USAGE;
    } else {
      in[nin++] = argv[i];
    }
  }
  if (nin == 0) {
    fprintf(stderr, "nkl report: needs RESULTS.json (try nkl report --help)\n");
    return EXIT_USAGE;
  }
  char script[PATH_MAX];
  const char *env = getenv("NKL_REPORT_SCRIPT");
  snprintf(script, sizeof script, "%s",
           env && *env ? env : NKL_SOURCE_DIR "/tools/report/report.py");
  if (access(script, R_OK) != 0) {
    fprintf(stderr, "nkl report: cannot find %s\n", script);
    return EXIT_USAGE;
  }
  const char *py = getenv("NKL_PYTHON");
  if (!py || !*py) py = "python3";
  char *args[64 + 5];
  int k = 0;
  args[k++] = (char *)py;
  args[k++] = script;
  for (int i = 0; i < nin; i++) args[k++] = (char *)in[i];
  args[k++] = (char *)"-o";
  args[k++] = (char *)out;
  args[k] = NULL;
  execvp(py, args);
  fprintf(stderr, "nkl report: cannot run %s\n", py);
  return EXIT_FAILED;
}
