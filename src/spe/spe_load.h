/* SPE recordings read into resolved samples: the perf.data records go through the session (so
 * COMM/MMAP keep the machine model current, in time order), each AUXTRACE buffer is decoded
 * with the SPE decoder, and every record's PC is resolved to (comm, dso, symbol) the way
 * samples are. Perf synthesises samples from SPE records the same way (arm-spe.c). */
#ifndef LPERF_SPE_SPE_LOAD_H
#define LPERF_SPE_SPE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spe/spe.h"
#include "spe/spe_perfdata.h"
#include "perfdata/perfdata.h"
#include "util/hashmap.h"
#include "util/notes.h"

struct dso;
struct symbol;
struct spe_sample {
	struct spe_record r;
	uint32_t pid, tid, cpu;
	const char *comm;      /* interned in spe_data (never NULL) */
	const char *dso;       /* the DSO's path as recorded; NULL: unmapped */
	struct dso *dso_ref;   /* that DSO (alive with the session), and pc in its address space */
	uint64_t dso_addr;
	const struct symbol *sym_ref;
	const char *sym;       /* NULL: no symbol */
	uint64_t sym_off;
	bool data_mapped;      /* the data address lies in a mapping the recording named */
	const char *dsym, *ddso; /* the function and DSO at the data address (a branch's target);
	                          * NULL: none (lperf reads no data symbols) */
	/* A sample of a memory-sampling event (x86's mem-loads/mem-stores, AMD's IBS; spe_memev.c)
	 * rather than an SPE record: its perf_mem_data_src as the PMU gave it (never 0 then), its
	 * instruction latency and its event's name. r holds its pc, data address and weight. */
	uint64_t data_src;
	uint32_t ins_lat;
	const char *event;
	bool code_mapped;      /* its pc lies in a mapping the recording named */
};

struct spe_data {
	struct spe_sample *v;
	size_t n, cap;
	struct spe_auxtrace_info info;
	bool have_info;
	enum spe_version ver;
	uint64_t buffers, bytes, aux_records, aux_truncated, aux_partial, aux_collision, itrace_starts;
	uint64_t errors, skipped, truncated;   /* from the decoder, over all buffers */
	struct notes notes;                    /* the first decoder errors, one line each */
	struct hashmap strings;                /* interned names (the map owns the strings) */
	const char *events[16];                /* memory events (spe_memev_load): names in the */
	size_t nevents;                        /* recording's order */
};

/* True when the recording holds Arm SPE AUX data (an AUXTRACE_INFO of type Arm SPE). */
bool spe_recording(struct perfdata_reader *r);
/* Reads the whole recording. ver chooses which fields count as unexpected (decoding is the same
 * for every version). symfs may be NULL. -1 after err_set for a file that cannot be read. */
int spe_load(struct perfdata_reader *r, enum spe_version ver, const char *symfs, struct spe_data *d);

struct session;
struct resolved_sample;
struct spe_itrace;
/* spe_load over a session the caller opened (session_open or session_attach, which bring
 * --symfs and the header's build-ids), whose tool it takes over: every record that select keeps
 * (NULL, or not given: all) also goes to sample as one sample of the recording's SPE event at
 * its PC (period 1), resolved through the session's model, which stays alive with the session
 * (annotate counts SPE records per instruction so, report's --annotate too). */
struct spe_load_opts {
	const struct spe_itrace *select;
	int (*sample)(const struct resolved_sample *rs, void *arg);
	void *arg;
};
int spe_session_load(struct session *ss, enum spe_version ver, const struct spe_load_opts *o,
		     struct spe_data *d);
void spe_data_free(struct spe_data *d);

struct thread;
struct symbol;
/* The strings of d are interned: one copy each (NULL stays NULL). */
const char *spe_intern(struct spe_data *d, const char *s);
/* The data address target of s (a load's or store's, or a branch's target) resolved in t's
 * maps: s->data_mapped (for a data address), s->dsym, s->ddso. */
void spe_resolve_data(struct session *ss, struct spe_data *d, struct thread *t, uint8_t mode, uint64_t target,
		      bool is_data, struct spe_sample *s);

/* True when some event of the recording samples data sources (PERF_SAMPLE_DATA_SRC): memory
 * events perf mem and perf c2c report read. */
bool spe_memev_recording(const struct session *ss);
/* Every sample of those events as a spe_sample with data_src set (see above), resolved through
 * the session, whose tool it takes over. -1 after err_set. */
int spe_memev_load(struct session *ss, struct spe_data *d);


#endif
