/* The kallsyms parser (symbols/kallsyms.c) and its reading ahead (symbols/kahead.c): text symbols
 * only, module tags, the last of several names at one address, sizes up to the next symbol,
 * hidden addresses, damaged lines, names longer than the parser's blocks of copied names; the
 * file read on another thread gives the same symbols as the file read here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/kahead.h"
#include "symbols/kallsyms.h"
#include "symbols/ksnap.h"
#include "util/xalloc.h"

static void parse_text(const char *text, struct symtab_load *r)
{
	memset(r, 0, sizeof(*r));
	kallsyms_parse_text(xstrdup(text), strlen(text), "test", r);
}

static void load_free(struct symtab_load *r)
{
	symtab_free(r->syms, r->nsyms);
	notes_clear(&r->notes);
	memset(r, 0, sizeof(*r));
}

static void test_lines(void **state)
{
	(void)state;
	struct symtab_load r;
	parse_text("ffffffff81000000 T _stext\n"
		   "ffffffff81000000 t alias_last\n"          /* same address: the last listed wins */
		   "ffffffff81000100 D some_data\n"           /* not text */
		   "ffffffff81000200 W weak_fn\n"
		   "not a line at all\n"
		   "ffffffff8100030 t\n"                      /* no name */
		   "ffffffffc0000000 t nf_hook_slow\t[nf_tables]\n"
		   "ffffffffc0000100 t nf_other\t[nf_tables]", /* no newline at the end */
		   &r);
	assert_int_equal(r.nsyms, 4);
	assert_string_equal(r.syms[0].name, "alias_last");
	assert_int_equal(r.syms[0].start, 0xffffffff81000000);
	assert_int_equal(r.syms[0].size, 0x200); /* up to weak_fn: data lines are not symbols */
	assert_string_equal(r.syms[1].name, "weak_fn");
	assert_string_equal(r.syms[2].name, "nf_hook_slow [nf_tables]");
	assert_string_equal(r.syms[3].name, "nf_other [nf_tables]");
	/* the last symbol: the rest of its page and one more */
	assert_int_equal(r.syms[3].start + r.syms[3].size, 0xffffffffc0002000);
	assert_int_equal(r.notes.n, 0);
	load_free(&r);
}

static void test_hidden_and_empty(void **state)
{
	(void)state;
	struct symtab_load r;
	parse_text("0000000000000000 T _stext\n0000000000000000 t other\n", &r);
	assert_int_equal(r.nsyms, 0);
	assert_non_null(strstr(notes_last(&r.notes), "kptr_restrict"));
	load_free(&r);
	parse_text("", &r);
	assert_int_equal(r.nsyms, 0);
	assert_non_null(strstr(notes_last(&r.notes), "no kernel text symbols in 'test'"));
	load_free(&r);
}

/* Names are copied into blocks of 256 KB: many names fill several, and a name longer than a
 * block gets one of its own. */
static void test_long_names(void **state)
{
	(void)state;
	size_t n = 30000, longn = 300 << 10;
	struct strbuf_like {
		char *p;
		size_t len, cap;
	} t = { xmalloc(64), 0, 64 };
	char *longname = xmalloc(longn + 1);
	memset(longname, 'x', longn);
	longname[longn] = 0;
	for (size_t i = 0; i <= n; i++) {
		char line[128];
		int k = snprintf(line, sizeof(line), "%016zx t fn_%zu_abcdefghijklmnopqrstuvwxyz\n", (size_t)0xffffffff81000000 + i * 16, i);
		const char *add = line;
		size_t alen = (size_t)k;
		char *big = NULL;
		if (i == n / 2) {
			big = xasprintf("%016zx T %s\n", (size_t)0xffffffff81000000 + i * 16 + 8, longname);
			add = big;
			alen = strlen(big);
		}
		while (t.len + alen + 1 > t.cap)
			t.p = xrealloc(t.p, t.cap *= 2);
		memcpy(t.p + t.len, add, alen);
		t.len += alen;
		t.p[t.len] = 0;
		free(big);
	}
	struct symtab_load r = { 0 };
	kallsyms_parse_text(t.p, t.len, "test", &r);
	assert_int_equal(r.nsyms, n + 1);
	for (size_t i = 0; i < r.nsyms; i++) {
		if (r.syms[i].start == 0xffffffff81000000 + (n / 2) * 16 + 8) {
			assert_string_equal(r.syms[i].name, longname);
			continue;
		}
		char want[64];
		snprintf(want, sizeof(want), "fn_%zu_abcdefghijklmnopqrstuvwxyz",
			 (size_t)(r.syms[i].start - 0xffffffff81000000) / 16);
		assert_string_equal(r.syms[i].name, want);
	}
	free(longname);
	load_free(&r);
}

/* $LPERF_KALLSYMS loaded on the thread: the symbols kallsyms_load finds (no snapshot: the file
 * is not the running kernel's); a file that cannot be read gives kallsyms_load's note. Ready
 * once the thread has gone on from reading (kahead_go) and ended (kahead_reading false). */
static void test_ahead(void **state)
{
	(void)state;
	char path[] = "/tmp/lperf-test-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "ffffffff81000000 T _stext\nffffffff81000100 t two\nffffffffc0000000 t m\t[mod]\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	setenv("LPERF_KALLSYMS", path, 1);
	struct kahead *k = kahead_start();
	assert_non_null(k);
	kahead_go(k);
	while (kahead_reading(k))
		usleep(1000);
	struct kahead_result res;
	assert_true(kahead_take(k, &res));
	assert_false(kahead_take(k, &res));
	kahead_free(k);
	assert_null(res.ks);
	assert_false(res.rest);
	struct symtab_load b = { 0 };
	kallsyms_load(path, &b);
	assert_int_equal(res.r.nsyms, b.nsyms);
	for (size_t i = 0; i < b.nsyms; i++) {
		assert_int_equal(res.r.syms[i].start, b.syms[i].start);
		assert_int_equal(res.r.syms[i].size, b.syms[i].size);
		assert_string_equal(res.r.syms[i].name, b.syms[i].name);
	}
	load_free(&res.r);
	load_free(&b);
	unlink(path);
	/* not taken (nor let go on): kahead_free frees what was read */
	kahead_free(kahead_start());
	setenv("LPERF_KALLSYMS", "/nonexistent/kallsyms", 1);
	k = kahead_start();
	assert_true(kahead_take(k, &res));
	kahead_free(k);
	assert_int_equal(res.r.nsyms, 0);
	kallsyms_load("/nonexistent/kallsyms", &b);
	assert_string_equal(notes_last(&res.r.notes), notes_last(&b.notes));
	load_free(&res.r);
	load_free(&b);
	unsetenv("LPERF_KALLSYMS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_hidden_and_empty),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_ahead),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
