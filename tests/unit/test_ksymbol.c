/* PERF_RECORD_KSYMBOL and PERF_RECORD_BPF_EVENT: parsing with its bounds (a length of 0 or past
 * the address space, a name without its NUL, short records), the builders byte for byte in the
 * kernel's layout, kallsyms' [bpf] symbols as records, and a session naming kernel samples from
 * the recorded symbols in time order (a program unloaded, a late sample in it, another loaded over
 * its address). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "live/live.h"
#include "record/record.h"
#include "session/session.h"
#include "util/error.h"

/* A KSYMBOL written field by field as the kernel lays it: addr, len, ksym_type, flags, name. */
static size_t ksym_raw(uint8_t *b, uint64_t addr, uint32_t len, uint16_t flags, const char *name, size_t namesz)
{
	struct perf_event_header h = { PERF_RECORD_KSYMBOL, 0, (uint16_t)(24 + namesz) };
	uint16_t type = PERF_RECORD_KSYMBOL_TYPE_BPF;
	memcpy(b, &h, 8);
	memcpy(b + 8, &addr, 8);
	memcpy(b + 16, &len, 4);
	memcpy(b + 20, &type, 2);
	memcpy(b + 22, &flags, 2);
	memcpy(b + 24, name, namesz);
	return h.size;
}

/* A heap copy of exactly size bytes, so that ASan sees a read past the record. */
static struct perf_event_header *exact(const uint8_t *b, size_t size)
{
	struct perf_event_header *h = malloc(size);
	memcpy(h, b, size);
	return h;
}

