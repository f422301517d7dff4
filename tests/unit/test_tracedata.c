/* perf's tracing data: written from a tracefs tree (a fixture under LPERF_SYSFS_ROOT), read back
 * into libtraceevent, fields printed; every truncation and hostile size is one error naming the
 * offset, never a crash or a read past the end. */
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
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "events/tracedata.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char exit_format[] =
	"name: sched_process_exit\nID: 369\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio\n";

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/lperf-tracedata.XXXXXX");
	assert_non_null(mkdtemp(root));
	put("kernel/tracing/events/header_page", header_page);
	put("kernel/tracing/events/header_event", "# compressed entry header\n\ttype_len    :    5 bits\n");
	put("kernel/tracing/events/sched/sched_process_exit/format", exit_format);
	put("kernel/tracing/events/sched/sched_process_exit/id", "369\n");
	put("kernel/tracing/printk_formats", "0xffffffff81000000 : \"hello\"\n");
	setenv("LPERF_SYSFS_ROOT", root, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	unsetenv("LPERF_SYSFS_ROOT");
	return 0;
}

static void build(uint8_t **buf, size_t *len)
{
	uint64_t ids[] = { 369, 369 };
	int r = tracedata_build(ids, 2, buf, len);
	if (r)
		print_message("%s\n", err_msg());
	assert_int_equal(r, 0);
}

static void test_round_trip(void **state)
{
	uint8_t *buf;
	size_t len, used = 0;
	build(&buf, &len);
	assert_memory_equal(buf, "\x17\x08\x44tracing0.6", 14);
	struct tep_handle *tep = tracedata_parse(buf, len, "x.data", 0, &used);
	assert_non_null(tep);
	assert_int_equal(used, len);
	struct tep_event *ev = tep_find_event(tep, 369);
	assert_non_null(ev);
	assert_string_equal(ev->name, "sched_process_exit");
	assert_string_equal(ev->system, "sched");
	/* a sample's raw data printed by its format */
	uint8_t raw[36] = { 0 };
	uint16_t type = 369;
	int32_t pid = 42, prio = 120;
	memcpy(raw, &type, 2);
	memcpy(raw + 8, "worker", 7);
	memcpy(raw + 24, &pid, 4);
	memcpy(raw + 28, &prio, 4);
	struct tep_record rec = { .size = sizeof(raw), .data = raw };
	struct trace_seq s;
	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	assert_string_equal(s.buffer, "comm=worker pid=42 prio=120");
	trace_seq_destroy(&s);
	/* tracedata_print: the same; a record shorter than its format reads zeros past its end (a
	 * copy of exactly 12 bytes: ASan sees a read past them); an unknown event prints nothing */
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(tracedata_print(tep, 0, raw, sizeof(raw), &sb), 0);
	assert_string_equal(sb.buf, "comm=worker pid=42 prio=120");
	sb_reset(&sb);
	uint8_t *shortrec = xmalloc(12);
	memcpy(shortrec, raw, 12);
	assert_int_equal(tracedata_print(tep, 0, shortrec, 12, &sb), 0);
	assert_string_equal(sb.buf, "comm=work pid=0 prio=0");
	sb_reset(&sb);
	type = 7;
	memcpy(shortrec, &type, 2);
	assert_int_equal(tracedata_print(tep, 0, shortrec, 12, &sb), -1);
	assert_int_equal(sb.len, 0);
	free(shortrec);
	sb_release(&sb);
	tep_free(tep);
	/* trailing padding (a pipe's) is not part of the data */
	uint8_t *padded = xcalloc(len + 8, 1);
	memcpy(padded, buf, len);
	tep = tracedata_parse(padded, len + 8, "x.data", 0, &used);
	assert_non_null(tep);
	assert_int_equal(used, len);
	tep_free(tep);
	free(padded);
	free(buf);
}

static void test_every_truncation(void **state)
{
	uint8_t *buf;
	size_t len;
	build(&buf, &len);
	for (size_t n = 0; n < len; n++) {
		uint8_t *cut = xmalloc(n ? n : 1); /* exactly n bytes: ASan sees any read past them */
		memcpy(cut, buf, n);
		struct tep_handle *tep = tracedata_parse(cut, n, "cut.data", 0x100, NULL);
		assert_null(tep);
		assert_non_null(strstr(err_msg(), "cut.data: tracing data at offset 0x"));
		assert_null(strchr(err_msg(), '\n'));
		free(cut);
	}
	free(buf);
}

/* Offset of the first size field after marker (a NUL-terminated name). */
static size_t after(const uint8_t *buf, size_t len, const char *marker)
{
	for (size_t i = 0; i + strlen(marker) < len; i++)
		if (!memcmp(buf + i, marker, strlen(marker) + 1))
			return i + strlen(marker) + 1;
	fail();
	return 0;
}

static void test_hostile_sizes(void **state)
{
	uint8_t *buf;
	size_t len;
	build(&buf, &len);
	static const uint64_t sizes[] = { 1ULL << 40, UINT64_MAX, 0xffffffffULL, 1ULL << 63 };
	static const char *const where[] = { "header_page", "header_event", "sched" };
	for (size_t w = 0; w < 3; w++) {
		for (size_t k = 0; k < 4; k++) {
			uint8_t *bad = xmalloc(len);
			memcpy(bad, buf, len);
			size_t off = after(bad, len, where[w]) + (w == 2 ? 4 : 0); /* past a system's count */
			memcpy(bad + off, &sizes[k], 8);
			assert_null(tracedata_parse(bad, len, "bad.data", 0, NULL));
			assert_non_null(strstr(err_msg(), "is past the end of the data"));
			free(bad);
		}
	}
	/* a huge format count: the first missing format is the error */
	uint8_t *bad = xmalloc(len);
	memcpy(bad, buf, len);
	uint32_t many = 0xffffffffu;
	memcpy(bad + after(bad, len, "sched"), &many, 4);
	assert_null(tracedata_parse(bad, len, "bad.data", 0, NULL));
	/* wrong magic, long size and page size */
	memcpy(bad, buf, len);
	bad[0] = 0;
	assert_null(tracedata_parse(bad, len, "bad.data", 0, NULL));
	assert_non_null(strstr(err_msg(), "magic"));
	memcpy(bad, buf, len);
	bad[15] = 3;
	assert_null(tracedata_parse(bad, len, "bad.data", 0, NULL));
	assert_non_null(strstr(err_msg(), "size of a long"));
	memcpy(bad, buf, len);
	memset(bad + 16, 0, 4);
	assert_null(tracedata_parse(bad, len, "bad.data", 0, NULL));
	assert_non_null(strstr(err_msg(), "page size 0"));
	free(bad);
	free(buf);
}

static void test_unknown_id(void **state)
{
	uint64_t id = 999;
	uint8_t *buf;
	size_t len;
	assert_int_equal(tracedata_build(&id, 1, &buf, &len), -1);
	assert_non_null(strstr(err_msg(), "has id 999"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_hostile_sizes),
		cmocka_unit_test(test_unknown_id),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
