/* A minimal test runner: TEST functions registered in main(), CHECK records a failure and
 * the run ends with the summary line "N passed, M failed". */
#ifndef NKL_TESTUTIL_H
#define NKL_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>

#include "nkl.h"
#include "oracle/oracle.h"

void tu_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Runs one named test; it fails if any CHECK in it failed. */
void tu_run(const char *name, void (*fn)(void));
/* Prints "N passed, M failed" and returns the process exit status. */
int tu_summary(void);

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) tu_fail(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)
#define CHECK_STATUS(call, expected)                                                              \
  do {                                                                                            \
    nkl_status s_ = (call);                                                                       \
    if (s_ != (expected))                                                                         \
      tu_fail(__FILE__, __LINE__, "%s returned %s (%s), expected %s", #call, nkl_status_name(s_), \
              nkl_last_error(), nkl_status_name(expected));                                       \
  } while (0)

/* The ISAs this CPU can run, lowest first (the list tests loop over). */
int tu_isas(nkl_isa *out);
/* Heap buffer with guard bytes on both sides; tu_guard_ok checks they are untouched. */
void *tu_alloc(size_t bytes);
bool tu_guard_ok(const void *p);
void tu_free(void *p);

#endif
