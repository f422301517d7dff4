/* perf_event records: the one record format that the live ring buffers and perf.data files
 * both deliver. Parsers here turn a record's bytes into bounds-checked views; every pointer in
 * a parsed struct points into the record and lives as long as it does. */
#ifndef LPERF_STREAM_RECORD_H
#define LPERF_STREAM_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A consumer of records (perf.data walks, ring-buffer drains, synthesis, the ordered queue):
 * h is 8-aligned and valid only during the call; non-zero stops the producer and is returned. */
typedef int (*record_cb)(const struct perf_event_header *h, void *arg);

/* perf's user record types (not in the uapi header). */
enum {
	REC_HEADER_ATTR = 64,
	REC_EVENT_TYPE = 65,
	REC_TRACING_DATA = 66,
	REC_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_ID_INDEX = 69,
	REC_AUXTRACE_INFO = 70,
	REC_AUXTRACE = 71,
	REC_AUXTRACE_ERROR = 72,
	REC_THREAD_MAP = 73,
	REC_CPU_MAP = 74,
	REC_STAT_CONFIG = 75,
	REC_STAT = 76,
	REC_STAT_ROUND = 77,
	REC_EVENT_UPDATE = 78,
	REC_TIME_CONV = 79,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_FINISHED_INIT = 82,
};

/* One event of a recording: its attr (normalised to this build's struct size; a larger attr
 * from a newer perf keeps the fields we know), its name and the kernel ids of its fds. */
struct evsel {
	struct perf_event_attr attr;
	char *name;          /* from EVENT_DESC, or derived from type/config */
	uint64_t *ids;
	size_t nids;
	int idx;
};

struct evsel_id;
struct evsel_set {
	struct evsel *v;
	size_t n;
	/* Optional sorted id index (evsel_set_index); a set built by hand may leave it NULL, and
	 * evsel_by_id then scans. An index made for a different n is ignored. */
	struct evsel_id *byid;
	size_t nbyid, byid_nev;
};

/* Looks an event up by sample id; with one event, that event. Id 0 (perf's synthesized
 * records) gives the first event. NULL when unknown. */
const struct evsel *evsel_by_id(const struct evsel_set *s, uint64_t id);
/* (Re)builds the id index; call after adding events or ids. */
void evsel_set_index(struct evsel_set *s);
/* Appends an event (copying attr, name and ids; name NULL gives evsel_default_name). Returns it
 * (valid until the next add). Lookups scan until evsel_set_index() is called again. */
struct evsel *evsel_set_add(struct evsel_set *s, const struct perf_event_attr *attr, const char *name,
			    const uint64_t *ids, size_t nids);
void evsel_set_free(struct evsel_set *s);
/* A name for an attr without EVENT_DESC: "cpu-clock", "cycles", "raw 0x1b", "type 10 config 0x70".
 * perf's modifiers follow (":u" for exclude_kernel|exclude_hv, ":ppp" for precise_ip). */
char *evsel_default_name(const struct perf_event_attr *attr);

/* PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8): a u64 per branch entry after the entries. */
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS (1U << 19)
#endif

/* A parsed PERF_RECORD_SAMPLE, or the sample_id trailer of another record (then only pid,
 * tid, time, id, stream_id, cpu are set). Fields absent from sample_type are 0 / NULL, except
 * period: without PERF_SAMPLE_PERIOD it is the attr's sample_period, as perf takes it. */
struct perf_sample {
	const struct evsel *evsel;
	uint64_t sample_type;
	uint64_t id, ip, time, addr, period, stream_id;
	uint32_t pid, tid, cpu;
	uint8_t cpumode;                   /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	const uint64_t *callchain;         /* nr entries, PERF_CONTEXT_* markers inline */
	uint64_t callchain_nr;
	const void *raw;
	uint32_t raw_size;
	uint64_t user_abi;                 /* PERF_SAMPLE_REGS_ABI_*; 0 means no registers */
	const uint64_t *user_regs;         /* popcount(attr.sample_regs_user) registers */
	uint64_t user_regs_mask;
	size_t user_nregs;
	const uint8_t *user_stack;         /* the copied stack, user_stack_size bytes */
	uint64_t user_stack_size;          /* bytes present */
	uint64_t user_stack_dyn_size;      /* bytes actually valid (<= size) */
	uint64_t weight, data_src, transaction, phys_addr;  /* weight: WEIGHT or WEIGHT_STRUCT */

	/* PERF_SAMPLE_READ: the read_format block; sample_read_value() walks it. */
	const uint64_t *read_block;
	uint64_t read_format;
	uint64_t read_nr;                  /* counters in the block: 1 without PERF_FORMAT_GROUP */
	uint64_t read_time_enabled, read_time_running;
	/* PERF_SAMPLE_BRANCH_STACK */
	const struct perf_branch_entry *branches;
	uint64_t branch_nr;
	uint64_t branch_hw_idx;            /* with PERF_SAMPLE_BRANCH_HW_INDEX, else 0 */
	bool branch_has_hw_idx;
	const uint64_t *branch_counters;   /* branch_nr values with PERF_SAMPLE_BRANCH_COUNTERS */
	/* PERF_SAMPLE_REGS_INTR */
	uint64_t intr_abi;
	const uint64_t *intr_regs;
	uint64_t intr_regs_mask;
	size_t intr_nregs;
	uint64_t cgroup, data_page_size, code_page_size;
	/* PERF_SAMPLE_AUX */
	const void *aux;
	uint64_t aux_size;
};

/* One counter of a PERF_SAMPLE_READ block (i < read_nr); id and lost are 0 when read_format
 * lacks them. */
struct sample_read_value {
	uint64_t value, id, lost;
};
void sample_read_value(const struct perf_sample *s, uint64_t i, struct sample_read_value *v);

