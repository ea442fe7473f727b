/* libnkl.so unloaded (dlclose) while a thread that called it is still alive: the thread
 * then exits without running code of the unloaded library (the per-thread scratch's key
 * is deleted when the library goes; src/core/scratch.c). Before, the key's destructor was
 * called at the thread's exit from unmapped memory: a segmentation fault. The buffer of
 * such a thread is knowingly not freed (CMakeLists.txt turns LeakSanitizer off here). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "nkl.h"
#include "testutil.h"

#ifndef NKL_SHARED_PATH
#error "NKL_SHARED_PATH: the path of libnkl.so, set by CMakeLists.txt"
#endif

typedef nkl_status (*l2_fn)(const nkl_tensor *, const int *, int, nkl_tensor *);

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_stage; /* 1: the thread has called nkl; 2: the library is unloaded */
static void *g_lib;
static nkl_status g_status = NKL_ERR_INTERNAL;
static float g_y[300];

static void set_stage(int s) {
  pthread_mutex_lock(&g_mu);
  g_stage = s;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
}
static void wait_stage(int s) {
  pthread_mutex_lock(&g_mu);
  while (g_stage < s) pthread_cond_wait(&g_cv, &g_mu);
  pthread_mutex_unlock(&g_mu);
}

static void *caller(void *arg) {
  (void)arg;
  /* an op that takes the calling thread's scratch: L2 norm over dims {0, 2} */
  static float x[8 * 300 * 7];
  for (int i = 0; i < 8 * 300 * 7; i++) x[i] = 1.0f;
  const int64_t s[3] = {8, 300, 7}, ys[1] = {300};
  const int dims[2] = {0, 2};
  /* nkl_tensor_make of the static library the test links: it only fills the struct */
  nkl_tensor tx = nkl_tensor_make(NKL_F32, 3, s, x), ty = nkl_tensor_make(NKL_F32, 1, ys, g_y);
  const l2_fn l2 = (l2_fn)dlsym(g_lib, "nkl_l2norm_fwd");
  if (l2) g_status = l2(&tx, dims, 2, &ty);
  set_stage(1);
  wait_stage(2);
  return NULL; /* the thread's exit runs its TLS destructors */
}

static void test_thread_outlives_library(void) {
  g_lib = dlopen(NKL_SHARED_PATH, RTLD_NOW | RTLD_LOCAL);
  CHECK(g_lib != NULL, "dlopen %s: %s", NKL_SHARED_PATH, dlerror());
  if (!g_lib) return;
  pthread_t t;
  CHECK(pthread_create(&t, NULL, caller, NULL) == 0, "pthread_create");
  wait_stage(1);
  CHECK(g_status == NKL_OK, "l2norm through dlsym: status %d", (int)g_status);
  CHECK(g_y[0] > 7.48f && g_y[0] < 7.49f, "y[0] = %g, expected sqrt(56)", g_y[0]);
  CHECK(dlclose(g_lib) == 0, "dlclose: %s", dlerror());
  set_stage(2);
  pthread_join(t, NULL); /* crashed here before the fix */
}

int main(void) {
  tu_run("thread_outlives_library", test_thread_outlives_library);
  return tu_summary();
}
