/* lperf test's report: one "Test Name / Result" row per fact about this machine, in plain words
 * (WindowsPerf's wperf test), and the same facts as JSON sections (docs/schemas/test.schema.json). */
#include "output/test_out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "spe/spe.h"
#include "sysinfo/buildinfo.h"
#include "output/table.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static void row(struct test_rows *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void row(struct test_rows *r, const char *name, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ALLOC_GROW(r->row, r->n + 1, r->cap);
	r->row[r->n].name = xstrdup(name);
	r->row[r->n++].result = xstrdup(buf);
}

void test_rows_free(struct test_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->row[i].name);
		free(r->row[i].result);
	}
	free(r->row);
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static bool privileged(const struct sysinfo *si)
{
	return si->root || si->cap_perfmon || si->cap_sys_admin;
}

static void knob_row(struct test_rows *r, const char *name, const struct sysinfo_knob *k,
		     const char *meaning)
{
	if (!k->known)
		row(r, name, "unknown (cannot read /proc/sys/kernel/%s)", name + strlen("kernel."));
	else if (meaning)
		row(r, name, "%ld (%s)", k->value, meaning);
	else
		row(r, name, "%ld", k->value);
}

static const char *kptr_meaning(long v)
{
	switch (v) {
	case 0:
		return "kernel addresses visible";
	case 1:
		return "kernel addresses hidden from unprivileged users";
	default:
		return "kernel addresses hidden from everyone: no kernel symbols";
	}
}

static void probe_row(struct test_rows *r, const struct sysinfo *si, const char *name,
		      const struct sysinfo_probe *p)
{
	if (p->ok)
		row(r, name, "opens");
	else
		row(r, name, "cannot open: %s [%s]", sysinfo_open_reason(si, p->err), strerror(p->err));
}

static void pmu_rows(struct test_rows *r, const struct sysinfo *si, int verbose)
{
	struct strbuf all = STRBUF_INIT, core = STRBUF_INIT;
	for (size_t i = 0; i < si->npmus; i++) {
		const struct sysinfo_pmu *p = &si->pmus[i];
		sb_addf(&all, "%s%s", all.len ? ", " : "", p->name);
		if (p->core)
			sb_addf(&core, "%s%s (type %ld, %zu events)", core.len ? ", " : "", p->name,
				p->type, p->nevents);
	}
	row(r, "pmu.sysfs", "%s", si->npmus ? sb_str(&all) : "none");
	row(r, "pmu.sysfs.core", "%s", core.len ? sb_str(&core) : "none: no hardware PMU exposed");
	for (size_t i = 0; verbose && i < si->npmus; i++) {
		const struct sysinfo_pmu *p = &si->pmus[i];
		char *name = xasprintf("pmu.sysfs.%s", p->name);
		struct strbuf sb = STRBUF_INIT;
		sb_addf(&sb, "type %ld%s, %zu events", p->type, p->core ? ", core" : "", p->nevents);
		for (size_t c = 0; c < p->ncaps; c++)
			sb_addf(&sb, "%s%s", c ? ", " : "; caps: ", p->caps[c]);
		row(r, name, "%s", sb_str(&sb));
		sb_release(&sb);
		free(name);
	}
	sb_reset(&all);
	sb_reset(&core);

	if (!si->pfm_ok) {
		row(r, "pmu.libpfm4", "unavailable: %s", si->pfm_error ? si->pfm_error : "?");
	} else {
		for (size_t i = 0; i < si->npfm; i++) {
			const struct sysinfo_pfm_pmu *p = &si->pfm[i];
			sb_addf(&all, "%s%s", all.len ? ", " : "", p->name);
			if (p->core)
				sb_addf(&core, "%s%s (%d counters, %d fixed)", core.len ? ", " : "",
					p->name, p->num_cntrs, p->num_fixed_cntrs);
		}
		row(r, "pmu.libpfm4", "%s", si->npfm ? sb_str(&all) : "none detected");
		row(r, "pmu.libpfm4.core", "%s", core.len ? sb_str(&core) : "none detected");
		for (size_t i = 0; verbose && i < si->npfm; i++) {
			const struct sysinfo_pfm_pmu *p = &si->pfm[i];
			char *name = xasprintf("pmu.libpfm4.%s", p->name);
			row(r, name, "%s: %d counters, %d fixed, %d events", p->desc, p->num_cntrs,
			    p->num_fixed_cntrs, p->nevents);
			free(name);
		}
	}
	sb_release(&all);
	sb_release(&core);

	if (si->gpc_num >= 0)
		row(r, "pmu.gpc_num", "%d (from %s)", si->gpc_num, si->gpc_source);
	else
		row(r, "pmu.gpc_num", "unknown (no core PMU known to libpfm4 or sysfs)");
}