/* Parses a SAMPLE. -1 with err_set() (naming the field and offset) when the record is shorter
 * than its sample_type says, or names an unknown id among several events. */
int sample_parse(const struct evsel_set *s, const struct perf_event_header *h, struct perf_sample *out);
/* Parses the sample_id trailer of a non-sample record (attr.sample_id_all). Returns 0 and
 * leaves out zeroed when the record has none. */
int sample_id_parse(const struct evsel_set *s, const struct perf_event_header *h, struct perf_sample *out);
/* The time of any record (sample time or trailer time), or 0 when it carries none. */
uint64_t record_time(const struct evsel_set *s, const struct perf_event_header *h);
/* Bytes of the sample_id trailer that attr gives non-sample records (0 without sample_id_all). */
size_t sample_id_size(const struct perf_event_attr *attr);

/* Side-band records, parsed. filename/comm are NUL-terminated inside the record (checked). */
struct rec_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;              /* MMAP2 only; MMAP: PROT_EXEC unless MISC_MMAP_DATA */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const uint8_t *build_id;           /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	const char *filename;
	uint8_t cpumode;
	bool data;                         /* PERF_RECORD_MISC_MMAP_DATA: not executable */
};
struct rec_comm {
	uint32_t pid, tid;
	const char *comm;
	bool exec;                         /* PERF_RECORD_MISC_COMM_EXEC */
};
struct rec_task {                          /* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};
struct rec_lost {                          /* LOST: lost records; LOST_SAMPLES: id 0 */
	uint64_t id, lost;
};

int record_parse_mmap(const struct perf_event_header *h, struct rec_mmap *out);  /* MMAP or MMAP2 */
int record_parse_comm(const struct perf_event_header *h, struct rec_comm *out);
int record_parse_task(const struct perf_event_header *h, struct rec_task *out);
int record_parse_lost(const struct perf_event_header *h, struct rec_lost *out);  /* LOST or LOST_SAMPLES */

/* PERF_RECORD_KSYMBOL: kernel code [addr, addr + len) named name appeared (a BPF program's JITed
 * function, a trampoline) or, with unregister, went away. */
struct rec_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type;                /* PERF_RECORD_KSYMBOL_TYPE_* */
	uint16_t flags;
	bool unregister;                   /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
	const char *name;
};
/* PERF_RECORD_BPF_EVENT: BPF program id was loaded or unloaded (its KSYMBOLs say where). */
struct rec_bpf_event {
	uint16_t type;                     /* PERF_BPF_EVENT_PROG_LOAD, _UNLOAD */
	uint16_t flags;
	uint32_t id;
	uint8_t tag[8];                    /* BPF_TAG_SIZE */
};
/* -1 after err_set for a record too short, a name not NUL-terminated in it, a length of 0 or
 * one that runs past the end of the address space. */
int record_parse_ksymbol(const struct perf_event_header *h, struct rec_ksymbol *out);
int record_parse_bpf_event(const struct perf_event_header *h, struct rec_bpf_event *out);

/* The name of a record type: "SAMPLE", "MMAP2", "FINISHED_ROUND", "type 99" (static). */
const char *record_type_name(uint32_t type);

/* Builders for records lperf synthesizes (record's view of processes that already exist, and the
 * kernel map). Each writes a complete record into buf (at least 8 KiB, or the needed size for
 * long names) and returns its size; the sample_id trailer follows attr.sample_id_all and
 * sample_type, filled with pid/tid and zeros as perf does. When size is too small nothing is
 * written and the size needed is returned (so check the result against size); 0 means the
 * record could not fit perf's 64 KiB limit. Strings are NUL-padded to 8 bytes. */
size_t record_build_comm(void *buf, size_t size, const struct perf_event_attr *attr, uint32_t pid,
			 uint32_t tid, const char *comm, bool exec);
size_t record_build_mmap2(void *buf, size_t size, const struct perf_event_attr *attr, const struct rec_mmap *m);
size_t record_build_mmap(void *buf, size_t size, const struct perf_event_attr *attr, const struct rec_mmap *m);
size_t record_build_task(void *buf, size_t size, const struct perf_event_attr *attr, uint32_t type,
			 const struct rec_task *t);
/* A SAMPLE from the fields of s that attr->sample_type selects (the inverse of sample_parse;
 * the read block, branch stack and registers are copied as they are). For tests, inject and
 * synthetic samples. */
size_t record_build_sample(void *buf, size_t size, const struct perf_event_attr *attr, const struct perf_sample *s);
/* LOST (id, lost) or LOST_SAMPLES (lost) with the trailer of attr. */
size_t record_build_lost(void *buf, size_t size, const struct perf_event_attr *attr, uint32_t type,
			 const struct rec_lost *l);
/* KSYMBOL and BPF_EVENT as perf synthesizes them for what is loaded when it starts (misc 0, a
 * zeroed trailer). */
size_t record_build_ksymbol(void *buf, size_t size, const struct perf_event_attr *attr, const struct rec_ksymbol *k);
size_t record_build_bpf_event(void *buf, size_t size, const struct perf_event_attr *attr,
			      const struct rec_bpf_event *b);
/* A header-only record: FINISHED_ROUND, FINISHED_INIT. */
size_t record_build_marker(void *buf, size_t size, uint32_t type);
/* A SAMPLE (h, parsed as s) whose user stack copy holds more bytes than the kernel filled
 * (dyn_size < size), rewritten into out (h->size bytes of room) with only the filled bytes,
 * rounded up to 8: the copy's size field says so, and perf reads it as any other sample. Returns
 * the new size, or 0 when there is nothing to trim. */
size_t record_trim_stack(const struct perf_event_header *h, const struct perf_sample *s, void *out);

#endif
