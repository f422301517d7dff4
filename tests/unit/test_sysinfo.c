/* sysinfo: /proc/cpuinfo parsing, Arm MIDR names, the Python probe's facts, and collection
 * from a sysfs fixture tree built in a temporary directory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sysinfo/python.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char x86_cpuinfo[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 25\n"
	"model name\t: AMD EPYC 7763 64-Core Processor\n"
	"flags\t\t: fpu vme de pse\n"
	"\n"
	"processor\t: 1\n"
	"model name\t: Some Other CPU\n";

/* arm64 Linux prints no "model name"; the identity is in the MIDR fields. */
static const char arm_cpuinfo[] =
	"processor\t: 0\n"
	"BogoMIPS\t: 50.00\n"
	"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
	"CPU implementer\t: 0x41\n"
	"CPU architecture: 8\n"
	"CPU variant\t: 0x3\n"
	"CPU part\t: 0xd0c\n"
	"CPU revision\t: 1\n"
	"\n"
	"processor\t: 1\n"
	"CPU implementer\t: 0x41\n"
	"CPU part\t: 0xd49\n";

static void cpuinfo_x86(void **state)
{
	struct sysinfo_cpu cpu = { 0 };
	assert_int_equal(sysinfo_parse_cpuinfo(x86_cpuinfo, &cpu), 0);
	assert_string_equal(cpu.model, "AMD EPYC 7763 64-Core Processor");
	assert_false(cpu.have_midr);
	assert_null(cpu.product);
	sysinfo_cpu_free(&cpu);
}

static void cpuinfo_arm_first_processor_wins(void **state)
{
	struct sysinfo_cpu cpu = { 0 };
	assert_int_equal(sysinfo_parse_cpuinfo(arm_cpuinfo, &cpu), 0);
	assert_null(cpu.model);
	assert_true(cpu.have_midr);
	assert_int_equal(cpu.implementer, 0x41);
	assert_int_equal(cpu.part, 0xd0c);
	assert_int_equal(cpu.variant, 3);
	assert_int_equal(cpu.revision, 1);
	assert_int_equal(cpu.midr, 0x413fd0c1);
	assert_string_equal(cpu.product, "neoverse-n1");
	assert_string_equal(cpu.vendor, "Arm");
	assert_string_equal(cpu.midr_source, "/proc/cpuinfo");
	sysinfo_cpu_free(&cpu);
}

static void cpuinfo_bad_fields(void **state)
{
	struct sysinfo_cpu cpu = { 0 };
	assert_int_equal(sysinfo_parse_cpuinfo("CPU implementer : 0x41\nCPU part : 0xzz\n", &cpu), -1);
	assert_non_null(strstr(err_msg(), "'CPU part'"));
	assert_non_null(strstr(err_msg(), "0xzz"));
	assert_false(cpu.have_midr); /* no part, no identity */
	sysinfo_cpu_free(&cpu);

	assert_int_equal(sysinfo_parse_cpuinfo("CPU implementer : 0x141\nCPU part : 0xd0c\n", &cpu),
			 -1);
	assert_non_null(strstr(err_msg(), "'CPU implementer'"));
	sysinfo_cpu_free(&cpu);

	/* No colon, empty values, a lone key and no trailing newline are all harmless. */
	assert_int_equal(sysinfo_parse_cpuinfo("junk\n:\nmodel name:\n\n::::\nmodel name : X", &cpu),
			 0);
	assert_string_equal(cpu.model, "X");
	sysinfo_cpu_free(&cpu);
	assert_int_equal(sysinfo_parse_cpuinfo("", &cpu), 0);
	assert_null(cpu.model);
}

static void cpuinfo_control_bytes_cleaned(void **state)
{
	struct sysinfo_cpu cpu = { 0 };
	assert_int_equal(sysinfo_parse_cpuinfo("model name : A\x1b[31mB\xff\n", &cpu), 0);
	assert_string_equal(cpu.model, "A?[31mB?");
	sysinfo_cpu_free(&cpu);
}

