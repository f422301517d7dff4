/* lperf lock contention: waits paired from the two tracepoints' records (nested begins, ends
 * without a begin, the lock functions left out of the caller), and perf's table (columns,
 * widths, time units rounded as perf's single-precision division). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event-parse.h>

#include "analysis/lockstat.h"
#include "output/lock_out.h"
#include "resolve/resolve.h"
#include "symbols/symtab.h"

static const char begin_fmt[] =
	"name: contention_begin\nID: 408\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int flags;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%p (flags=%x)\", REC->lock_addr, REC->flags\n";
static const char end_fmt[] =
	"name: contention_end\nID: 407\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:void * lock_addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int ret;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%p (ret=%d)\", REC->lock_addr, REC->ret\n";

static struct tep_handle *load_tep(void)
{
	struct tep_handle *tep = tep_alloc();
	assert_non_null(tep);
	assert_int_equal(tep_parse_event(tep, begin_fmt, strlen(begin_fmt), "lock"), 0);
	assert_int_equal(tep_parse_event(tep, end_fmt, strlen(end_fmt), "lock"), 0);
	return tep;
}

static struct symbol sym_lock = { 0x1000, 0x100, (char *)"_raw_spin_lock", NULL };
static struct symbol sym_caller = { 0x5000, 0x100, (char *)"pipe_read", NULL };
static struct symbol sym_other = { 0x6000, 0x100, (char *)"do_other", NULL };

/* One record: id, lock address, flags/ret; frames: three skipped, a lock function, the caller. */
static void feed(struct lockstat *ls, uint16_t id, uint32_t tid, uint64_t time, uint64_t addr,
		 uint32_t val, const struct symbol *caller)
{
	uint8_t raw[20] = { 0 };
	memcpy(raw, &id, 2);
	memcpy(raw + 8, &addr, 8);
	memcpy(raw + 16, &val, 4);
	struct perf_sample s = { .tid = tid, .pid = tid, .time = time, .raw = raw, .raw_size = sizeof(raw) };
	struct frame f[5] = { 0 };
	for (int i = 0; i < 4; i++) {
		f[i].ip = 0x1010 + (uint64_t)i; /* in the lock section [0x1000, 0x1100) */
		f[i].loc.sym = &sym_lock;
		f[i].loc.sym_off = 0x10 + (uint64_t)i;
	}
	f[4].ip = caller->start + 0x2a;
	f[4].loc.sym = caller;
	f[4].loc.sym_off = 0x2a;
	struct resolved_sample rs = { .s = &s, .frames = f, .nframes = 5 };
	lockstat_sample(ls, &rs);
}

static void test_pairs(void **state)
{
	struct tep_handle *tep = load_tep();
	struct lockstat ls;
	assert_int_equal(lockstat_init(&ls, tep, NULL), 0);
	ls.lock_lo = 0x1000;
	ls.lock_hi = 0x1100;
	feed(&ls, 408, 10, 1000, 0xa0, 1, &sym_caller);
	feed(&ls, 408, 10, 1500, 0xa0, 1, &sym_caller);  /* nested: the same wait */
	feed(&ls, 407, 10, 4000, 0xa0, 0, &sym_caller);  /* 3000 ns */
	feed(&ls, 408, 11, 5000, 0xa0, 1, &sym_caller);
	feed(&ls, 407, 11, 6000, 0xa0, 0, &sym_caller);  /* 1000 ns */
	feed(&ls, 407, 12, 7000, 0xa0, 0, &sym_caller);  /* no begin: bad */
	feed(&ls, 408, 12, 8000, 0xb0, 32, &sym_other);
	feed(&ls, 407, 12, 2008000, 0xb0, 0, &sym_other); /* 2 ms */
	assert_int_equal(ls.n, 2);
	assert_int_equal(ls.bad, 1);
	lockstat_sort(&ls, LOCK_SORT_WAIT_TOTAL);
	assert_string_equal(ls.v[0].name, "do_other+0x2a");
	assert_string_equal(ls.v[1].name, "pipe_read+0x2a");
	assert_int_equal(ls.v[1].contended, 2);
	assert_int_equal(ls.v[1].total, 4000);
	assert_int_equal(ls.v[1].max, 3000);
	assert_int_equal(ls.v[1].min, 1000);
	assert_string_equal(lockstat_type_name(ls.v[0].flags), "mutex");
	assert_string_equal(lockstat_type_name(ls.v[1].flags), "spinlock");

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int fields[] = { LOCK_SORT_CONTENDED, LOCK_SORT_WAIT_TOTAL, LOCK_SORT_WAIT_MAX, LOCK_SORT_AVG_WAIT };
	lock_print_contention(f, &ls, fields, 4, 10, false);
	fclose(f);
	assert_string_equal(buf,
		" contended   total wait     max wait     avg wait         type   caller\n\n"
		"         1      2.00 ms      2.00 ms      2.00 ms        mutex   do_other+0x2a\n"
		"         2      4.00 us      3.00 us      2.00 us     spinlock   pipe_read+0x2a\n");
	free(buf);
	lockstat_free(&ls);
	tep_free(tep);
}

