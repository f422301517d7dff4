#include "perfdata/record_switch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/error.h"
#include "util/xalloc.h"

static volatile sig_atomic_t usr2_count;

static void on_usr2(int sig)
{
	(void)sig;
	usr2_count++;
}

/* A FIFO opened read-write and non-blocking: neither waits for the other side. */
static int open_fifo(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return err_set("--control: cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode)) {
		close(fd);
		return err_set("--control: '%s' is not a FIFO", path);
	}
	return fd;
}

static int control_open(struct record_switch *s, const char *spec)
{
	if (strncmp(spec, "fifo:", 5) || !spec[5])
		return err_set("--control: '%s' is not fifo:CTL[,ACK]", spec);
	char *ctl = xstrdup(spec + 5), *ack = strchr(ctl, ',');
	if (ack)
		*ack++ = 0;
	bool want_ack = ack && *ack;
	s->ctl = open_fifo(ctl);
	if (s->ctl >= 0 && want_ack && (s->ack = open_fifo(ack)) < 0) {
		close(s->ctl);
		s->ctl = -1;
	}
	free(ctl);
	return s->ctl < 0 ? -1 : 0;
}

int record_switch_init(struct record_switch *s, const struct record_switch_opts *o, double now)
{
	memset(s, 0, sizeof(*s));
	s->o = *o;
	s->ctl = s->ack = -1;
	if (o->mode != SWITCH_NONE && !strcmp(o->output, "-"))
		return err_set("--switch-output needs a file, not -o -");
	/* SIGUSR2 switches files; without --switch-output it is ignored, as perf ignores it (a
	 * handler, not SIG_IGN, so that the command does not inherit the ignoring) */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2; /* no SA_RESTART: the ring buffers' wait ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	s->handled = (unsigned)usr2_count;
	s->next = now + o->secs;
	if (o->max_files < 0)
		return err_set("--switch-max-files: %d is not a number of files", o->max_files);
	return o->control ? control_open(s, o->control) : 0;
}

bool record_switch_due(struct record_switch *s, double now, unsigned long long bytes)
{
	const struct record_switch_opts *o = &s->o;
	if (o->mode == SWITCH_NONE)
		return false;
	if (s->snapshots || s->handled != (unsigned)usr2_count) {
		/* one file per snapshot and per signal, even when several came since the last one */
		if (s->snapshots)
			s->snapshots--;
		else
			s->handled++;
		return true;
	}
	if (o->mode == SWITCH_SIZE && bytes >= o->size)
		return true;
	if (o->mode == SWITCH_TIME && now >= s->next) {
		s->next += o->secs;
		if (s->next <= now) /* a stall longer than the period: no burst of empty files */
			s->next = now + o->secs;
		return true;
	}
	return false;
}

/* OUTPUT.YYYYMMDDHHMMSSCC, one hundredth later while the name is taken (two switches within
 * 10 ms must not replace each other's file). */
static char *stamped_name(const char *output)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	time_t sec = ts.tv_sec;
	long cs = ts.tv_nsec / 10000000L;
	for (;;) {
		struct tm tm;
		char buf[32];
		localtime_r(&sec, &tm);
		strftime(buf, sizeof(buf), "%Y%m%d%H%M%S", &tm);
		char *name = xasprintf("%s.%s%02ld", output, buf, cs);
		if (access(name, F_OK) < 0)
			return name;
		free(name);
		if (++cs == 100) {
			cs = 0;
			sec++;
		}
	}
}

char *record_switch_rename(struct record_switch *s)
{
	char *name = stamped_name(s->o.output);
	if (rename(s->o.output, name) < 0) {
		err_set("cannot rename '%s' to '%s': %s", s->o.output, name, strerror(errno));
		free(name);
		return NULL;
	}
	if (s->o.max_files > 0) {
		s->kept = xrealloc(s->kept, (s->nkept + 1) * sizeof(*s->kept));
		s->kept[s->nkept++] = xstrdup(name);
		while (s->nkept > (size_t)s->o.max_files) {
			unlink(s->kept[0]);
			free(s->kept[0]);
			memmove(s->kept, s->kept + 1, --s->nkept * sizeof(*s->kept));
		}
	}
	return name;
}

