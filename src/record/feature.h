/* perf's feature numbers (HEADER_*): the bits of a perf.data header's feature bitmap, and the
 * `feat` field of the HEADER_FEATURE records that carry the same sections in pipe mode. They live
 * with the record format because swapping a HEADER_FEATURE record needs them. */
#ifndef LPERF_RECORD_FEATURE_H
#define LPERF_RECORD_FEATURE_H

/* Feature bits (perf's HEADER_*). */
enum perfdata_feature {
	FEAT_TRACING_DATA = 1, FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5, FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CPUDESC = 8, FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10, FEAT_CMDLINE = 11, FEAT_EVENT_DESC = 12, FEAT_CPU_TOPOLOGY = 13,
	FEAT_NUMA_TOPOLOGY = 14, FEAT_BRANCH_STACK = 15, FEAT_PMU_MAPPINGS = 16, FEAT_GROUP_DESC = 17,
	FEAT_AUXTRACE = 18, FEAT_STAT = 19, FEAT_CACHE = 20, FEAT_SAMPLE_TIME = 21,
	FEAT_MEM_TOPOLOGY = 22, FEAT_CLOCKID = 23, FEAT_DIR_FORMAT = 24, FEAT_BPF_PROG_INFO = 25,
	FEAT_BPF_BTF = 26, FEAT_COMPRESSED = 27, FEAT_CPU_PMU_CAPS = 28, FEAT_CLOCK_DATA = 29,
	FEAT_HYBRID_TOPOLOGY = 30, FEAT_PMU_CAPS = 31,
	/* lperf's own section, past every bit perf defines (perf 6.1 skips bits it does not
	 * know): the JIT symbol sources (perf maps, jitdumps) of the recorded processes. */
	FEAT_LPERF_JIT = 255,
	/* lperf's own too: a record --wall recording, whose on-CPU event's samples and off-CPU
	 * event's (offcpu-time) weigh the same nanoseconds and are one profile (docs/record.md). */
	FEAT_LPERF_WALL = 254,
	/* lperf's own too: how many of the samples the recording's LOST records count were the
	 * kernel's samples of processes record --python paused, whose samples lperf wrote itself
	 * (none of the profile's), so that report says what record said (docs/python.md). */
	FEAT_LPERF_LOST = 253,
	FEAT_MAX = 256,
};

#endif
