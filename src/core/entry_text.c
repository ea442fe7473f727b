/* The prefetch of the entry path's code for cold calls (see internal.h, NKL_ENTRY_TEXT). */
#include "internal.h"

#if defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
/* Defined by the linker for the section NKL_ENTRY_TEXT names. */
extern const char __start_nkl_entry_text[], __stop_nkl_entry_text[];
extern const char __start_nkl_entry_data[], __stop_nkl_entry_data[];

/* The sections into L2 (prefetcht1): the instruction fetch finds the lines there. When
 * the code is warm the loop costs about one cycle per line. */
static void prefetch_sections(void) {
  for (const char *p = __start_nkl_entry_text; p < __stop_nkl_entry_text; p += 64)
    __builtin_prefetch(p, 0, 2);
  for (const char *p = __start_nkl_entry_data; p < __stop_nkl_entry_data; p += 64)
    __builtin_prefetch(p);
}
#else
static void prefetch_sections(void) {}
#endif

NKL_ENTRY_TEXT void nkl__prefetch_entry(const nkl_tensor *const *t, int n) {
  prefetch_sections();
  for (int i = 0; i < n; i++)
    if (t[i])
      for (size_t b = 0; b < sizeof(nkl_tensor); b += 64)
        __builtin_prefetch((const char *)t[i] + b);
}

NKL_ENTRY_TEXT void nkl__prefetch_bytes(const void *p, size_t bytes) {
  for (size_t b = 0; b < bytes; b += 64) __builtin_prefetch((const char *)p + b);
}