static void control_command(struct record_switch *s, const char *cmd,
			    void (*toggle)(void *arg, bool on), void *arg)
{
	if (!strcmp(cmd, "enable"))
		toggle(arg, true);
	else if (!strcmp(cmd, "disable"))
		toggle(arg, false);
	else if (!strcmp(cmd, "snapshot"))
		s->snapshots += s->o.mode != SWITCH_NONE;
	else if (!strcmp(cmd, "stop"))
		kill(getpid(), SIGTERM);
	else if (strcmp(cmd, "ping"))
		return; /* unknown: not acknowledged, as perf does */
	if (s->ack >= 0 && write(s->ack, "ack\n", 4) < 0) {
		/* a full ack FIFO nobody reads: the answer is dropped */
	}
}

void record_switch_control(struct record_switch *s, void (*toggle)(void *arg, bool on), void *arg)
{
	if (s->ctl < 0)
		return;
	char buf[256];
	/* one read a call (each loop's turn): a client that writes its next command as soon as the
	 * last is acknowledged is answered in turn with the loop, not kept in this read */
	ssize_t n = read(s->ctl, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		/* commands end with a newline or a NUL; one read may bring several */
		for (char *p = buf, *end; p < buf + n; p = end + 1) {
			end = p + strcspn(p, "\n");
			*end = 0;
			if (*p)
				control_command(s, p, toggle, arg);
		}
	}
}

void record_switch_free(struct record_switch *s)
{
	for (size_t i = 0; i < s->nkept; i++)
		free(s->kept[i]);
	free(s->kept);
	if (s->ctl >= 0)
		close(s->ctl);
	if (s->ack >= 0)
		close(s->ack);
	memset(s, 0, sizeof(*s));
	s->ctl = s->ack = -1;
}

void record_hold_init(struct record_hold *h, size_t limit)
{
	memset(h, 0, sizeof(*h));
	h->limit = limit;
}

static void hold_drop_oldest(struct record_hold *h)
{
	struct perf_event_header *old = h->v[h->head];
	h->bytes -= old->size;
	free(old);
	h->head = (h->head + 1) % h->cap;
	h->n--;
	h->dropped++;
}

int record_hold_push(const struct perf_event_header *rec, void *arg)
{
	struct record_hold *h = arg;
	if (h->n == h->cap) { /* grow the queue, unrolled to start at 0 */
		size_t cap = h->cap ? h->cap * 2 : 1024;
		struct perf_event_header **v = xcalloc(cap, sizeof(*v));
		for (size_t i = 0; i < h->n; i++)
			v[i] = h->v[(h->head + i) % h->cap];
		free(h->v);
		h->v = v;
		h->cap = cap;
		h->head = 0;
	}
	struct perf_event_header *copy = xmalloc(rec->size);
	memcpy(copy, rec, rec->size);
	h->v[(h->head + h->n) % h->cap] = copy;
	h->n++;
	h->bytes += rec->size;
	while (h->bytes > h->limit && h->n > 1)
		hold_drop_oldest(h);
	return 0;
}

int record_hold_flush(struct record_hold *h, record_cb sink, void *arg)
{
	int rc = 0;
	while (h->n) {
		struct perf_event_header *rec = h->v[h->head];
		if (rc == 0 && sink && sink(rec, arg) < 0)
			rc = -1;
		h->bytes -= rec->size;
		free(rec);
		h->head = (h->head + 1) % h->cap;
		h->n--;
	}
	return rc;
}

void record_hold_free(struct record_hold *h)
{
	record_hold_flush(h, NULL, NULL);
	free(h->v);
	memset(h, 0, sizeof(*h));
}
