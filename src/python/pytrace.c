#include "python/pytrace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "python/pyclock.h"
#include "util/xalloc.h"

void pytrace_close(struct pytrace_thread *t)
{
	if (t->schedstat_fd >= 0)
		close(t->schedstat_fd);
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	if (t->clock_fd >= 0)
		close(t->clock_fd);
	t->schedstat_fd = t->stat_fd = t->clock_fd = -1;
}

/* The thread's CPU time (ns), or UINT64_MAX when it cannot be read (gone). */
uint64_t pytrace_cpu(const struct pytrace_thread *t)
{
	char buf[96];
	ssize_t n = t->schedstat_fd >= 0 ? pread(t->schedstat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = 0;
	return strtoull(buf, NULL, 10);
}

/* Its state (/proc's stat, field 3: 'R' running or runnable, '?' unreadable) and the CPU it ran
 * on last (field 39). */
char pytrace_state(const struct pytrace_thread *t, uint32_t *cpu)
{
	char buf[1024];
	*cpu = 0;
	ssize_t n = t->stat_fd >= 0 ? pread(t->stat_fd, buf, sizeof(buf) - 1, 0) : -1;
	if (n <= 0)
		return '?';
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return '?';
	char state = p[2];
	/* fields from 3 (state) on follow the command's closing parenthesis */
	for (int field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	*cpu = p ? (uint32_t)strtoul(p + 1, NULL, 10) : 0;
	return state;
}


/* The threads traced, sorted by tid: where tid is or would go. */
static size_t pos(const struct pytrace_table *tab, pid_t tid)
{
	size_t lo = 0, hi = tab->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tab->v[mid]->tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct pytrace_thread *pytrace_find(const struct pytrace_table *tab, pid_t tid)
{
	size_t i = pos(tab, tid);
	return i < tab->n && tab->v[i]->tid == tid ? tab->v[i] : NULL;
}

/* Takes on tid, a thread of p (seized here when seize, else traced already: a clone of a traced
 * thread), with its CPU-time alarm. NULL (errno) when it cannot be seized. */
struct pytrace_thread *pytrace_add(struct pytrace_table *tab, struct pytrace_proc *p, pid_t tid, bool seize,
				   uint64_t due)
{
	if (seize && ptrace(PTRACE_SEIZE, tid, NULL, (void *)(uintptr_t)PTRACE_O_TRACECLONE) < 0)
		return NULL;
	struct pytrace_thread *t = xcalloc(1, sizeof(*t));
	t->tid = tid;
	t->p = p;
	char path[80];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)p->pid, (int)tid);
	t->schedstat_fd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)p->pid, (int)tid);
	t->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	t->cpu_ns = t->tick_cpu = pytrace_cpu(t);
	t->due_ns = due;
	t->clock_fd = pyclock_open(tid, t->due_ns, &tab->user_only);
	ALLOC_GROW(p->t, p->n + 1, p->cap);
	p->t[p->n++] = t;
	p->traced = true;
	size_t i = pos(tab, tid);
	ALLOC_GROW(tab->v, tab->n + 1, tab->cap);
	memmove(&tab->v[i + 1], &tab->v[i], (tab->n - i) * sizeof(*tab->v));
	tab->v[i] = t;
	tab->n++;
	return t;
}

/* Forgets a thread gone (or detached). */
void pytrace_forget(struct pytrace_table *tab, struct pytrace_thread *t)
{
	size_t i = pos(tab, t->tid);
	if (i < tab->n && tab->v[i] == t) {
		memmove(&tab->v[i], &tab->v[i + 1], (tab->n - i - 1) * sizeof(*tab->v));
		tab->n--;
	}
	struct pytrace_proc *p = t->p;
	for (size_t k = 0; k < p->n; k++)
		if (p->t[k] == t) {
			p->t[k] = p->t[--p->n];
			break;
		}
	pytrace_close(t);
	free(t);
}


