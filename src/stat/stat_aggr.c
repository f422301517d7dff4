#include "stat/stat_aggr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/cpuset.h"
#include "util/xalloc.h"

static int topo_int(int cpu, const char *file, int dflt)
{
	char rel[128];
	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/%s", cpu, file);
	char *s = sysfs_read(rel);
	if (!s)
		return dflt;
	char *end;
	long v = strtol(s, &end, 10);
	bool ok = end != s && v >= -1 && v < 1 << 20;
	free(s);
	return ok ? (int)v : dflt;
}

static bool is_node_dir(const char *name)
{
	return !strncmp(name, "node", 4) && name[4] >= '0' && name[4] <= '9';
}

static int node_of(int cpu)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/devices/system/node", sysfs_root());
	size_t n;
	char **names = dir_list(dir, is_node_dir, 4096, NULL, &n);
	int node = 0;
	for (size_t i = 0; i < n; i++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "devices/system/node/%s/cpulist", names[i]);
		char *list = sysfs_read(rel);
		struct cpuset set = { 0 };
		if (list && cpuset_parse(list, &set) == 0 && cpuset_has(&set, cpu))
			node = atoi(names[i] + 4);
		cpuset_free(&set);
		free(list);
	}
	strv_free(names, n);
	return node;
}

void stat_cpu_topo_read(int cpu, struct stat_cpu_topo *t)
{
	t->socket = topo_int(cpu, "physical_package_id", 0);
	t->die = topo_int(cpu, "die_id", 0);
	t->core = topo_int(cpu, "core_id", cpu);
	t->node = node_of(cpu);
}

/* The unit's identity under mode: the fields the mode does not group by are cleared. */
static struct stat_aggr_unit unit_of(enum stat_aggr mode, int cpu, const struct stat_cpu_topo *t)
{
	struct stat_aggr_unit u = { .id = { -1, -1, -1, -1 }, .cpu = -1 };
	switch (mode) {
	case STAT_AGGR_NONE:
		u.cpu = cpu;
		break;
	case STAT_AGGR_CORE:
		u.id.core = t->core;
		/* fall through */
	case STAT_AGGR_DIE:
		u.id.die = t->die;
		/* fall through */
	case STAT_AGGR_SOCKET:
		u.id.socket = t->socket;
		break;
	case STAT_AGGR_NODE:
		u.id.node = t->node;
		break;
	default:
		break;
	}
	return u;
}

static int unit_cmp(const struct stat_aggr_unit *a, const struct stat_aggr_unit *b)
{
	const int ka[] = { a->id.socket, a->id.die, a->id.core, a->id.node, a->cpu };
	const int kb[] = { b->id.socket, b->id.die, b->id.core, b->id.node, b->cpu };
	for (size_t i = 0; i < 5; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

static int unit_qcmp(const void *a, const void *b)
{
	return unit_cmp(a, b);
}

void stat_aggr_build(struct stat_aggr_units *us, const struct stat_result *r, enum stat_aggr mode)
{
	memset(us, 0, sizeof(*us));
	us->mode = mode;
	size_t cap = 0;
	if (mode == STAT_AGGR_GLOBAL || (mode != STAT_AGGR_THREAD && r->ncpus == 1 && r->cpus[0] < 0)) {
		us->u = xcalloc(1, sizeof(*us->u));
		us->n = 1;
		us->u[0] = unit_of(STAT_AGGR_GLOBAL, -1, NULL);
		us->u[0].total = true;
		us->u[0].cols = xmalloc((r->ncpus ? r->ncpus : 1) * sizeof(size_t));
		for (size_t c = 0; c < r->ncpus; c++)
			us->u[0].cols[c] = c;
		us->u[0].ncols = r->ncpus;
		return;
	}
	for (size_t c = 0; c < r->ncpus; c++) {
		struct stat_cpu_topo t = { 0, 0, 0, 0 };
		int cpu = r->cpus[c];
		if (mode != STAT_AGGR_THREAD && mode != STAT_AGGR_NONE)
			stat_cpu_topo_read(cpu, &t);
		struct stat_aggr_unit k = unit_of(mode, mode == STAT_AGGR_THREAD ? (int)c : cpu, &t);
		struct stat_aggr_unit *u = NULL;
		for (size_t i = 0; i < us->n && !u && mode != STAT_AGGR_THREAD; i++)
			if (!unit_cmp(&us->u[i], &k))
				u = &us->u[i];
		if (!u) {
			ALLOC_GROW(us->u, us->n + 1, cap);
			u = &us->u[us->n++];
			*u = k;
			u->cols = xmalloc(r->ncpus * sizeof(size_t));
		}
		u->cols[u->ncols++] = c;
	}
	if (mode != STAT_AGGR_THREAD)
		qsort(us->u, us->n, sizeof(*us->u), unit_qcmp);
}

void stat_aggr_free(struct stat_aggr_units *us)
{
	for (size_t i = 0; i < us->n; i++)
		free(us->u[i].cols);
	free(us->u);
	memset(us, 0, sizeof(*us));
}

void stat_aggr_value(const struct stat_result *r, size_t e, const struct stat_aggr_unit *u, struct stat_value *out)
{
	if (u->total) {
		*out = r->ev[e].total;
		return;
	}
	memset(out, 0, sizeof(*out));
	if (u->ncols == 1) {
		*out = r->ev[e].cpu[u->cols[0]];
		return;
	}
	for (size_t i = 0; i < u->ncols; i++) {
		const struct stat_value *v = &r->ev[e].cpu[u->cols[i]];
		out->raw.val += v->raw.val;
		out->raw.ena += v->raw.ena;
		out->raw.run += v->raw.run;
	}
	if (r->ev[e].total.status == COUNTER_NOT_SUPPORTED)
		out->status = COUNTER_NOT_SUPPORTED;
	else
		out->status = counter_scale(&out->raw, &out->scaled);
}