static void midr_names(void **state)
{
	assert_string_equal(sysinfo_arm_part_name(0x41, 0xd0c), "neoverse-n1");
	assert_string_equal(sysinfo_arm_part_name(0x41, 0xd49), "neoverse-n2");
	assert_string_equal(sysinfo_arm_part_name(0x41, 0xd40), "neoverse-v1");
	assert_string_equal(sysinfo_arm_part_name(0x41, 0xd4f), "neoverse-v2");
	assert_null(sysinfo_arm_part_name(0x41, 0xfff));
	assert_null(sysinfo_arm_part_name(0x51, 0xd0c)); /* the part number belongs to Arm */
	assert_string_equal(sysinfo_arm_implementer_name(0x41), "Arm");
	assert_string_equal(sysinfo_arm_implementer_name(0xc0), "Ampere");
	assert_null(sysinfo_arm_implementer_name(0x00));
}

static void midr_decode(void **state)
{
	struct sysinfo_cpu cpu = { 0 };
	sysinfo_midr_decode(0x410fd4f0, &cpu);
	assert_int_equal(cpu.implementer, 0x41);
	assert_int_equal(cpu.part, 0xd4f);
	assert_int_equal(cpu.variant, 0);
	assert_int_equal(cpu.revision, 0);
	assert_string_equal(cpu.product, "neoverse-v2");

	sysinfo_midr_decode(0x481fd010, &cpu);
	assert_string_equal(cpu.vendor, "HiSilicon");
	assert_string_equal(cpu.product, "tsv110");
	assert_int_equal(cpu.variant, 1);

	sysinfo_midr_decode(0xff0f1230, &cpu);
	assert_null(cpu.vendor);
	assert_null(cpu.product);
}

#define FACTS_312 "version=3.12.1\nimplementation=CPython\nmachine=x86_64\nsystem=Linux\n" \
		  "perf_trampoline_config=1\nactivate_stack_trampoline=1\n"              \
		  "fno_omit_frame_pointer=0\nmno_omit_leaf_frame_pointer=0\n"

static void python_facts_312(void **state)
{
	struct pyinfo py = { 0 };
	assert_int_equal(pyinfo_parse_facts(FACTS_312, &py), 0);
	assert_string_equal(py.version, "3.12.1");
	assert_int_equal(py.major, 3);
	assert_int_equal(py.minor, 12);
	assert_true(py.perf_trampoline);
	assert_false(py.perf_jit);
	assert_false(py.frame_pointers);
	assert_true(py.has_activate);
	pyinfo_free(&py);
}

static void python_facts_313_with_fp(void **state)
{
	struct pyinfo py = { 0 };
	assert_int_equal(pyinfo_parse_facts("version=3.13.0rc1\nimplementation=CPython\n"
					    "machine=aarch64\nsystem=Linux\n"
					    "perf_trampoline_config=1\nfno_omit_frame_pointer=1\n"
					    "mno_omit_leaf_frame_pointer=1\n", &py), 0);
	assert_int_equal(py.minor, 13);
	assert_true(py.perf_trampoline);
	assert_true(py.perf_jit);
	assert_true(py.frame_pointers);
	assert_true(py.mno_omit_leaf_fp);
	pyinfo_free(&py);
}

static void python_facts_unsupported(void **state)
{
	/* Each line breaks one condition of the perf trampoline. */
	static const char *const cases[] = {
		"version=3.11.7\nimplementation=CPython\nmachine=x86_64\nsystem=Linux\n"
		"perf_trampoline_config=None\n",
		"version=3.12.1\nimplementation=PyPy\nmachine=x86_64\nsystem=Linux\n"
		"perf_trampoline_config=1\n",
		"version=3.12.1\nimplementation=CPython\nmachine=armv7l\nsystem=Linux\n"
		"perf_trampoline_config=1\n",
		"version=3.12.1\nimplementation=CPython\nmachine=x86_64\nsystem=Darwin\n"
		"perf_trampoline_config=1\n",
		"version=3.12.1\nimplementation=CPython\nmachine=x86_64\nsystem=Linux\n"
		"perf_trampoline_config=0\n",
		"version=2.7.18\nimplementation=CPython\nmachine=x86_64\nsystem=Linux\n"
		"perf_trampoline_config=None\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pyinfo py = { 0 };
		assert_int_equal(pyinfo_parse_facts(cases[i], &py), 0);
		assert_false(py.perf_trampoline);
		assert_false(py.perf_jit);
		pyinfo_free(&py);
	}
}

