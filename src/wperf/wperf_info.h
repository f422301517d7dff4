/* wperf's informational commands (src/wperf/wperf_info.c). Each returns the exit status, or
 * -1 with err_set() for a usage error. */
#ifndef LPERF_WPERF_WPERF_INFO_H
#define LPERF_WPERF_WPERF_INFO_H

#include "wperf/wperf.h"

int wperf_version(const struct wperf_args *a);
int wperf_list(const struct wperf_args *a);
int wperf_test(const struct wperf_args *a);
int wperf_detect(const struct wperf_args *a);

#endif
