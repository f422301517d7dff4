/* libpfm4 names, with LIBPFM_FORCE_PMU choosing the tables (libpfm reads it when it
 * initializes, so main() sets it before anything touches libpfm). The sysfs root is the VM
 * fixture: no core PMU, so libpfm is the only source for these names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "events/evlist.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "events_test.h"

static int setup_skx(void **state)
{
	use_sysfs("sysfs-vm");
	return 0;
}

static void test_skx_encoding(void **state)
{
	struct ev ev;
	resolve_ok("INST_RETIRED:ANY_P", &ev);
	assert_int_equal(ev.source, EV_SRC_PFM);
	assert_int_equal(ev.attr.type, PERF_TYPE_RAW);
	assert_int_equal(ev.attr.config, 0xc0);
	assert_string_equal(ev.pmu, "skx");
	assert_string_equal(ev.base, "INST_RETIRED:ANY_P");
	assert_true(ev.needs_hw);
	assert_int_equal(strncmp(ev.encoding, "skx::INST_RETIRED:ANY_P", 23), 0);
	/* both privilege levels unless the user says otherwise */
	assert_int_equal(ev.attr.exclude_user, 0);
	assert_int_equal(ev.attr.exclude_kernel, 0);
	assert_false(ev.user_mods);
	assert_int_equal(ev.attr.size, sizeof(ev.attr));
	ev_free(&ev);
	expect_type_config("inst_retired:any_p", PERF_TYPE_RAW, 0xc0);
	expect_type_config("skx::INST_RETIRED:ANY_P", PERF_TYPE_RAW, 0xc0);
	expect_type_config("UOPS_ISSUED:ANY:c=1", PERF_TYPE_RAW, 0x100010e);
	/* generic names come first, libpfm last */
	expect_type_config("cycles", PERF_TYPE_HARDWARE, 0);
	expect_type_config("instructions", PERF_TYPE_HARDWARE, 1);
}

static void test_skx_modifiers(void **state)
{
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "INST_RETIRED:ANY_P:u,INST_RETIRED:ANY_P:k:100000,"
				      "{UOPS_ISSUED:ANY,INST_RETIRED:ANY_P}:uk"), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.ev[0].name, "INST_RETIRED:ANY_P:u");
	assert_string_equal(l.ev[0].base, "INST_RETIRED:ANY_P");
	assert_int_equal(l.ev[0].attr.exclude_kernel, 1);
	assert_int_equal(l.ev[0].attr.exclude_hv, 1);
	assert_int_equal(l.ev[0].attr.exclude_user, 0);
	assert_true(l.ev[0].user_mods);
	assert_int_equal(l.ev[1].attr.exclude_user, 1);
	assert_int_equal(l.ev[1].period, 100000);
	assert_int_equal(l.ngroups, 1);
	assert_int_equal(l.ev[3].leader, 2);
	assert_int_equal(l.ev[3].attr.exclude_user, 0);
	assert_int_equal(l.ev[3].attr.exclude_kernel, 0);
	assert_int_equal(l.ev[3].attr.exclude_hv, 1);
	evlist_free(&l);

	/* libpfm's own level attributes count as the user's choice */
	struct ev ev;
	resolve_ok("INST_RETIRED:ANY_P:k=1:u=0", &ev);
	assert_int_equal(ev.attr.exclude_user, 1);
	assert_int_equal(ev.attr.exclude_kernel, 0);
	assert_true(ev.user_mods);
	ev_free(&ev);
}

static void test_skx_errors(void **state)
{
	struct ev ev;
	assert_int_equal(ev_resolve("INST_RETIRED:ANY_Q", &ev), -1);
	expect_in(err_msg(), "libpfm4 cannot encode 'INST_RETIRED:ANY_Q'");
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "INST_RETIRED:ANY_Q:u"), -1);
	expect_in(err_msg(), "libpfm4");
	assert_int_equal(evlist_parse(&l, "INST_RETIRED:ANY_P:x"), -1);
	expect_in(err_msg(), "invalid modifier 'x'");
	assert_int_equal(ev_resolve("INST_RETIRD:ANY_P", &ev), -1);
	expect_in(err_msg(), "unknown event 'INST_RETIRD:ANY_P'; did you mean 'INST_RETIRED:ANY_P'");
	/* libpfm's copies of perf's generic names are not a way around lperf's modifiers */
	assert_int_equal(evlist_parse(&l, "cycles:U"), -1);
	expect_in(err_msg(), "invalid modifier 'U'");
	assert_int_equal(l.n, 0);
}

