/* Helpers shared by the event module's unit tests (test_events, test_pmu, test_pfm): fixture
 * sysfs roots, resolving with assertions, and checking error messages. */
#ifndef LPERF_TESTS_EVENTS_TEST_H
#define LPERF_TESTS_EVENTS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/evlist.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Tests run from the repository root; $FIXTURES overrides where the fixtures live. */
static inline char *fixture_path(const char *name)
{
	const char *dir = getenv("FIXTURES");
	return xasprintf("%s/%s", dir && *dir ? dir : "tests/fixtures", name);
}

/* Points LPERF_SYSFS_ROOT at a fixture tree ("sysfs-arm"), or at a directory that does not
 * exist when name is NULL. */
static inline void use_sysfs(const char *name)
{
	if (!name) {
		setenv("LPERF_SYSFS_ROOT", "/nonexistent-lperf-sysfs", 1);
		return;
	}
	char *p = fixture_path(name);
	setenv("LPERF_SYSFS_ROOT", p, 1);
	free(p);
}

/* Resolves name or fails the test with lperf's error message. */
static inline void resolve_ok(const char *name, struct ev *ev)
{
	if (ev_resolve(name, ev) < 0)
		fail_msg("'%s' did not resolve: %s", name, err_msg());
}

static inline void expect_type_config(const char *name, uint32_t type, uint64_t config)
{
	struct ev ev;
	resolve_ok(name, &ev);
	if (ev.attr.type != type || ev.attr.config != config)
		fail_msg("'%s': type %u config %#llx, expected type %u config %#llx", name,
			 ev.attr.type, (unsigned long long)ev.attr.config, type,
			 (unsigned long long)config);
	ev_free(&ev);
}

/* Asserts that msg contains frag (when frag is not NULL). */
static inline void expect_in(const char *msg, const char *frag)
{
	if (frag && !strstr(msg, frag))
		fail_msg("expected '%s' in the message: %s", frag, msg);
}

/* Asserts that parsing spec fails, leaves the list as it was, and says frag1 and frag2. */
static inline void parse_fails(const char *spec, const char *frag1, const char *frag2)
{
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "task-clock"), 0);
	err_clear();
	if (evlist_parse(&l, spec) == 0)
		fail_msg("'%s' parsed, expected an error", spec);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ngroups, 0);
	const char *msg = err_msg();
	assert_null(strchr(msg, '\n'));
	expect_in(msg, frag1);
	expect_in(msg, frag2);
	evlist_free(&l);
}

#endif