static void test_parse(void **state)
{
	uint8_t b[256] __attribute__((aligned(8))) = { 0 };
	struct rec_ksymbol k;
	char name[24] = "bpf_prog_0123_f";
	size_t n = ksym_raw(b, 0xffffffffc0001000ULL, 0x40, 0, name, sizeof(name));
	struct perf_event_header *h = exact(b, n);
	assert_int_equal(record_parse_ksymbol(h, &k), 0);
	assert_int_equal(k.addr, 0xffffffffc0001000ULL);
	assert_int_equal(k.len, 0x40);
	assert_int_equal(k.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
	assert_false(k.unregister);
	assert_string_equal(k.name, "bpf_prog_0123_f");
	free(h);
	/* unregister */
	n = ksym_raw(b, 0xffffffffc0001000ULL, 0x40, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER, name, sizeof(name));
	h = exact(b, n);
	assert_int_equal(record_parse_ksymbol(h, &k), 0);
	assert_true(k.unregister);
	free(h);
	/* a length of 0 */
	n = ksym_raw(b, 0xffffffffc0001000ULL, 0, 0, name, sizeof(name));
	h = exact(b, n);
	assert_int_equal(record_parse_ksymbol(h, &k), -1);
	assert_non_null(strstr(err_msg(), "length 0"));
	free(h);
	/* past the end of the address space */
	n = ksym_raw(b, 0xfffffffffffff000ULL, 0x2000, 0, name, sizeof(name));
	h = exact(b, n);
	assert_int_equal(record_parse_ksymbol(h, &k), -1);
	assert_non_null(strstr(err_msg(), "past the end"));
	free(h);
	/* a name without its NUL inside the record */
	memset(name, 'x', sizeof(name));
	n = ksym_raw(b, 0xffffffffc0001000ULL, 0x40, 0, name, sizeof(name));
	h = exact(b, n);
	assert_int_equal(record_parse_ksymbol(h, &k), -1);
	assert_non_null(strstr(err_msg(), "name"));
	assert_non_null(strstr(err_msg(), "NUL"));
	free(h);
	/* shorter than its fixed part */
	h = exact(b, 20);
	h->size = 20;
	assert_int_equal(record_parse_ksymbol(h, &k), -1);
	assert_non_null(strstr(err_msg(), "shorter"));
	free(h);
	/* another type */
	h = exact(b, 32);
	h->type = PERF_RECORD_COMM;
	h->size = 32;
	assert_int_equal(record_parse_ksymbol(h, &k), -1);
	free(h);

	/* BPF_EVENT: type, flags, id, tag */
	struct rec_bpf_event e;
	struct perf_event_header bh = { PERF_RECORD_BPF_EVENT, 0, 24 };
	uint16_t t = PERF_BPF_EVENT_PROG_UNLOAD, fl = 0;
	uint32_t id = 4242;
	uint8_t tag[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	memcpy(b, &bh, 8);
	memcpy(b + 8, &t, 2);
	memcpy(b + 10, &fl, 2);
	memcpy(b + 12, &id, 4);
	memcpy(b + 16, tag, 8);
	h = exact(b, 24);
	assert_int_equal(record_parse_bpf_event(h, &e), 0);
	assert_int_equal(e.type, PERF_BPF_EVENT_PROG_UNLOAD);
	assert_int_equal(e.id, 4242);
	assert_memory_equal(e.tag, tag, 8);
	h->size = 16;
	assert_int_equal(record_parse_bpf_event(h, &e), -1);
	assert_non_null(strstr(err_msg(), "BPF_EVENT"));
	free(h);
}

static const struct perf_event_attr trailer_attr = {
	.type = PERF_TYPE_SOFTWARE,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
	.sample_id_all = 1,
};

static void test_build(void **state)
{
	uint8_t b[512] __attribute__((aligned(8))), want[512] __attribute__((aligned(8)));
	/* perf's synthesized KSYMBOL: misc 0, the name NUL-padded to 8, a zeroed trailer (TID, TIME, CPU). */
	struct rec_ksymbol k = { .addr = 0xffffffffc0025b90ULL, .len = 43, .ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF,
				 .name = "bpf_prog_a9dcff5e14ff5498_follow_fork" };
	size_t n = record_build_ksymbol(b, sizeof(b), &trailer_attr, &k);
	size_t namesz = 40; /* 38 characters and the NUL, padded */
	memset(want, 0, sizeof(want));
	size_t wn = ksym_raw(want, k.addr, k.len, 0, k.name, strlen(k.name) + 1);
	assert_int_equal(wn, 24 + strlen(k.name) + 1);
	struct perf_event_header wh = { PERF_RECORD_KSYMBOL, 0, (uint16_t)(24 + namesz + 24) };
	memcpy(want, &wh, 8);
	assert_int_equal(n, 24 + namesz + 24);
	assert_memory_equal(b, want, n);
	struct rec_ksymbol back;
	assert_int_equal(record_parse_ksymbol((struct perf_event_header *)b, &back), 0);
	assert_string_equal(back.name, k.name);
	/* too small a buffer: the size needed */
	assert_int_equal(record_build_ksymbol(b, 16, &trailer_attr, &k), n);

	struct rec_bpf_event e = { .type = PERF_BPF_EVENT_PROG_LOAD, .id = 105415, .tag = { 0xa9, 0xdc, 0xff, 0x5e } };
	n = record_build_bpf_event(b, sizeof(b), &trailer_attr, &e);
	assert_int_equal(n, 24 + 24);
	struct rec_bpf_event eb;
	assert_int_equal(record_parse_bpf_event((struct perf_event_header *)b, &eb), 0);
	assert_int_equal(eb.type, PERF_BPF_EVENT_PROG_LOAD);
	assert_int_equal(eb.id, 105415);
	assert_memory_equal(eb.tag, e.tag, 8);
	for (size_t i = 24; i < n; i++)
		assert_int_equal(b[i], 0);
}

struct kcoll {
	size_t n;
	uint64_t addr[8];
	uint32_t len[8];
	char name[8][64];
};

static int kcollect(const struct perf_event_header *h, void *arg)
{
	struct kcoll *c = arg;
	struct rec_ksymbol k;
	assert_int_equal(record_parse_ksymbol(h, &k), 0);
	assert_true(c->n < 8);
	c->addr[c->n] = k.addr;
	c->len[c->n] = k.len;
	snprintf(c->name[c->n], sizeof(c->name[0]), "%s", k.name);
	c->n++;
	return 0;
}

static void test_from_kallsyms(void **state)
{
	char path[] = "/tmp/lperf-ksymXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "ffffffff81000000 T _text\n"
			   "ffffffffc0002000 t bpf_prog_2222222222222222_second\t[bpf]\n"
			   "ffffffffc0001000 t bpf_prog_1111111111111111_first\t[bpf]\n"
			   "ffffffffc0001800 t bpf_trampoline_6442\t[bpf]\n"
			   "ffffffffc0001040 t bpf_prog_3333333333333333_close\t[bpf]\n"
			   "0000000000000000 t bpf_prog_4444444444444444_hidden\t[bpf]\n"
			   "garbage line\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct kcoll c = { 0 };
	assert_int_equal(synth_bpf_from_kallsyms(&trailer_attr, path, kcollect, &c), 0);
	unlink(path);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.addr[0], 0xffffffffc0001000ULL); /* by address */
	assert_string_equal(c.name[0], "bpf_prog_1111111111111111_first");
	assert_int_equal(c.len[0], 0x40);                    /* to the next program */
	assert_string_equal(c.name[1], "bpf_prog_3333333333333333_close");
	assert_int_equal(c.len[1], 0x7c0);                   /* to the trampoline */
	assert_string_equal(c.name[2], "bpf_prog_2222222222222222_second");
	assert_int_equal(c.len[2], 4096);                    /* the last: a page */
	c.n = 0;
	assert_int_equal(synth_bpf_from_kallsyms(&trailer_attr, "/nonexistent", kcollect, &c), 0);
	assert_int_equal(c.n, 0);
}

/* ---- a session names kernel samples by the recorded symbols, in time order ---- */

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

struct named {
	size_t n;
	char dso[8][64], sym[8][64];
	uint64_t off[8];
};

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct named *s = arg;
	assert_true(s->n < 8);
	const struct addr_loc *l = &rs->frames[0].loc;
	snprintf(s->dso[s->n], sizeof(s->dso[0]), "%s", l->dso ? l->dso->short_name : "?");
	snprintf(s->sym[s->n], sizeof(s->sym[0]), "%s", l->sym ? l->sym->name : "?");
	s->off[s->n] = l->sym_off;
	s->n++;
	return 0;
}

