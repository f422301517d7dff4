#include "wperf/wperf.h"
int wperf_man(const struct wperf_args *a) { (void)a; return 0; }
int cmd_man(int argc, char **argv) { (void)argc; (void)argv; return 0; }
