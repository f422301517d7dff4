/* The live source: sampling events opened per CPU (or per task), one ring buffer per CPU with
 * the other fds of that CPU redirected into it, polled and drained through a record callback.
 * Plus the records that describe what already exists when recording starts (synthesis). */
#ifndef LPERF_LIVE_H
#define LPERF_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/auxbuf.h"
#include "kernel/ringbuf.h"
#include "record/record.h"
#include "util/notes.h"

struct evlist;
struct pollfd;

enum live_callchain { LIVE_CG_NONE, LIVE_CG_FP, LIVE_CG_DWARF };

/* The fd layout follows from cpus and pids, as perf does it:
 *   cpus only        CPU-wide: pid -1 on each CPU, one buffer per CPU
 *   pids only        per task on any CPU (cpu -1), one buffer per task
 *   pids and cpus    per task per CPU, one buffer per CPU shared by the tasks. This is what
 *                    `record -- cmd` needs: the kernel refuses to map an inherited event of
 *                    cpu -1, so inherit requires cpus. */
struct live_opts {
	const int *cpus;          /* CPUs to open on; NULL/0 = one per-task fd on any CPU */
	size_t ncpus;
	const pid_t *pids;        /* tasks; NULL/0 = CPU-wide (pid -1) */
	size_t npids;
	bool enable_on_exec;      /* a started command: sampling starts at its exec (then do not
				   * call live_enable: it would sample the fork child before exec) */
	bool inherit;             /* follow children and threads */
	size_t mmap_pages;        /* data pages per buffer, a power of two (default 128 = 512 KiB) */
	bool use_clockid;
	int clockid;              /* CLOCK_MONOTONIC for jitdump correlation */
	uint64_t freq;            /* samples per second for events without their own period
				   * (0: 4000, perf's default); lowered to
				   * kernel.perf_event_max_sample_rate when above it */
	uint64_t period;          /* or a fixed period (-c); takes precedence over freq.
				   * Tracepoints without a period use 1 (every hit), as perf does */
	enum live_callchain callchain;
	uint32_t stack_size;      /* DWARF: bytes of user stack per sample (0: 8192; rounded up to
				   * 8, at most 65528) */
	bool exclude_kernel;      /* paranoia forbids kernel sampling */
	size_t aux_pages;         /* AUX area pages per buffer for SPE events (0: perf's default) */
	bool exclude_callchain_kernel; /* user-space call chains only (record --user-callchains) */
	uint64_t sample_regs_intr; /* PERF_SAMPLE_REGS_INTR with these registers, 0: none */
	uint64_t branch_sample_type; /* PERF_SAMPLE_BRANCH_STACK with this filter, 0: none */
	uint64_t sample_type_extra; /* more PERF_SAMPLE_* bits for every event (record -d, -W...) */
	bool mmap_data;           /* MMAP records of data mappings too (record -d) */
	bool no_bpf_event;        /* record --no-bpf-event: no attr.bpf_event (KSYMBOLs are kept) */
	int delay_ms;             /* a started command: events enabled this long after it starts
				   * rather than at its exec (-1: never), 0: at exec */
};

struct live {
	struct evlist *evl;
	size_t nev, ncols, nrows;  /* events x CPU columns x task rows */
	int *fds;                  /* [ev][col][row] */
	struct perf_event_attr *attrs; /* the attr each event was opened with (for perf.data) */
	uint64_t **ids;            /* per event: kernel ids of its fds (PERF_EVENT_IOC_ID) */
	size_t *nids;
	struct ringbuf *rbs;
	size_t nrbs;
	int *cpus;                 /* CPU of each column (-1: any CPU) */
	pid_t *pids;               /* task of each row (-1: CPU-wide) */
	uint64_t *fd_ids;          /* [ev][col][row]: the kernel id of each fd, 0 where none (for
				    * perf.data's ID_INDEX: id -> cpu, tid) */
	bool kernel_excluded;      /* perf_event_paranoid made us sample user mode only */
	uint64_t freq_max;         /* when the requested frequency was lowered: the kernel's
				    * limit that was used instead, else 0 */
	uint64_t freq_asked;       /* the frequency asked for (with freq_max) */
	bool all_hup;              /* live_read saw every fd hang up: every task has exited */
	struct pollfd *pfd;        /* every open fd; hung-up ones are dropped (fd -1) */
	size_t npfd, npfd_live;
	int wake_fd;               /* also ends live_read's wait when readable (-1: none) */
	struct auxbuf *aux;        /* per ring buffer: its AUX area when it carries an SPE event
				    * (live_aux.c); NULL without SPE events */
	size_t naux;
};

/* The full user register mask perf samples for DWARF unwinding on this architecture
 * (x86-64: 0xff0fff, aarch64: (1 << 33) - 1), 0 where lperf does not know it. */
uint64_t live_user_regs_mask(void);