static void spe_rows(struct test_rows *r, const struct sysinfo *si)
{
	if (!si->spe) {
		row(r, "arm_spe", "not present");
		row(r, "spe_device.version_name", "not present");
		return;
	}
	row(r, "arm_spe", "%s (type %ld)", si->spe->name, si->spe->type);
	struct strbuf sb = STRBUF_INIT;
	for (size_t c = 0; c < si->spe->ncaps; c++)
		sb_addf(&sb, "%s%s", c ? ", " : "", si->spe->caps[c]);
	row(r, "arm_spe.caps", "%s", sb.len ? sb_str(&sb) : "none");
	sb_reset(&sb);
	for (size_t c = 0; c < si->spe->nformats; c++)
		sb_addf(&sb, "%s%s", c ? ", " : "", si->spe->formats[c]);
	row(r, "arm_spe.filters", "%s", sb.len ? sb_str(&sb) : "none");
	sb_release(&sb);
	/* WindowsPerf's row; Linux has no PMSVer, so it is the least version sysfs implies */
	row(r, "spe_device.version_name", "%s", spe_version_name(spe_version_infer(
		si->spe->formats, si->spe->nformats, si->spe->caps, si->spe->ncaps)));
}

static void python_rows(struct test_rows *r, const struct sysinfo *si, int verbose, const char *const *stacks)
{
	if (!stacks) {
		row(r, "python", "not searched (--no-python)");
		return;
	}
	if (!si->npy) {
		row(r, "python", "none found on PATH or in pyenv");
		return;
	}
	for (size_t i = 0; i < si->npy; i++) {
		const struct pyinfo *py = &si->py[i];
		char *name = xasprintf("python.%s", py->version ? py->version : "?");
		if (py->error || !stacks[i])
			row(r, name, "%s (%s): %s", py->path, py->source, py->error);
		else
			row(r, name, "%s (%s): perf trampoline %s, perf_jit %s, frame pointers %s; stacks: %s%s%s",
			    py->path, py->source, yes_no(py->perf_trampoline), yes_no(py->perf_jit),
			    yes_no(py->frame_pointers), stacks[i],
			    verbose ? "; realpath " : "", verbose ? py->realpath : "");
		free(name);
	}
}

void test_rows_build(struct test_rows *r, const struct sysinfo *si, int verbose, const char *const *py_stacks)
{
	row(r, "lperf.version", "%s (%s)", sysinfo_version(), sysinfo_gitrev());
	if (strcmp(sysfs_root(), "/sys"))
		row(r, "sysfs.root", "%s (from LPERF_SYSFS_ROOT: PMU rows describe this tree, "
		    "event probes the real kernel)", sysfs_root());
	row(r, "kernel.release", "%s", si->kernel_release ? si->kernel_release : "unknown");
	row(r, "kernel.version", "%s", si->kernel_version ? si->kernel_version : "unknown");
	row(r, "machine.arch", "%s", si->machine ? si->machine : "unknown");
	row(r, "cpu.model", "%s", si->cpu.model ? si->cpu.model : "unknown");
	if (si->cpu.have_midr) {
		const struct sysinfo_cpu *c = &si->cpu;
		row(r, "cpu.midr", "0x%08llx (implementer 0x%02x %s, part 0x%03x %s, r%up%u; from %s)",
		    (unsigned long long)c->midr, c->implementer, c->vendor ? c->vendor : "unknown",
		    c->part, c->product ? c->product : "unknown", c->variant, c->revision,
		    c->midr_source);
		row(r, "cpu.product", "%s", c->product ? c->product : "unknown (generic armv8-a tables)");
	}
	if (si->cpus_online >= 0)
		row(r, "cpu.online", "%ld", si->cpus_online);
	else
		row(r, "cpu.online", "unknown");

	char meaning[160] = "";
	if (si->paranoid.known)
		snprintf(meaning, sizeof(meaning), "%s%s", sysinfo_paranoid_meaning(si->paranoid.value),
			 privileged(si) ? "; does not limit lperf, which runs privileged" : "");
	knob_row(r, "kernel.perf_event_paranoid", &si->paranoid, meaning);
	knob_row(r, "kernel.kptr_restrict", &si->kptr_restrict,
		 si->kptr_restrict.known ? kptr_meaning(si->kptr_restrict.value) : NULL);
	knob_row(r, "kernel.perf_event_mlock_kb", &si->mlock_kb, NULL);
	knob_row(r, "kernel.perf_event_max_sample_rate", &si->max_sample_rate, NULL);
	knob_row(r, "kernel.perf_event_max_stack", &si->max_stack, NULL);
	row(r, "user.root", "%s", yes_no(si->root));
	row(r, "user.cap_perfmon", "%s", yes_no(si->cap_perfmon));
	row(r, "user.cap_sys_admin", "%s", yes_no(si->cap_sys_admin));

	pmu_rows(r, si, verbose);
	probe_row(r, si, "hardware_event.cycles", &si->hw_cycles);
	probe_row(r, si, "software_event.cpu-clock", &si->sw_clock);
	if (si->tracefs)
		row(r, "tracefs", "%s", si->tracefs);
	else if (si->tracefs_denied)
		row(r, "tracefs", "%s not readable (mounted, root only): no tracepoints; "
		    "'sudo mount -o remount,mode=755 %s' permits them", si->tracefs_denied, si->tracefs_denied);
	else
		row(r, "tracefs", "%s", "not mounted: no tracepoints");
	spe_rows(r, si);
	python_rows(r, si, verbose, py_stacks);
	for (size_t i = 0; i < si->notes.n; i++)
		row(r, "warning", "%s", si->notes.v[i]);
}

