/* Renderers of lperf version: one line, WindowsPerf's Component/Version/GitVer/FeatureString
 * table, or its "Version" JSON. */
#ifndef LPERF_OUTPUT_VERSION_OUT_H
#define LPERF_OUTPUT_VERSION_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "sysinfo/sysinfo.h"

/* "lperf VERSION (GITREV) FEATURES": c[0] is lperf's row. */
void version_print_line(FILE *f, const struct sysinfo_component *c);
void version_print_table(FILE *f, const struct sysinfo_component *c, size_t n);
void version_print_json(FILE *f, const struct sysinfo_component *c, size_t n);

/* perf version --build-options: "%22s: [ on  ]  # MACRO" rows after the version line. */
void version_print_build_options(FILE *f, const struct sysinfo_component *c);

#endif
