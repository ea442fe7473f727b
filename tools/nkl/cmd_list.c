/* nkl list: the workload catalog, as text or JSON. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter.h"
#include "cli.h"

static const char kHelp[] =
    "usage: nkl list [--op OP] [--family F] [--id W] [--json]\n"
    "  Lists the catalog's workloads: op, id, family, dtype, label and descriptor.\n"
    "  --json prints a JSON array of objects with those keys plus 'implemented'.\n";

int cmd_list(int argc, char **argv) {
  cli_opts o;
  if (cli_parse(argc, argv, 2, "list", "op family id json", &o) < 0) return EXIT_USAGE;
  if (o.help) {
    fputs(kHelp, stdout);
    return 0;
  }
  catalog c;
  char err[300];
  if (catalog_load(&c, err, sizeof err) < 0) {
    fprintf(stderr, "nkl list: %s\n", err);
    return EXIT_USAGE;
  }
  workload *w;
  const int n = catalog_select(&c, &o.sel, &w, err, sizeof err);
  if (n < 0) {
    fprintf(stderr, "nkl list: %s\n", err);
    catalog_free(&c);
    return EXIT_USAGE;
  }
  if (o.json_flag) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
      cJSON *obj = cJSON_CreateObject();
      cJSON_AddStringToObject(obj, "op", w[i].op);
      cJSON_AddStringToObject(obj, "id", w[i].id);
      cJSON_AddStringToObject(obj, "family", w[i].family);
      cJSON_AddStringToObject(obj, "dtype", w[i].dtype);
      cJSON_AddStringToObject(obj, "label", w[i].label);
      cJSON_AddStringToObject(obj, "descriptor", w[i].descriptor);
      cJSON_AddBoolToObject(obj, "implemented", adapter_find(w[i].op) != NULL);
      cJSON_AddItemToArray(arr, obj);
    }
    char *s = cJSON_Print(arr);
    puts(s);
    free(s);
    cJSON_Delete(arr);
  } else {
    for (int i = 0; i < n; i++)
      printf("%-26s %-4s %-6s %-8s %s\n", w[i].op, w[i].id, w[i].family, w[i].dtype,
             w[i].descriptor);
  }
  free(w);
  catalog_free(&c);
  return 0;
}
