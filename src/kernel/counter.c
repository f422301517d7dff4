#include "kernel/counter.h"

#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "events/evlist.h"
#include "kernel/perf_event.h"
#include "util/error.h"
#include "util/xalloc.h"

enum counter_status counter_scale(const struct counter_val *v, double *scaled)
{
	if (v->run == 0) {
		*scaled = 0;
		return COUNTER_NOT_COUNTED;
	}
	if (v->run >= v->ena) {
		*scaled = (double)v->val;
		return COUNTER_COUNTED;
	}
	*scaled = (double)v->val * ((double)v->ena / (double)v->run);
	return COUNTER_MULTIPLEXED;
}

static int *fd_at(const struct counters *c, size_t e, size_t col, size_t row)
{
	return &c->fds[(e * c->ncpus + col) * c->npids + row];
}

/* stat -G: a directory of the cgroup hierarchy perf events follow (cgroup v1's perf_event
 * controller, else cgroup v2), -1 with err_set. */
static int cgroup_open(const char *name)
{
	FILE *m = setmntent("/proc/mounts", "r");
	char *v1 = NULL, *v2 = NULL;
	struct mntent *me;
	while (m && (me = getmntent(m))) {
		if (!v1 && !strcmp(me->mnt_type, "cgroup") && hasmntopt(me, "perf_event"))
			v1 = xstrdup(me->mnt_dir);
		if (!v2 && !strcmp(me->mnt_type, "cgroup2"))
			v2 = xstrdup(me->mnt_dir);
	}
	if (m)
		endmntent(m);
	const char *root = v1 ? v1 : v2;
	int fd = -1;
	if (!root) {
		err_set("-G %s: no cgroup file system with perf_event is mounted", name);
	} else {
		char *path = xasprintf("%s/%s", root, name);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			err_set("-G %s: cannot open cgroup %s: %s", name, path, strerror(errno));
		free(path);
	}
	free(v1);
	free(v2);
	return fd;
}

static int open_one(struct counters *c, size_t e, size_t col, size_t row, const struct counters_opts *o,
		    int cgfd)
{
	struct ev *ev = &c->evl->ev[e];
	struct perf_event_attr attr = ev->attr;
	bool leader = ev->leader == e;
	int group_fd = -1;
	if (!leader) {
		group_fd = *fd_at(c, ev->leader, col, row);
		if (group_fd < 0) {
			errno = EINVAL;
			return -1;
		}
	}
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* Members follow their leader's enable state; leaders start disabled so that every
	 * counter starts at once (counters_enable or the command's exec). */
	attr.disabled = leader;
	attr.enable_on_exec = leader && o->enable_on_exec;
	attr.inherit = o->inherit;
	attr.sample_period = 0;
	attr.freq = 0;
	/* -G: the cgroup's directory stands for the task, on one CPU */
	pid_t pid = cgfd >= 0 ? cgfd : c->pids[row];
	unsigned long flags = cgfd >= 0 ? PERF_FLAG_PID_CGROUP : 0;
	int fd = pe_open(&attr, pid, c->cpus[col], group_fd, flags);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !ev->user_mods && !attr.exclude_kernel) {
		/* Kernel counting forbidden by perf_event_paranoid: fall back to user mode, as perf
		 * does, and say so once. */
		attr.exclude_kernel = attr.exclude_hv = 1;
		fd = pe_open(&attr, pid, c->cpus[col], group_fd, flags);
		if (fd >= 0) {
			ev->attr.exclude_kernel = ev->attr.exclude_hv = 1;
			c->kernel_excluded = true;
		}
	}
	*fd_at(c, e, col, row) = fd;
	return fd;
}

/* A weak group ({a,b}:W) whose member could not join it: every member becomes its own leader,
 * as perf does, and what was opened of the group is closed to be opened again one by one.
 */
static void break_weak_group(struct counters *c, size_t member)
{
	struct evlist *l = c->evl;
	size_t leader = l->ev[member].leader;
	int g = l->ev[member].group;
	for (size_t e = leader; e < l->n; e++) {
		if (l->ev[e].group != g)
			continue;
		for (size_t i = 0; i < c->ncpus * c->npids; i++) {
			int *fd = &c->fds[e * c->ncpus * c->npids + i];
			if (*fd >= 0)
				close(*fd);
			*fd = -1;
		}
		l->ev[e].group = -1;
		l->ev[e].leader = e;
		l->ev[e].weak = false;
		c->supported[e] = false;
		free(c->why[e]);
		c->why[e] = NULL;
	}
}