/* Opens every event with the sampling settings; the first event carries the side-band bits
 * (mmap2, comm, comm_exec, task, ksymbol, bpf_event; sample_id_all everywhere; a kernel that
 * refuses ksymbol or bpf_event gets the event without them). An event that cannot be opened is an
 * error (err_set, explained as for counting); a listed thread that exited meanwhile is skipped.
 * Events start disabled (with enable_on_exec they enable themselves at exec). Where kernel
 * sampling is forbidden and the user gave no :u/:k, events fall back to user mode and
 * kernel_excluded says so. Sample layout: IDENTIFIER (with 2+ events), IP, TID, TIME, CPU,
 * PERIOD, CALLCHAIN (fp and dwarf: dwarf keeps the kernel part, exclude_callchain_user, as
 * perf), REGS_USER + STACK_USER (dwarf). */
int live_open(struct live *l, struct evlist *evl, const struct live_opts *o);
/* The data pages per ring buffer for live_opts.mmap_pages: asked (-m) when given; else, for
 * DWARF stack copies as root, room for them (256 MiB over the online CPUs, 4 to 16 MiB each);
 * else perf's default, 128. */
size_t live_mmap_pages(size_t asked, enum live_callchain callchain);
/* What the open changed of the request, for the command to say: a frequency lowered to the
 * kernel's limit (a warning, as perf's) and kernel samples left out by perf_event_paranoid (a
 * hint). */
void live_open_notes(const struct live *l, struct notes *ns);
void live_enable(struct live *l);
void live_disable(struct live *l);
/* live_read's wait also ends when fd is readable (a control FIFO's command waiting; -1: no
 * longer): the caller reads it. */
void live_wake_on(struct live *l, int fd);
/* Waits up to timeout_ms for data (poll), then drains every buffer through cb (also when poll
 * saw nothing, so a final call after live_disable gets everything). Returns the number of
 * records delivered, or -1. A signal interrupting the wait is not an error (returns 0 without
 * draining). Tasks that exit hang up their fds; when all have, all_hup is set. */
long live_read(struct live *l, int timeout_ms, record_cb cb, void *arg);
void live_close(struct live *l);

/* Synthesis, as perf does at the start of a recording. Records carry the sample_id trailer of
 * attr (the first event's). */
/* MMAP of [kernel.kallsyms]_text for pid -1, misc KERNEL, and one per loaded module
 * (/proc/modules), as perf 6.1 synthesizes them: the kernel map starts at _text (else _stext)
 * with pgoff = that address and ends at _etext, else at the first module above it, else at
 * ~0. Hidden addresses (kptr_restrict, unprivileged) read as 0 and are emitted as 0, as perf
 * does. A module's filename is its .ko under /lib/modules/RELEASE when found, else "[name]". */
int synth_kernel(const struct perf_event_attr *attr, record_cb cb, void *arg);
/* synth_kernel from other files (tests): kallsyms and modules are paths of files in the /proc
 * formats (modules may be absent), moddir the tree searched for .ko files (NULL: none). */
int synth_kernel_from(const struct perf_event_attr *attr, const char *kallsyms, const char *modules,
		      const char *moddir, record_cb cb, void *arg);
/* The BPF programs loaded now, as perf 6.1 synthesizes them: a KSYMBOL per JITed function
 * ("bpf_prog_<tag>_<function>", the function's name from the program's BTF as the kernel names it)
 * and, when attr->bpf_event is set, a BPF_EVENT per program, from the programs' information
 * (bpf(2)); where that is not allowed or the addresses are hidden, from kallsyms' "[bpf]"
 * symbols (each running to the next, at most 4096 bytes). Nothing when neither can be read. */
int synth_bpf(const struct perf_event_attr *attr, record_cb cb, void *arg);
/* synth_bpf's kallsyms part from a file in the /proc/kallsyms format (tests). */
int synth_bpf_from_kallsyms(const struct perf_event_attr *attr, const char *path, record_cb cb, void *arg);
/* COMM for each thread of pid, FORK for its non-leader threads, and MMAP2 for each executable
 * mapping in /proc/pid/maps (with device, inode and prot; misc USER; [vdso] and [vsyscall]
 * included; anonymous ones named "//anon" as perf names them). A process that exits meanwhile
 * is skipped silently. Returns 0, or -1 when cb fails or a record cannot be built. */
int synth_process(const struct perf_event_attr *attr, pid_t pid, record_cb cb, void *arg);
/* The MMAP2 part of synth_process, from a file in the /proc/PID/maps format (tests use
 * fixtures). Malformed lines are skipped. */
int synth_mmaps_from(const struct perf_event_attr *attr, pid_t pid, const char *maps_path,
		     record_cb cb, void *arg);
/* synth_process for pid and every process descended from it now (by their parents in /proc):
 * a rotated recording's next file describes the children a command started before. */
int synth_process_tree(const struct perf_event_attr *attr, pid_t pid, record_cb cb, void *arg);
/* synth_process for every process in /proc. */
int synth_all_processes(const struct perf_event_attr *attr, record_cb cb, void *arg);

#endif
