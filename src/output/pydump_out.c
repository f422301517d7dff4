#include "output/pydump_out.h"

#include <inttypes.h>

#include "output/json.h"
#include "output/pyrepr.h"

/* A frame, then (--locals) its arguments and its other locals, as py-spy dump prints them. */
static void print_frame(FILE *f, const struct pydump_frame *fr)
{
	if (fr->line >= 0)
		fprintf(f, "    %s (%s:%d)\n", fr->func, fr->file, fr->line);
	else
		fprintf(f, "    %s (%s)\n", fr->func, fr->file);
	char repr[PYREPR_MAX];
	for (int args = 1; args >= 0; args--) {
		bool head = false;
		for (size_t i = 0; i < fr->nlocals; i++) {
			const struct pylocal *l = &fr->locals[i];
			if (l->arg != (args == 1))
				continue;
			if (!head)
				fprintf(f, "        %s:\n", args ? "Arguments" : "Locals");
			head = true;
			fprintf(f, "            %s: %s\n", l->name, pyrepr_format(&l->v, repr, sizeof(repr)));
		}
	}
}

static void json_locals(struct json *j, const struct pydump_frame *fr)
{
	char repr[PYREPR_MAX];
	json_begin_array(j, "locals");
	for (size_t i = 0; i < fr->nlocals; i++) {
		const struct pylocal *l = &fr->locals[i];
		json_begin_object(j, NULL);
		json_str(j, "name", l->name);
		json_bool(j, "arg", l->arg);
		json_str(j, "type", l->v.type[0] ? l->v.type : NULL);
		json_str(j, "repr", pyrepr_format(&l->v, repr, sizeof(repr)));
		json_end_object(j);
	}
	json_end_array(j);
}

void pydump_print_text(FILE *f, const struct pydump *d)
{
	fprintf(f, "Process %d: %s\n", (int)d->pid, d->cmdline);
	fprintf(f, "Python %d.%d (%s)%s\n", d->major, d->minor, d->lib,
		d->paused ? "" : ", read without pausing (--nonblocking): stacks may be inconsistent");
	if (!d->nthreads && d->gil_only)
		fprintf(f, "\nNo thread holds the GIL%s\n", d->gil_known ? "" : " (this interpreter's GIL cannot be read)");
	else if (!d->nthreads)
		fprintf(f, "\nNo Python threads (the interpreter has not started or has finished)\n");
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct pydump_thread *t = &d->threads[i];
		const char *gil = t->gil ? "+gil" : "";
		if (t->tid)
			fprintf(f, "\nThread %d (%s%s)", (int)t->tid, t->active ? "active" : "idle", gil);
		else
			fprintf(f, "\nThread 0x%" PRIx64 " (unknown%s)", t->thread_id, gil);
		if (t->pyname[0] || t->name[0])
			fprintf(f, " [%s]", t->pyname[0] ? t->pyname : t->name);
		fputc('\n', f);
		for (size_t k = 0; k < t->nframes; k++)
			print_frame(f, &t->frames[k]);
		if (t->truncated)
			fprintf(f, "    [truncated]\n");
	}
}

void pydump_print_json(FILE *f, const struct pydump *d)
{
	struct json j;
	char ver[32];
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	json_i64(&j, "pid", d->pid);
	json_str(&j, "command", d->cmdline);
	snprintf(ver, sizeof(ver), "%d.%d", d->major, d->minor);
	json_str(&j, "python_version", ver);
	json_str(&j, "python_file", d->lib);
	json_bool(&j, "paused", d->paused);
	json_bool(&j, "gil_only", d->gil_only);
	json_begin_array(&j, "threads");
	for (size_t i = 0; i < d->nthreads; i++) {
		const struct pydump_thread *t = &d->threads[i];
		json_begin_object(&j, NULL);
		if (t->tid)
			json_i64(&j, "tid", t->tid);
		else
			json_null(&j, "tid");
		json_u64(&j, "thread_id", t->thread_id);
		json_str(&j, "name", t->pyname[0] ? t->pyname : t->tid ? t->name : NULL);
		json_str(&j, "comm", t->tid ? t->name : NULL);
		if (t->tid)
			json_bool(&j, "active", t->active);
		else
			json_null(&j, "active");
		json_bool(&j, "truncated", t->truncated);
		if (d->gil_known)
			json_bool(&j, "gil", t->gil);
		else
			json_null(&j, "gil");
		json_begin_array(&j, "frames");
		for (size_t k = 0; k < t->nframes; k++) {
			const struct pydump_frame *fr = &t->frames[k];
			json_begin_object(&j, NULL);
			json_str(&j, "function", fr->func);
			json_str(&j, "file", fr->file);
			if (d->native)
				json_bool(&j, "native", fr->native);
			if (fr->line >= 0)
				json_i64(&j, "line", fr->line);
			else
				json_null(&j, "line");
			if (d->locals)
				json_locals(&j, fr);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}
