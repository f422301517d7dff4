#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/notes.h"

static _Thread_local char last_error[1024];
int err_quiet;
int err_no_hints;
int err_perf_name;

int err_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return -1;
}

int err_wrap(const char *fmt, ...)
{
	char prefix[512], old[sizeof(last_error)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, last_error, sizeof(old));
	size_t n = strlen(prefix);
	if (n + 2 >= sizeof(last_error))
		n = sizeof(last_error) - 3;
	memcpy(last_error, prefix, n);
	memcpy(last_error + n, ": ", 2);
	size_t room = sizeof(last_error) - n - 3;
	size_t m = strnlen(old, room);
	memcpy(last_error + n + 2, old, m);
	last_error[n + 2 + m] = 0;
	return -1;
}

const char *err_msg(void)
{
	return last_error[0] ? last_error : "unknown error";
}

void err_clear(void)
{
	last_error[0] = 0;
}

static void vprint(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("lperf: ", stderr);
	if (kind)
		fputs(kind, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void err_die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprint(NULL, fmt, ap);
	va_end(ap);
	err_exit(code);
}

static void (*exit_fn)(void *);
static void *exit_arg;

void err_at_exit(void (*fn)(void *), void *arg)
{
	exit_fn = fn;
	exit_arg = arg;
}

void err_exit(int code)
{
	void (*fn)(void *) = exit_fn;
	exit_fn = NULL;
	if (fn)
		fn(exit_arg);
	fflush(NULL);
	_exit(code);
}

void err_die_last(int code)
{
	err_die(code, "%s", err_msg());
}

void err_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprint("warning: ", fmt, ap);
	va_end(ap);
}

void err_note(const char *fmt, ...)
{
	if (err_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprint("note: ", fmt, ap);
	va_end(ap);
}

void err_hint(const char *fmt, ...)
{
	if (err_quiet || err_no_hints)
		return;
	va_list ap;
	va_start(ap, fmt);
	vprint("hint: ", fmt, ap);
	va_end(ap);
}

void err_print_notes(const struct notes *ns)
{
	for (size_t i = 0; i < ns->n; i++) {
		if (notes_level(ns, i) == NOTES_NOTE)
			err_note("%s", ns->v[i]);
		else if (notes_level(ns, i) == NOTES_WARNING)
			err_warn("%s", ns->v[i]);
	}
	for (size_t i = 0; i < ns->n; i++)
		if (notes_level(ns, i) == NOTES_HINT)
			err_hint("%s", ns->v[i]);
}