static void test_units(void **state)
{
	struct lockstat ls = { 0 };
	struct lock_entry e[3] = {
		{ .name = (char *)"a", .contended = 1, .acquired = 1, .total = 252975, .max = 999, .min = 999 },
		{ .name = (char *)"b", .contended = 1, .acquired = 1, .total = 90ull * 1000000000, .max = 5, .min = 5 },
		{ .name = (char *)"c", .contended = 3, .acquired = 1, .total = 7200ull * 1000000000, .max = 1, .min = 1 },
	};
	ls.v = e;
	ls.n = 3;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int fields[] = { LOCK_SORT_WAIT_TOTAL, LOCK_SORT_WAIT_MIN };
	lock_print_contention(f, &ls, fields, 2, 2, true);
	fclose(f);
	/* 252975 ns: 252.98 us in single precision (252.97 in double) */
	assert_string_equal(buf,
		"   252.98 us       999 ns    semaphore   a\n"
		"     1.50 m          5 ns    semaphore   b\n");
	free(buf);
}

/* lock report: -c merges rows of one name (sums, the largest max, the smallest min); names of 20
 * characters or more are cut to 16 and "..."; info -m lists by name, then address. */
static void test_report(void **state)
{
	struct lockstat ls;
	lockstat_init_stacks(&ls, "/nonexistent");
	lockstat_add_stack(&ls, NULL, 0, LOCK_F_SPIN, 2, 3000, 2000, 1000);
	lockstat_add_stack(&ls, NULL, 0, LOCK_F_SPIN, 1, 500, 500, 500);
	free(ls.v[0].name);
	free(ls.v[1].name);
	ls.v[0].name = strdup("swake_up_one+0x35");
	ls.v[1].name = strdup("swake_up_one+0x35");
	ls.v[0].key = 0x20;
	ls.v[1].key = 0x10;
	lockstat_add_stack(&ls, NULL, 0, LOCK_F_MUTEX, 1, 7000, 7000, 7000);
	free(ls.v[2].name);
	ls.v[2].name = strdup("generic_perform_write+0x14d");
	lockstat_sort_info(&ls);
	assert_string_equal(ls.v[0].name, "generic_perform_write+0x14d");
	assert_int_equal(ls.v[1].key, 0x10);
	lockstat_combine(&ls);
	assert_int_equal(ls.n, 2);
	assert_int_equal(ls.v[1].acquired, 3);
	assert_int_equal(ls.v[1].total, 3500);
	assert_int_equal(ls.v[1].max, 2000);
	assert_int_equal(ls.v[1].min, 500);
	lockstat_sort(&ls, LOCK_SORT_ACQUIRED);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int fields[] = { LOCK_SORT_ACQUIRED, LOCK_SORT_WAIT_MAX };
	lock_print_report(f, &ls, fields, 2, 10);
	fclose(f);
	assert_string_equal(buf,
		"                Name   acquired     max wait \n\n"
		"   swake_up_one+0x35          3      2.00 us \n"
		" generic_perform_...          1      7.00 us \n");
	free(buf);
	lockstat_free(&ls);
}

/* -b's rows: the kernel's totals per stack, named from a kallsyms file past the skipped frames
 * and the lock functions. */
static void test_stacks(void **state)
{
	char path[] = "/tmp/lockstat-ksyms.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000100 T bpf_trace_a\n"
	      "ffffffff81000200 T __lock_text_start\n"
	      "ffffffff81000200 T _raw_spin_lock\n"
	      "ffffffff81000300 T __lock_text_end\n"
	      "ffffffff81000400 T pipe_write\n"
	      "ffffffff81000500 T vfs_write\n", f);
	fclose(f);
	struct lockstat ls;
	lockstat_init_stacks(&ls, path);
	unlink(path);
	const uint64_t ips[] = { 0xffffffff81000110, 0xffffffff81000120, 0xffffffff81000130,
				 0xffffffff81000210, 0xffffffff81000442, 0xffffffff81000510 };
	lockstat_add_stack(&ls, ips, 6, LOCK_F_SPIN, 4, 4000, 2500, 100);
	lockstat_add_stack(&ls, ips, 3, LOCK_F_MUTEX, 1, 9000, 9000, 9000);
	lockstat_sort(&ls, LOCK_SORT_WAIT_TOTAL);
	assert_int_equal(ls.n, 2);
	assert_string_equal(ls.v[0].name, "");           /* nothing past the skipped frames */
	assert_string_equal(ls.v[1].name, "pipe_write+0x42");
	assert_int_equal(ls.v[1].contended, 4);
	assert_int_equal(ls.v[1].max, 2500);
	lockstat_free(&ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