static void push_ksym(struct session *ss, const struct perf_event_attr *a, uint64_t addr, uint32_t len,
		      const char *name, bool unregister, uint64_t time)
{
	uint8_t b[512] __attribute__((aligned(8)));
	struct rec_ksymbol k = { .addr = addr, .len = len, .ksym_type = PERF_RECORD_KSYMBOL_TYPE_BPF,
				 .unregister = unregister, .name = name };
	size_t n = record_build_ksymbol(b, sizeof(b), a, &k);
	assert_true(n > 0 && n <= sizeof(b));
	/* the trailer's TIME follows TID */
	memcpy(b + n - 8, &time, 8);
	assert_int_equal(session_push(ss, (const struct perf_event_header *)b), 0);
}

static void push_sample(struct session *ss, const struct perf_event_attr *a, uint64_t ip, uint64_t time)
{
	uint8_t b[512] __attribute__((aligned(8)));
	struct perf_sample s = { .ip = ip, .pid = 7, .tid = 7, .time = time };
	size_t n = record_build_sample(b, sizeof(b), a, &s);
	assert_true(n > 0 && n <= sizeof(b));
	((struct perf_event_header *)b)->misc = PERF_RECORD_MISC_KERNEL;
	assert_int_equal(session_push(ss, (const struct perf_event_header *)b), 0);
}

static void test_session_names(void **state)
{
	struct evsel_set set = { 0 };
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = SAMPLE_TYPE, .sample_id_all = 1, .sample_period = 1 };
	uint64_t id = 1;
	evsel_set_add(&set, &a, "cpu-clock", &id, 1);
	evsel_set_index(&set);
	struct named seen = { 0 };
	struct session_tool tool = { .sample = on_sample, .arg = &seen };
	struct session ss;
	session_init(&ss, &set, &tool);
	const uint64_t at = 0xffffffffc0026d40ULL;
	/* pushed out of order: the queue sorts them by time */
	push_sample(&ss, &a, at + 0x14, 200);
	push_ksym(&ss, &a, at, 0x40, "bpf_prog_a9dcff5e14ff5498_follow_fork", false, 100);
	push_ksym(&ss, &a, at, 0x40, "bpf_prog_a9dcff5e14ff5498_follow_fork", true, 300);
	push_sample(&ss, &a, at + 0x10, 350); /* a call that entered it before the unload */
	push_ksym(&ss, &a, at - 0x20, 0x200, "bpf_prog_462b813b98ba6174_pystack_exit", false, 400);
	push_sample(&ss, &a, at + 0x14, 500);
	/* the first program loaded again elsewhere: the same DSO and symbol (perf's one row) */
	push_ksym(&ss, &a, at + 0x1000, 0x40, "bpf_prog_a9dcff5e14ff5498_follow_fork", false, 600);
	push_sample(&ss, &a, at + 0x1004, 700);
	assert_int_equal(session_flush(&ss), 0);
	assert_int_equal(seen.n, 4);
	assert_string_equal(seen.dso[0], "bpf_prog_a9dcff5e14ff5498_follow_fork");
	assert_string_equal(seen.sym[0], "bpf_prog_a9dcff5e14ff5498_follow_fork");
	assert_int_equal(seen.off[0], 0x14);
	assert_string_equal(seen.sym[1], "bpf_prog_a9dcff5e14ff5498_follow_fork");
	assert_int_equal(seen.off[1], 0x10);
	assert_string_equal(seen.dso[2], "bpf_prog_462b813b98ba6174_pystack_exit");
	assert_string_equal(seen.sym[2], "bpf_prog_462b813b98ba6174_pystack_exit");
	assert_int_equal(seen.off[2], 0x34);
	assert_string_equal(seen.sym[3], "bpf_prog_a9dcff5e14ff5498_follow_fork");
	assert_int_equal(seen.off[3], 4);
	size_t ksyms = 0;
	for (size_t i = 0; i < ss.machine.dsos.n; i++)
		ksyms += ss.machine.dsos.v[i]->kind == DSO_KSYM;
	assert_int_equal(ksyms, 2);
	/* a damaged KSYMBOL is a note, not a stop */
	uint8_t b[64] __attribute__((aligned(8))) = { 0 };
	char bad[8] = "xxxxxxxx";
	size_t n = ksym_raw(b, at, 0x40, 0, bad, sizeof(bad));
	assert_int_equal(session_push(&ss, (const struct perf_event_header *)b), 0);
	(void)n;
	assert_int_equal(session_flush(&ss), 0);
	assert_int_equal(ss.bad_ksymbols, 1);
	session_free(&ss);
	evsel_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_from_kallsyms),
		cmocka_unit_test(test_session_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
