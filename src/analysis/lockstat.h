/* perf lock contention's table from the lock:contention_begin/end tracepoints of a recording
 * (lockstat.c): each thread's wait on a lock from its begin to its end, summed per caller (the
 * call chain below the lock functions, named by its first function outside them) or per thread,
 * as perf 6.1 sums them. */
#ifndef LPERF_ANALYSIS_LOCKSTAT_H
#define LPERF_ANALYSIS_LOCKSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtab.h"
#include "util/hashmap.h"

struct resolved_sample;
struct tep_handle;
struct tep_event;
struct tep_format_field;

/* contention_begin's flags (the kernel's LCB_F_*). */
#define LOCK_F_SPIN   (1u << 0)
#define LOCK_F_READ   (1u << 1)
#define LOCK_F_WRITE  (1u << 2)
#define LOCK_F_RT     (1u << 3)
#define LOCK_F_PERCPU (1u << 4)
#define LOCK_F_MUTEX  (1u << 5)

struct lock_entry {
	uint64_t key;            /* the call chain's hash, the tid per thread, or the lock's address */
	char *name;              /* the caller "func+0xoff", or the thread's comm */
	uint32_t tid;
	uint64_t seq;            /* creation order (ties sort as perf's hash table lists them) */
	unsigned flags;          /* the first begin's flags */
	uint64_t contended;      /* begins */
	uint64_t acquired;       /* ends after a begin */
	uint64_t total, max, min;/* wait times, ns (min UINT64_MAX until an end) */
};

enum lock_sort { LOCK_SORT_CONTENDED, LOCK_SORT_WAIT_TOTAL, LOCK_SORT_WAIT_MAX, LOCK_SORT_WAIT_MIN,
		 LOCK_SORT_AVG_WAIT, LOCK_SORT_ACQUIRED /* lock report's only */ };

struct lockstat {
	bool per_thread;         /* -t: one row per thread */
	bool by_addr;            /* lock report: one row per lock (its address), named by the caller
				  * of its first wait */
	int max_stack;           /* frames looked at (perf's --max-stack, 8) */
	int stack_skip;          /* frames skipped first (perf's --stack-skip, 3) */
	/* the kernel's sections of lock functions: [lo, hi) each; 0 when unknown */
	uint64_t sched_lo, sched_hi, lock_lo, lock_hi;
	struct tep_event *begin, *end;
	struct tep_format_field *begin_addr, *begin_flags, *end_addr;
	struct hashmap waits;    /* tid -> struct lock_waits * */
	struct hashmap byname;   /* key -> index + 1 into v */
	struct lock_entry *v;
	size_t n, cap;
	uint64_t bad;            /* ends without a begin, samples whose fields did not read */
	struct symbol *ksyms;    /* lockstat_add_stack's kernel symbols (lockstat_load_ksyms) */
	size_t nksyms;
};

/* Ready to count the events of tep (the recording's formats). -1 after err_set when the
 * recording has no lock:contention_begin and lock:contention_end. kallsyms: the kernel symbols'
 * file, for the sections of the lock functions (unreadable: no function counts as one). */
int lockstat_init(struct lockstat *ls, struct tep_handle *tep, const char *kallsyms);
/* Counts one sample (others than the two tracepoints are ignored). */
void lockstat_sample(struct lockstat *ls, const struct resolved_sample *rs);
/* For lockstat_add_stack (contention -b): an empty lockstat with the kernel's symbols and lock
 * sections from the kallsyms file at path (unreadable: rows named by address). */
void lockstat_init_stacks(struct lockstat *ls, const char *kallsyms);
/* One row from the kernel's own totals of a stack (ips innermost first): named as from a
 * recording, by the first frame after stack_skip outside the lock functions. */
void lockstat_add_stack(struct lockstat *ls, const uint64_t *ips, size_t n, unsigned flags, uint64_t count,
			uint64_t total, uint64_t max, uint64_t min);
/* Per thread (-t with -b): one row from the kernel's totals of thread tid named comm. */
void lockstat_add_thread(struct lockstat *ls, uint32_t tid, const char *comm, unsigned flags, uint64_t count,
			 uint64_t total, uint64_t max, uint64_t min);
/* lock report -c: rows of one name merged into the first (counts and totals added, the largest
 * max and smallest min kept). */
void lockstat_combine(struct lockstat *ls);
/* lock info: per thread the rows by thread id, else by name then key (the lock's address),
 * smallest first. */
void lockstat_sort_info(struct lockstat *ls);
/* Sorts the rows by key, largest first. */
void lockstat_sort(struct lockstat *ls, enum lock_sort key);
/* perf's name of a lock type: "spinlock", "mutex", "rwsem:R"... ("unknown" otherwise). */
const char *lockstat_type_name(unsigned flags);
/* The sort key of a name ("contended", "wait_total", ..., "acquired"); -1 when there is none. */
int lockstat_sort_key(const char *name);
void lockstat_free(struct lockstat *ls);

#endif