static void python_facts_garbage(void **state)
{
	struct pyinfo py = { 0 };
	assert_int_equal(pyinfo_parse_facts("Traceback (most recent call last):\n=\nx=y\n", &py), -1);
	assert_non_null(strstr(err_msg(), "no version"));
	pyinfo_free(&py);

	/* An unparsable version is kept as text but enables nothing. */
	assert_int_equal(pyinfo_parse_facts("version=three\nimplementation=CPython\nmachine=x86_64\n"
					    "system=Linux\nperf_trampoline_config=1\n", &py), 0);
	assert_int_equal(py.major, -1);
	assert_false(py.perf_trampoline);
	pyinfo_free(&py);

	/* Long values are cut and control bytes replaced; a repeated key keeps the last value. */
	char big[2048];
	memset(big, 'a', sizeof(big));
	memcpy(big, "version=", 8);
	big[sizeof(big) - 1] = 0;
	assert_int_equal(pyinfo_parse_facts(big, &py), 0);
	assert_int_equal(strlen(py.version), 256);
	assert_int_equal(pyinfo_parse_facts("version=3.12.1\x07\nversion=3.13.2\n", &py), 0);
	assert_string_equal(py.version, "3.13.2");
	pyinfo_free(&py);
}

/* ---- fixture trees ---- */

static char tmpdir[64];