int counters_open(struct counters *c, struct evlist *l, const struct counters_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->evl = l;
	static const int any_cpu = -1;
	static const pid_t any_pid = -1;
	c->ncpus = o->ncpus ? o->ncpus : 1;
	c->cpus = xmalloc(c->ncpus * sizeof(int));
	memcpy(c->cpus, o->ncpus ? o->cpus : &any_cpu, c->ncpus * sizeof(int));
	c->npids = o->npids ? o->npids : 1;
	c->pids = xmalloc(c->npids * sizeof(pid_t));
	memcpy(c->pids, o->npids ? o->pids : &any_pid, c->npids * sizeof(pid_t));
	c->fds = xmalloc(l->n * c->ncpus * c->npids * sizeof(int));
	for (size_t i = 0; i < l->n * c->ncpus * c->npids; i++)
		c->fds[i] = -1;
	c->supported = xcalloc(l->n ? l->n : 1, sizeof(bool));
	c->why = xcalloc(l->n ? l->n : 1, sizeof(char *));

	size_t nopen = 0;
	char *first_error = NULL;
	bool refused = false; /* a failure other than "not supported here" (perf's list of errnos) */
	for (size_t e = 0; e < l->n; e++) {
		if (l->ev[e].source == EV_SRC_TOOL) {
			c->supported[e] = true;
			continue;
		}
		bool broken = false;
		int cgfd = -1;
		if (l->ev[e].cgroup && (cgfd = cgroup_open(l->ev[e].cgroup)) < 0) {
			counters_close(c);
			return -1;
		}
		for (size_t col = 0; col < c->ncpus && !broken; col++) {
			for (size_t row = 0; row < c->npids; row++) {
				if (open_one(c, e, col, row, o, cgfd) >= 0) {
					c->supported[e] = true;
					continue;
				}
				int saved = errno;
				if (l->ev[e].weak && l->ev[e].leader != e && saved != ESRCH) {
					broken = true;
					break;
				}
				/* A thread that exited since we listed it is not an error. */
				if (saved == ESRCH && c->npids > 1)
					continue;
				refused |= saved != EINVAL && saved != ENOSYS && saved != ENOENT &&
					   saved != EOPNOTSUPP && saved != ENXIO && saved != ENODEV;
				if (!c->why[e]) {
					pe_explain_error(&l->ev[e], saved, c->pids[row], c->cpus[col]);
					c->why[e] = xstrdup(err_msg());
				}
			}
		}
		if (cgfd >= 0)
			close(cgfd); /* the events hold the cgroup */
		if (broken) {
			size_t leader = l->ev[e].leader;
			for (size_t i = leader; i < e; i++)
				nopen -= l->ev[i].group == l->ev[e].group && c->supported[i];
			break_weak_group(c, e);
			e = leader - 1; /* the loop's e++ wraps a leader at 0 back to 0 */
			continue;
		}
		if (c->supported[e]) {
			nopen++;
			/* Partly opened (a CPU refused): keep what opened, forget the reason. */
			free(c->why[e]);
			c->why[e] = NULL;
		} else if (!first_error) {
			first_error = c->why[e];
		}
	}
	if (nopen == 0 && l->n > 0) {
		bool only_tools = true;
		for (size_t e = 0; e < l->n; e++)
			if (l->ev[e].source != EV_SRC_TOOL)
				only_tools = false;
		if (!only_tools && (refused || !o->allow_none)) {
			err_set("%s", first_error ? first_error : "no event could be opened");
			counters_close(c);
			return -1;
		}
	}
	return 0;
}

static void each_leader_ioctl(struct counters *c, unsigned long req)
{
	for (size_t e = 0; e < c->evl->n; e++) {
		if (c->evl->ev[e].leader != e)
			continue;
		for (size_t i = 0; i < c->ncpus * c->npids; i++) {
			int fd = c->fds[e * c->ncpus * c->npids + i];
			if (fd >= 0)
				ioctl(fd, req, PERF_IOC_FLAG_GROUP);
		}
	}
}

void counters_enable(struct counters *c) { each_leader_ioctl(c, PERF_EVENT_IOC_ENABLE); }
void counters_disable(struct counters *c) { each_leader_ioctl(c, PERF_EVENT_IOC_DISABLE); }

int counters_read(const struct counters *c, size_t e, size_t col, struct counter_val *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t row = 0; row < c->npids; row++) {
		struct counter_val v;
		if (counters_read_task(c, e, col, row, &v) < 0)
			return -1;
		out->val += v.val;
		out->ena += v.ena;
		out->run += v.run;
	}
	return 0;
}

int counters_read_task(const struct counters *c, size_t e, size_t col, size_t row, struct counter_val *out)
{
	memset(out, 0, sizeof(*out));
	int fd = *fd_at(c, e, col, row);
	if (fd < 0)
		return 0;
	uint64_t buf[3];
	ssize_t r;
	do
		r = read(fd, buf, sizeof(buf));
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(buf))
		return err_set("cannot read counter '%s': %s", c->evl->ev[e].name,
			       r < 0 ? strerror(errno) : "short read");
	*out = (struct counter_val){ buf[0], buf[1], buf[2] };
	return 0;
}

void counters_close(struct counters *c)
{
	if (!c->evl)
		return;
	/* Members before leaders is not required by the kernel; close in one pass. */
	for (size_t i = 0; i < c->evl->n * c->ncpus * c->npids; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	for (size_t e = 0; e < c->evl->n; e++)
		free(c->why[e]);
	free(c->why);
	free(c->supported);
	free(c->fds);
	free(c->cpus);
	free(c->pids);
	memset(c, 0, sizeof(*c));
}
