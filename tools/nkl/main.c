/* nkl: list, check and benchmark the catalog of workloads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nkl.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: nkl <command> [options]\n"
          "\n"
          "commands:\n"
          "  list    the workload catalog (--op, --family, --json)\n"
          "  check   run nkl on workloads and compare with the double-precision oracle\n"
          "  bench   time nkl on workloads (cold cache by default)\n"
          "  info    CPU, ISA in use, threads, catalog location\n"
          "  calibrate  measure the machine's ceilings (bandwidth, compute peaks) as JSON\n"
          "  report  turn bench results JSON into report/index.html, report.md\n"
          "\n"
          "Workloads are selected with --op OP, --family F, --id W (or --id OP:W) or named\n"
          "directly with --desc \"DESCRIPTOR\" (docs/descriptors.md).\n"
          "'nkl <command> --help' describes each command. Environment: NKL_MAX_ISA caps the\n"
          "ISA (scalar|avx2|avx512|avx512bf16), NKL_VERBOSE=1 names each kernel run.\n");
}

static int cmd_info(int argc, char **argv) {
  cli_opts o;
  if (cli_parse(argc, argv, 2, "info", "", &o) < 0) return EXIT_USAGE;
  if (o.help) {
    printf(
        "usage: nkl info\n  Prints the CPU's ISA level, the one in use, threads and the "
        "catalog.\n");
    return 0;
  }
  catalog c;
  char err[300];
  const int ok = catalog_load(&c, err, sizeof err) == 0;
  printf("nkl %d.%d.%d\n", NKL_VERSION_MAJOR, NKL_VERSION_MINOR, NKL_VERSION_PATCH);
  printf("isa: cpu %s, active %s\n", nkl_isa_name(nkl_cpu_isa()), nkl_isa_name(nkl_active_isa()));
  printf("threads: %d\n", nkl_get_num_threads());
  printf("catalog: %s (%s)\n", ok ? c.dir : err, ok ? "ok" : "error");
  if (ok) catalog_free(&c);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? EXIT_USAGE : 0;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "list") == 0) return cmd_list(argc, argv);
  if (strcmp(cmd, "check") == 0) return cmd_check(argc, argv);
  if (strcmp(cmd, "bench") == 0) return cmd_bench(argc, argv);
  if (strcmp(cmd, "info") == 0) return cmd_info(argc, argv);
  if (strcmp(cmd, "calibrate") == 0) return cmd_calibrate(argc, argv);
  if (strcmp(cmd, "report") == 0) return cmd_report(argc, argv);
  fprintf(stderr, "nkl: unknown command '%s' (try nkl --help)\n", cmd);
  return EXIT_USAGE;
}