static void test_skx_catalog(void **state)
{
	struct ev_catalog c;
	assert_int_equal(ev_catalog_build(&c, true, false), 0);
	size_t npfm = 0;
	const struct ev_info *found = NULL;
	for (size_t i = 0; i < c.n; i++) {
		if (strcmp(c.info[i].section, "libpfm4"))
			continue;
		npfm++;
		assert_string_equal(c.info[i].pmu, "skx");
		assert_false(c.info[i].usable); /* the VM fixture has no core PMU */
		if (!strcmp(c.info[i].name, "INST_RETIRED:ANY_P"))
			found = &c.info[i];
	}
	assert_true(npfm > 100);
	assert_non_null(found);
	assert_int_equal(found->type, PERF_TYPE_RAW);
	assert_int_equal(found->config, 0xc0);
	assert_non_null(found->desc);
	ev_catalog_free(&c);

	/* without include_pfm, no libpfm entries */
	assert_int_equal(ev_catalog_build(&c, false, false), 0);
	for (size_t i = 0; i < c.n; i++)
		assert_string_not_equal(c.info[i].section, "libpfm4");
	ev_catalog_free(&c);
}

/* libpfm keeps the PMUs it detected for the life of the process, so other forced PMUs are
 * checked in a fresh copy of this program ("--forced PMU", see main). */
static int forced_child(const char *pmu)
{
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	use_sysfs("sysfs-vm");
	struct ev ev;
	if (!strcmp(pmu, "amd64_fam19h_zen3")) {
		if (ev_resolve("RETIRED_INSTRUCTIONS", &ev) < 0) {
			fprintf(stderr, "zen3: %s\n", err_msg());
			return 1;
		}
		int ok = ev.attr.type == PERF_TYPE_RAW && ev.attr.config == 0xc0 &&
			 !strcmp(ev.pmu, "amd64_fam19h_zen3") && ev.source == EV_SRC_PFM;
		ev_free(&ev);
		/* another vendor's names are not known */
		ok = ok && ev_resolve("INST_RETIRED:ANY_P", &ev) < 0;
		return !ok;
	}
	/* an unknown forced PMU: libpfm knows nothing, everything else still works */
	if (ev_resolve("INST_RETIRED:ANY_P", &ev) == 0 ||
	    !strstr(err_msg(), "unknown event 'INST_RETIRED:ANY_P'"))
		return 1;
	if (ev_resolve("cycles", &ev) < 0)
		return 1;
	ev_free(&ev);
	struct ev_catalog c;
	ev_catalog_build(&c, true, false);
	for (size_t i = 0; i < c.n; i++)
		if (!strcmp(c.info[i].section, "libpfm4"))
			return 1;
	ev_catalog_free(&c);
	return 0;
}

static const char *self_path; /* argv[0]: /proc/self/exe would be valgrind under valgrind */

static void run_forced(const char *pmu)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(self_path, self_path, "--forced", pmu, (char *)NULL);
		_exit(127);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status))
		fail_msg("LIBPFM_FORCE_PMU=%s: checks failed (exit %d)", pmu, WEXITSTATUS(status));
}

static void test_zen3(void **state)
{
	run_forced("amd64_fam19h_zen3");
}

static void test_no_such_pmu(void **state)
{
	run_forced("no_such_pmu");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--forced"))
		return forced_child(argv[2]);
	self_path = argv[0];
	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_skx_encoding, setup_skx),
		cmocka_unit_test_setup(test_skx_modifiers, setup_skx),
		cmocka_unit_test_setup(test_skx_errors, setup_skx),
		cmocka_unit_test_setup(test_skx_catalog, setup_skx),
		cmocka_unit_test_setup(test_zen3, setup_skx),
		cmocka_unit_test_setup(test_no_such_pmu, setup_skx),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