static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	for (char *p = path + strlen(tmpdir) + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int make_tmp(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/lperf-sysinfo.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmp(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int r = system(cmd);
	free(cmd);
	unsetenv("LPERF_SYSFS_ROOT");
	return r == 0 ? 0 : -1;
}

static void collect_from_fixture(void **state)
{
	put("bus/event_source/devices/armv8_pmuv3_0/type", "8\n");
	put("bus/event_source/devices/armv8_pmuv3_0/cpus", "0-3\n");
	put("bus/event_source/devices/armv8_pmuv3_0/events/ld_spec", "event=0x70\n");
	put("bus/event_source/devices/armv8_pmuv3_0/events/inst_spec", "event=0x1b\n");
	put("bus/event_source/devices/armv8_pmuv3_0/events/inst_spec.scale", "1\n");
	put("bus/event_source/devices/armv8_pmuv3_0/caps/slots", "0x5\n");
	put("bus/event_source/devices/armv8_pmuv3_0/caps/num_counters", "6\n");
	put("bus/event_source/devices/arm_spe_0/type", "9\n");
	put("bus/event_source/devices/arm_spe_0/caps/min_interval", "256\n");
	put("bus/event_source/devices/arm_spe_0/caps/count_size", "12\n");
	put("bus/event_source/devices/arm_spe_0/format/ts_enable", "config:0\n");
	put("bus/event_source/devices/arm_spe_0/format/load_filter", "config:33\n");
	put("bus/event_source/devices/software/type", "1\n");
	put("bus/event_source/devices/broken/type", "not-a-number\n");
	put("devices/system/cpu/online", "0-3\n");
	put("devices/system/cpu/cpu0/regs/identification/midr_el1", "0x00000000410fd490\n");
	setenv("LPERF_SYSFS_ROOT", tmpdir, 1);

	struct sysinfo si;
	sysinfo_collect(&si, 0);
	assert_int_equal(si.npmus, 4);
	const struct sysinfo_pmu *arm = sysinfo_find_pmu(&si, "armv8_pmuv3_0");
	assert_non_null(arm);
	assert_true(arm->core);
	assert_int_equal(arm->type, 8);
	assert_int_equal(arm->nevents, 2);
	assert_int_equal(arm->ncaps, 2);
	assert_string_equal(arm->caps[1], "slots=0x5");
	const struct sysinfo_pmu *sw = sysinfo_find_pmu(&si, "software");
	assert_non_null(sw);
	assert_false(sw->core);
	assert_int_equal(sysinfo_find_pmu(&si, "broken")->type, -1);

	assert_non_null(si.spe);
	assert_string_equal(si.spe->name, "arm_spe_0");
	assert_false(si.spe->core);
	assert_int_equal(si.spe->ncaps, 2);
	assert_string_equal(si.spe->caps[0], "count_size=12");
	assert_int_equal(si.spe->nformats, 2);
	assert_string_equal(si.spe->formats[0], "load_filter");

	/* libpfm4 knows no Arm core on an x86 host, so there the count comes from caps/. */
	assert_true(si.gpc_num > 0);
	assert_non_null(si.gpc_source);
	if (!strncmp(si.gpc_source, "sysfs", 5)) {
		assert_int_equal(si.gpc_num, 6);
		assert_string_equal(si.gpc_source, "sysfs armv8_pmuv3_0/caps/num_counters");
	}
	assert_true(si.cpu.have_midr);
	assert_string_equal(si.cpu.product, "neoverse-n2");
	assert_string_equal(si.cpu.midr_source, "sysfs midr_el1");
	assert_int_equal(si.cpus_online, 4);
	assert_null(si.py);

	/* The broken type file is reported, naming the file. */
	bool noted = false;
	for (size_t i = 0; i < si.notes.n; i++)
		if (strstr(si.notes.v[i], "broken/type"))
			noted = true;
	assert_true(noted);

	/* With a core PMU present, a failure to open is not blamed on a missing PMU. */
	assert_null(strstr(sysinfo_open_reason(&si, ENOENT), "no hardware PMU"));
	sysinfo_free(&si);
}

/* The one CPU reader that lperf test, wperf stat and wperf man share: sysfs's MIDR_EL1 wins,
 * a value that is not 32 bits is noted (naming the file) and not decoded. */
static void read_cpu_alone(void **state)
{
	char *root = xasprintf("%s/cpu", tmpdir);
	char *rel = xasprintf("cpu/devices/system/cpu/cpu0/regs/identification/midr_el1");
	put(rel, "0x00000000410fd0c1\n");
	setenv("LPERF_SYSFS_ROOT", root, 1);
	struct sysinfo_cpu cpu;
	sysinfo_read_cpu(&cpu, NULL);
	assert_true(cpu.have_midr);
	assert_string_equal(cpu.vendor, "Arm");
	assert_string_equal(cpu.product, "neoverse-n1");
	assert_int_equal(cpu.revision, 1);
	assert_string_equal(cpu.midr_source, "sysfs midr_el1");
	assert_non_null(cpu.model);
	sysinfo_cpu_free(&cpu);

	put(rel, "0x1410fd0c1\n");
	struct notes notes = NOTES_INIT;
	sysinfo_read_cpu(&cpu, &notes);
	assert_true(notes.n >= 1);
	assert_non_null(strstr(notes_last(&notes), "midr_el1: not a 32-bit MIDR_EL1 value"));
	assert_true(!cpu.midr_source || strcmp(cpu.midr_source, "sysfs midr_el1"));
	sysinfo_cpu_free(&cpu);
	notes_clear(&notes);
	free(rel);
	free(root);
}

static void collect_empty_tree(void **state)
{
	char *root = xasprintf("%s/empty", tmpdir);
	mkdir(root, 0755);
	setenv("LPERF_SYSFS_ROOT", root, 1);
	struct sysinfo si;
	sysinfo_collect(&si, 0);
	assert_int_equal(si.npmus, 0);
	assert_null(si.spe);
	assert_null(si.tracefs);
	assert_true(si.notes.n >= 1);
	assert_string_equal(sysinfo_open_reason(&si, ENOENT),
			    "no hardware PMU exposed (virtual machine?)");
	si.paranoid.known = true;
	si.paranoid.value = 3;
	assert_non_null(strstr(sysinfo_open_reason(&si, EACCES), "perf_event_paranoid is 3"));
	assert_non_null(strstr(sysinfo_open_reason(&si, 12345), "nknown error"));
	sysinfo_free(&si);
	free(root);
}

static void paranoid_meanings(void **state)
{
	assert_string_equal(sysinfo_paranoid_meaning(-1), "no restrictions");
	assert_non_null(strstr(sysinfo_paranoid_meaning(2), "user-space"));
	assert_non_null(strstr(sysinfo_paranoid_meaning(4), "no perf events"));
}

/* Fake Pythons (shell scripts printing facts) on a private PATH and in a private pyenv root. */
static void find_fake_pythons(void **state)
{
	static const char fake312[] = "#!/bin/sh\nprintf 'version=3.12.4\\nimplementation=CPython\\n"
				      "machine=x86_64\\nsystem=Linux\\nperf_trampoline_config=1\\n'\n";
	static const char fake313[] = "#!/bin/sh\nprintf 'version=3.13.1\\nimplementation=CPython\\n"
				      "machine=x86_64\\nsystem=Linux\\nperf_trampoline_config=1\\n"
				      "fno_omit_frame_pointer=1\\n'\n";
	put("bin/python3.12", fake312);
	put("bin/python3-config", "#!/bin/sh\nexit 0\n");
	put("bin/python2", "#!/bin/sh\nexit 3\n");
	put("pyenv/versions/3.13.1/bin/python3", fake313);
	put("pyenv/versions/broken/bin/nothing", "");
	char *bin = xasprintf("%s/bin", tmpdir), *py = xasprintf("%s/python3.12", bin);
	char *link = xasprintf("%s/python3", bin), *pyenv = xasprintf("%s/pyenv", tmpdir);
	char *fake = xasprintf("%s/pyenv/versions/3.13.1/bin/python3", tmpdir);
	chmod(py, 0755);
	chmod(fake, 0755);
	char *p2 = xasprintf("%s/python2", bin);
	chmod(p2, 0755);
	assert_int_equal(symlink("python3.12", link), 0);

	char *old_path = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	char *old_root = getenv("PYENV_ROOT") ? xstrdup(getenv("PYENV_ROOT")) : NULL;
	/* The pyenv root itself on PATH is skipped (shims live there). */
	char *path = xasprintf("%s:%s/versions/3.13.1/bin:relative", bin, pyenv);
	setenv("PATH", path, 1);
	setenv("PYENV_ROOT", pyenv, 1);

	struct pyinfo *found;
	size_t n = pyinfo_find(&found);
	setenv("PATH", old_path, 1);
	if (old_root)
		setenv("PYENV_ROOT", old_root, 1);
	else
		unsetenv("PYENV_ROOT");

	/* python2 (exits 3), python3 = python3.12 (same file), and the pyenv 3.13.1. */
	assert_int_equal(n, 3);
	assert_string_equal(found[0].path, p2);
	assert_string_equal(found[0].error, "exited with status 3");
	assert_string_equal(found[1].path, link);
	assert_string_equal(found[1].source, "PATH");
	assert_null(found[1].error);
	assert_string_equal(found[1].version, "3.12.4");
	assert_true(found[1].perf_trampoline);
	assert_false(found[1].frame_pointers);
	assert_string_equal(found[2].path, fake);
	assert_string_equal(found[2].source, "pyenv");
	assert_true(found[2].perf_jit);
	assert_true(found[2].frame_pointers);
	pyinfo_free_all(found, n);

	free(bin);
	free(py);
	free(link);
	free(pyenv);
	free(fake);
	free(p2);
	free(old_path);
	free(old_root);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpuinfo_x86),
		cmocka_unit_test(cpuinfo_arm_first_processor_wins),
		cmocka_unit_test(cpuinfo_bad_fields),
		cmocka_unit_test(cpuinfo_control_bytes_cleaned),
		cmocka_unit_test(midr_names),
		cmocka_unit_test(midr_decode),
		cmocka_unit_test(python_facts_312),
		cmocka_unit_test(python_facts_313_with_fp),
		cmocka_unit_test(python_facts_unsupported),
		cmocka_unit_test(python_facts_garbage),
		cmocka_unit_test(collect_from_fixture),
		cmocka_unit_test(read_cpu_alone),
		cmocka_unit_test(collect_empty_tree),
		cmocka_unit_test(paranoid_meanings),
		cmocka_unit_test(find_fake_pythons),
	};
	return cmocka_run_group_tests(tests, make_tmp, remove_tmp);
}
