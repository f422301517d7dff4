/* Fuzz harness: the perf.data reader and everything a report does with what it reads. The input
 * is a whole perf.data file (file or pipe mode, either byte order, any features); it goes through
 * perfdata_open_mem (header, attrs, ids, feature sections), the JIT sources stored in the file,
 * and session_process_file (every record type parsed, byte-swapped, time-ordered, fed to the
 * machine model; samples resolved, callchains and user stacks unwound) into a profile with
 * callgraphs, as `lperf report` builds it; and through a pipe, as `report -i -` streams it.
 * Records inside perf record -z's COMPRESSED records are decompressed and walked the same way;
 * Arm SPE AUX data is decoded and tabulated. Seeds: recordings by perf 6.1 and lperf (also
 * compressed with -z, and one holding SPE AUX data), and the same files byte-swapped (as a
 * machine of the other byte order writes them).
 * For speed and determinism, files named by the recording are looked up under an empty --symfs
 * root and kernel symbols come from a small fixed kallsyms (ELF loading and unwinding over real
 * files have their own harnesses: elf, dwarf, unwind). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/profile.h"
#include "fuzz.h"
#include "perfdata/perfdata.h"
#include "record/record.h"
#include "session/session.h"
#include "spe/spe_load.h"
#include "spe/spe_stats.h"
#include "util/error.h"

static int each_record(const struct perf_event_header *h, void *arg)
{
	const struct evsel_set *s = arg;
	struct perf_sample smp;
	struct rec_mmap mm;
	struct rec_comm cm;
	struct rec_task tk;
	struct rec_lost lo;
	switch (h->type) {
	case PERF_RECORD_SAMPLE: (void)sample_parse(s, h, &smp); break;
	case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2: (void)record_parse_mmap(h, &mm); break;
	case PERF_RECORD_COMM: (void)record_parse_comm(h, &cm); break;
	case PERF_RECORD_FORK: case PERF_RECORD_EXIT: (void)record_parse_task(h, &tk); break;
	case PERF_RECORD_LOST: case PERF_RECORD_LOST_SAMPLES: (void)record_parse_lost(h, &lo); break;
	default: (void)sample_id_parse(s, h, &smp); break;
	}
	(void)record_time(s, h);
	(void)record_type_name(h->type);
	return 0;
}

static char *symfs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	char *ks;
	if (asprintf(&symfs, "%s/symfs", fuzz_tmpdir()) < 0 || asprintf(&ks, "%s/kallsyms", fuzz_tmpdir()) < 0)
		abort();
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T do_syscall_64\n"
		"ffffffff81000200 t native_write_msr [kvm]\n"
		"ffffffff81000300 W memcpy\n"
		"ffffffff81001000 T _etext\n";
	fuzz_write(ks, text, sizeof(text) - 1);
	setenv("LPERF_KALLSYMS", ks, 1);
	free(ks);
	return 0;
}

/* The same bytes through a pipe, as `report -i -` reads them: the first 16 bytes are checked
 * as they come, and a pipe-mode stream is walked record by record from the descriptor. Inputs
 * up to 60 KiB fit in the pipe's buffer, so no writer thread is needed. */
static void through_pipe(const uint8_t *data, size_t size)
{
	int fds[2];
	if (size > 60 * 1024 || pipe(fds) < 0)
		return;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fds[1], data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fds[1]);
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
	struct perfdata_reader r;
	if (perfdata_open(&r, path) == 0) {
		(void)perfdata_for_each(&r, each_record, &r.evsels);
		(void)perfdata_for_each(&r, each_record, &r.evsels); /* a stream walks once */
		perfdata_close(&r);
	}
	close(fds[0]);
	err_clear();
}

/* A recording with Arm SPE AUX data: the AUXTRACE buffers decoded into records, resolved and
 * tabulated as `report` shows them (the spe harness fuzzes the packet decoder on its own). */
static void spe_view(struct perfdata_reader *r)
{
	if (!spe_recording(r))
		return;
	struct spe_data d;
	if (spe_load(r, SPE_V1P2, symfs, &d) == 0) {
		struct spe_itrace it;
		(void)spe_itrace_parse(NULL, &it);
		struct spe_report rep;
		spe_report_build(&d, &it, &rep);
		spe_report_free(&rep);
	}
	spe_data_free(&d);
	err_clear();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!symfs)
		LLVMFuzzerInitialize(NULL, NULL);
	through_pipe(data, size);
	struct perfdata_reader r;
	if (perfdata_open_mem(&r, "fuzz.data", data, size) < 0) {
		err_clear();
		return 0;
	}
	/* The raw walk (script's view: every record parsed on its own). */
	(void)perfdata_for_each(&r, each_record, &r.evsels);

	/* The report's view: machine model, resolution, unwinding, histograms. */
	enum hist_key keys[HK_NKEYS];
	size_t nkeys;
	if (hist_parse_sort("comm,dso,sym", keys, &nkeys) < 0)
		abort();
	struct profile p = { 0 };
	profile_init(&p, &r.evsels, keys, nkeys, HIST_CALLER, true);
	struct session ss;
	struct session_tool tool = { .sample = profile_sample, .arg = &p, .callchains = true,
				     .python_view = size & 1 };
	session_init(&ss, &r.evsels, &tool);
	machine_set_symfs(&ss.machine, symfs);
	machine_perfmap_path_policy(&ss.machine, false);
	for (size_t i = 0; i < r.info.njit_sources; i++) {
		const struct perfdata_jit_source *js = &r.info.jit_sources[i];
		if (js->kind == JIT_SRC_PERFMAP)
			machine_set_perfmap_data(&ss.machine, js->pid, js->data, js->size);
		else if (js->kind == JIT_SRC_JITDUMP)
			machine_set_jitdump_data(&ss.machine, js->pid, js->data, js->size);
	}
	(void)session_process_file(&ss, &r);
	profile_sort(&p, true);
	session_free(&ss);
	profile_free(&p);
	spe_view(&r);
	perfdata_close(&r);
	err_clear();
	return 0;
}