/* ---- JSON ---- */

static void json_knob(struct json *j, const char *key, const struct sysinfo_knob *k)
{
	if (k->known)
		json_i64(j, key, k->value);
	else
		json_null(j, key);
}

static void json_probe(struct json *j, const struct sysinfo *si, const char *key,
		       const char *event, const struct sysinfo_probe *p)
{
	json_begin_object(j, key);
	json_str(j, "event", event);
	json_bool(j, "opens", p->ok);
	if (p->ok) {
		json_null(j, "errno");
		json_null(j, "error");
		json_null(j, "reason");
	} else {
		json_i64(j, "errno", p->err);
		json_str(j, "error", strerror(p->err));
		json_str(j, "reason", sysinfo_open_reason(si, p->err));
	}
	json_end_object(j);
}

static void json_caps(struct json *j, char **caps, size_t n)
{
	json_begin_object(j, "caps");
	for (size_t c = 0; c < n; c++) {
		char *k = xstrdup(caps[c]), *eq = strchr(k, '=');
		if (eq)
			*eq = 0;
		json_str(j, k, eq ? eq + 1 : "");
		free(k);
	}
	json_end_object(j);
}

static void json_pmus(struct json *j, const struct sysinfo *si)
{
	json_begin_array(j, "pmus");
	for (size_t i = 0; i < si->npmus; i++) {
		const struct sysinfo_pmu *p = &si->pmus[i];
		json_begin_object(j, NULL);
		json_str(j, "name", p->name);
		if (p->type >= 0)
			json_i64(j, "type", p->type);
		else
			json_null(j, "type");
		json_bool(j, "core", p->core);
		json_u64(j, "events", p->nevents);
		json_caps(j, p->caps, p->ncaps);
		json_begin_array(j, "formats");
		for (size_t f = 0; f < p->nformats; f++)
			json_str(j, NULL, p->formats[f]);
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);

	json_begin_object(j, "libpfm4");
	json_bool(j, "available", si->pfm_ok);
	json_str(j, "error", si->pfm_error);
	json_begin_array(j, "pmus");
	for (size_t i = 0; i < si->npfm; i++) {
		const struct sysinfo_pfm_pmu *p = &si->pfm[i];
		json_begin_object(j, NULL);
		json_str(j, "name", p->name);
		json_str(j, "description", p->desc);
		json_bool(j, "core", p->core);
		json_i64(j, "num_cntrs", p->num_cntrs);
		json_i64(j, "num_fixed_cntrs", p->num_fixed_cntrs);
		json_i64(j, "events", p->nevents);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
	if (si->gpc_num >= 0)
		json_i64(j, "gpc_num", si->gpc_num);
	else
		json_null(j, "gpc_num");
	json_str(j, "gpc_source", si->gpc_source);
}

static void json_cpu(struct json *j, const struct sysinfo *si)
{
	const struct sysinfo_cpu *c = &si->cpu;
	json_begin_object(j, "cpu");
	json_str(j, "model", c->model);
	if (si->cpus_online >= 0)
		json_i64(j, "online", si->cpus_online);
	else
		json_null(j, "online");
	if (c->have_midr) {
		char hex[32];
		snprintf(hex, sizeof(hex), "0x%08llx", (unsigned long long)c->midr);
		json_begin_object(j, "midr");
		json_str(j, "value", hex);
		json_u64(j, "implementer", c->implementer);
		json_u64(j, "variant", c->variant);
		json_u64(j, "part", c->part);
		json_u64(j, "revision", c->revision);
		json_str(j, "vendor", c->vendor);
		json_str(j, "product", c->product);
		json_str(j, "source", c->midr_source);
		json_end_object(j);
	} else {
		json_null(j, "midr");
	}
	json_end_object(j);
}

static void json_pythons(struct json *j, const struct sysinfo *si)
{
	json_begin_array(j, "pythons");
	for (size_t i = 0; i < si->npy; i++) {
		const struct pyinfo *py = &si->py[i];
		json_begin_object(j, NULL);
		json_str(j, "path", py->path);
		json_str(j, "realpath", py->realpath);
		json_str(j, "source", py->source);
		json_str(j, "version", py->version);
		json_str(j, "implementation", py->implementation);
		json_str(j, "machine", py->machine);
		json_bool(j, "perf_trampoline", py->perf_trampoline);
		json_bool(j, "perf_jit", py->perf_jit);
		json_bool(j, "frame_pointers", py->frame_pointers);
		json_bool(j, "leaf_frame_pointers", py->mno_omit_leaf_fp);
		json_str(j, "error", py->error);
		json_end_object(j);
	}
	json_end_array(j);
}

void test_print_json(FILE *f, const struct test_rows *r, const struct sysinfo *si)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	json_begin_array(&j, "Test_Results");
	for (size_t i = 0; i < r->n; i++) {
		json_begin_object(&j, NULL);
		json_str(&j, "Test_Name", r->row[i].name);
		json_str(&j, "Result", r->row[i].result);
		json_end_object(&j);
	}
	json_end_array(&j);

	json_begin_object(&j, "lperf");
	json_str(&j, "version", sysinfo_version());
	json_str(&j, "gitrev", sysinfo_gitrev());
	json_end_object(&j);
	json_begin_object(&j, "kernel");
	json_str(&j, "release", si->kernel_release);
	json_str(&j, "version", si->kernel_version);
	json_str(&j, "arch", si->machine);
	json_knob(&j, "perf_event_paranoid", &si->paranoid);
	json_knob(&j, "kptr_restrict", &si->kptr_restrict);
	json_knob(&j, "perf_event_mlock_kb", &si->mlock_kb);
	json_knob(&j, "perf_event_max_sample_rate", &si->max_sample_rate);
	json_knob(&j, "perf_event_max_stack", &si->max_stack);
	json_str(&j, "tracefs", si->tracefs);
	json_end_object(&j);
	json_cpu(&j, si);
	json_begin_object(&j, "privileges");
	json_bool(&j, "root", si->root);
	json_bool(&j, "cap_perfmon", si->cap_perfmon);
	json_bool(&j, "cap_sys_admin", si->cap_sys_admin);
	json_end_object(&j);
	json_pmus(&j, si);
	json_probe(&j, si, "hardware_event", "cycles", &si->hw_cycles);
	json_probe(&j, si, "software_event", "cpu-clock", &si->sw_clock);
	if (si->spe) {
		json_begin_object(&j, "arm_spe");
		json_str(&j, "name", si->spe->name);
		json_i64(&j, "type", si->spe->type);
		json_str(&j, "version_name", spe_version_name(spe_version_infer(
			si->spe->formats, si->spe->nformats, si->spe->caps, si->spe->ncaps)));
		json_caps(&j, si->spe->caps, si->spe->ncaps);
		json_begin_array(&j, "filters");
		for (size_t k = 0; k < si->spe->nformats; k++)
			json_str(&j, NULL, si->spe->formats[k]);
		json_end_array(&j);
		json_end_object(&j);
	} else {
		json_null(&j, "arm_spe");
	}
	json_pythons(&j, si);
	json_begin_array(&j, "warnings");
	for (size_t i = 0; i < si->notes.n; i++)
		json_str(&j, NULL, si->notes.v[i]);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
}

int test_write_json_file(const char *path, const struct test_rows *r, const struct sysinfo *si)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return err_set("cannot write '%s': %s", path, strerror(errno));
	test_print_json(f, r, si);
	fclose(f);
	int ret = outfile_write(path, buf, len, 0644);
	free(buf);
	return ret;
}

void test_print_table(FILE *f, const struct test_rows *r)
{
	static const char *const cols[] = { "Test Name", "Result" };
	struct table t;
	table_init(&t, 2, cols);
	t.indent = 8;
	t.underline = true;
	for (size_t k = 0; k < r->n; k++)
		table_rowv(&t, r->row[k].name, r->row[k].result);
	table_print(&t, f);
	table_free(&t);
}
