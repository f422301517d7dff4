/* The NUMA_TOPOLOGY feature in perf's layout (util/header.c's write_numa_topology): u32 count,
 * then per node u32 node, u64 total and free memory in kB, and its CPU list as a string. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/perfdata_int.h"
#include "util/cpuset.h"
#include "util/fileio.h"

static uint64_t meminfo_kb(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

void perfdata_numa_feature(struct strbuf *sb)
{
	char *online = sysfs_read("devices/system/node/online");
	struct cpuset nodes = { 0 };
	if (online)
		online[strcspn(online, "\n")] = 0;
	if (!online || cpuset_parse(online, &nodes) != 0 || !nodes.n) {
		long on = sysconf(_SC_NPROCESSORS_ONLN);
		char cpus[32];
		snprintf(cpus, sizeof(cpus), "0-%ld", on > 1 ? on - 1 : 0);
		fput32(sb, 1);
		fput32(sb, 0);
		fput64(sb, 0);
		fput64(sb, 0);
		fput_string(sb, on > 1 ? cpus : "0");
		free(online);
		cpuset_free(&nodes);
		return;
	}
	fput32(sb, (uint32_t)nodes.n);
	for (size_t i = 0; i < nodes.n; i++) {
		char rel[96];
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/meminfo", nodes.cpu[i]);
		char *mem = sysfs_read(rel);
		snprintf(rel, sizeof(rel), "devices/system/node/node%d/cpulist", nodes.cpu[i]);
		char *cpus = sysfs_read(rel);
		if (cpus)
			cpus[strcspn(cpus, "\n")] = 0;
		fput32(sb, (uint32_t)nodes.cpu[i]);
		fput64(sb, meminfo_kb(mem, "MemTotal:"));
		fput64(sb, meminfo_kb(mem, "MemFree:"));
		fput_string(sb, cpus ? cpus : "");
		free(mem);
		free(cpus);
	}
	free(online);
	cpuset_free(&nodes);
}
