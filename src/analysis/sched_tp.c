/* The scheduler tracepoints' fields, read through libtraceevent: see sched.h. */
#include "analysis/sched.h"

#include <event-parse.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

static struct tep_event *sched_find(struct tep_handle *tep, const char *name, int *id)
{
	struct tep_event *e = tep ? tep_find_event_by_name(tep, "sched", name) : NULL;
	*id = e ? e->id : -1;
	return e;
}

static struct tep_format_field *sched_field(struct tep_event *e, const char *name, int *id)
{
	struct tep_format_field *f = e ? tep_find_field(e, name) : NULL;
	if (!f)
		*id = -1; /* an event without the field is as good as absent */
	return f;
}

int sched_tp_init(struct sched_tp *tp, struct tep_handle *tep)
{
	memset(tp, 0, sizeof(*tp));
	for (size_t k = 0; k < 5; k++)
		for (size_t i = 0; i < 3; i++)
			tp->id[k][i] = -1;
	struct tep_event *sw = sched_find(tep, "sched_switch", &tp->id[SCHED_SWITCH][0]);
	tp->prev_pid = sched_field(sw, "prev_pid", &tp->id[SCHED_SWITCH][0]);
	tp->prev_state = sched_field(sw, "prev_state", &tp->id[SCHED_SWITCH][0]);
	tp->next_pid = sched_field(sw, "next_pid", &tp->id[SCHED_SWITCH][0]);
	tp->next_comm = sched_field(sw, "next_comm", &tp->id[SCHED_SWITCH][0]);
	if (tp->id[SCHED_SWITCH][0] < 0)
		return err_set("no sched:sched_switch events in the recording (record them with 'lperf sched "
			       "record' or 'perf sched record')");
	struct tep_event *rt = sched_find(tep, "sched_stat_runtime", &tp->id[SCHED_RUNTIME][0]);
	tp->rt_pid = sched_field(rt, "pid", &tp->id[SCHED_RUNTIME][0]);
	tp->rt_runtime = sched_field(rt, "runtime", &tp->id[SCHED_RUNTIME][0]);
	static const char *const wakeups[] = { "sched_wakeup", "sched_waking", "sched_wakeup_new" };
	for (size_t i = 0; i < 3; i++) {
		struct tep_event *wk = sched_find(tep, wakeups[i], &tp->id[SCHED_WAKEUP][i]);
		tp->wk_pid[i] = sched_field(wk, "pid", &tp->id[SCHED_WAKEUP][i]);
	}
	struct tep_event *mg = sched_find(tep, "sched_migrate_task", &tp->id[SCHED_MIGRATE][0]);
	tp->mg_pid = sched_field(mg, "pid", &tp->id[SCHED_MIGRATE][0]);
	tp->mg_orig = sched_field(mg, "orig_cpu", &tp->id[SCHED_MIGRATE][0]);
	tp->mg_dest = sched_field(mg, "dest_cpu", &tp->id[SCHED_MIGRATE][0]);
	return 0;
}

static int sched_num(const struct tep_format_field *f, const struct resolved_sample *rs, int64_t *v)
{
	unsigned long long x;
	if ((uint64_t)f->offset + (uint64_t)f->size > rs->s->raw_size)
		return -1;
	if (tep_read_number_field((struct tep_format_field *)f, rs->s->raw, &x) != 0)
		return -1;
	/* signed fields widen with their sign (prev_state is a long, pids are ints) */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (x >> (f->size * 8 - 1)) & 1)
		x |= ~0ull << (f->size * 8);
	*v = (int64_t)x;
	return 0;
}

static int sched_str(const struct tep_format_field *f, const struct resolved_sample *rs, char *buf, size_t size)
{
	if ((uint64_t)f->offset + (uint64_t)f->size > rs->s->raw_size)
		return -1;
	size_t n = strnlen((const char *)rs->s->raw + f->offset, (size_t)f->size);
	if (n >= size)
		n = size - 1;
	memcpy(buf, (const char *)rs->s->raw + f->offset, n);
	buf[n] = '\0';
	return 0;
}

static enum sched_kind sched_kind_of(const struct sched_tp *tp, int id, int *which)
{
	for (int k = SCHED_SWITCH; k <= SCHED_MIGRATE; k++)
		for (int i = 0; i < 3; i++)
			if (tp->id[k][i] >= 0 && tp->id[k][i] == id) {
				*which = i;
				return (enum sched_kind)k;
			}
	return SCHED_NONE;
}

int sched_tp_decode(const struct sched_tp *tp, const struct resolved_sample *rs, struct sched_event *ev)
{
	const struct perf_sample *s = rs->s;
	if (!s->raw || s->raw_size < 2)
		return 0;
	uint16_t id;
	memcpy(&id, s->raw, sizeof(id));
	int which = 0;
	enum sched_kind k = sched_kind_of(tp, id, &which);
	if (k == SCHED_NONE)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->kind = k;
	ev->time = s->time;
	ev->cpu = s->cpu;
	ev->pid = (int32_t)s->pid;
	ev->tid = (int32_t)s->tid;
	ev->rs = rs;
	int64_t a = 0, b = 0, c = 0;
	switch (k) {
	case SCHED_SWITCH:
		if (sched_num(tp->prev_pid, rs, &a) < 0 || sched_num(tp->next_pid, rs, &b) < 0 ||
		    sched_num(tp->prev_state, rs, &ev->prev_state) < 0 ||
		    sched_str(tp->next_comm, rs, ev->next_comm, sizeof(ev->next_comm)) < 0)
			return -1;
		ev->prev_pid = (int32_t)a;
		ev->next_pid = (int32_t)b;
		return 1;
	case SCHED_RUNTIME:
		if (sched_num(tp->rt_pid, rs, &a) < 0 || sched_num(tp->rt_runtime, rs, &b) < 0)
			return -1;
		ev->target = (int32_t)a;
		ev->runtime = (uint64_t)b;
		return 1;
	case SCHED_WAKEUP:
		if (sched_num(tp->wk_pid[which], rs, &a) < 0)
			return -1;
		ev->target = (int32_t)a;
		ev->waking = which == 1;
		return 1;
	case SCHED_MIGRATE:
		if (sched_num(tp->mg_pid, rs, &a) < 0 || sched_num(tp->mg_orig, rs, &b) < 0 ||
		    sched_num(tp->mg_dest, rs, &c) < 0)
			return -1;
		ev->target = (int32_t)a;
		ev->orig_cpu = (int32_t)b;
		ev->dest_cpu = (int32_t)c;
		return 1;
	case SCHED_NONE:
		break;
	}
	return 0;
}

const char *sched_comm(struct machine *m, int32_t tid)
{
	static char unnamed[16];
	struct thread *t = m ? machine_find_thread(m, tid) : NULL;
	if (t && t->comm && t->comm_set)
		return t->comm;
	if (tid == 0)
		return "swapper";
	snprintf(unnamed, sizeof(unnamed), ":%" PRId32, tid);
	return unnamed;
}

void sched_time_str(uint64_t ns, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%06" PRIu64, ns / 1000000000u, ns % 1000000000u / 1000u);
}
