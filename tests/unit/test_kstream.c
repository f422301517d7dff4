/* The snapshot written as kallsyms is read (symbols/kstream.c) against the one it replaces
 * (kallsyms_parse_text, then ksnap_build): for the same kallsyms text, this machine's
 * /proc/kallsyms and crafted ones (aliases across types, W/w, zero addresses, modules and BPF in
 * the middle and out of order, a last symbol near a page end and at the top of the address space,
 * C++ and Rust names, damaged lines, NULs, a line longer than a read, thousands of symbols),
 * both files are checked whole (ksnap_parse) and every lookup answers the same: each symbol's
 * start, last byte, end and the byte before it, and addresses in gaps; the same core range; and
 * the symbols kept outside it (ksnap_rest against ksnap_keep_outside). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/kallsyms.h"
#include "symbols/ksnap.h"
#include "symbols/kstream.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct ksnap_key key = { { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
				       20, "0b1d9a6e-0000-4000-8000-000000000001" };

static char dir[] = "/tmp/lperf-kstream-XXXXXX";

static void same_symbol(const struct symbol *a, const struct symbol *b, uint64_t addr)
{
	if (!a || !b) {
		if (a || b)
			fail_msg("address %#llx: %s in one snapshot only", (unsigned long long)addr,
				 a ? a->name : b->name);
		return;
	}
	if (a->start != b->start || a->size != b->size || strcmp(a->name, b->name) || !a->mangled != !b->mangled ||
	    (a->mangled && strcmp(a->mangled, b->mangled)))
		fail_msg("address %#llx: %s %#llx+%#llx against %s %#llx+%#llx", (unsigned long long)addr, a->name,
			 (unsigned long long)a->start, (unsigned long long)a->size, b->name,
			 (unsigned long long)b->start, (unsigned long long)b->size);
}

/* ksnap_find in both, and symtab_find in the symbols they were made of. */
static void same_at(struct ksnap *o, struct ksnap *n, const struct symbol *syms, size_t nsyms, uint64_t addr)
{
	const struct symbol *a, *b;
	assert_int_equal(ksnap_find(o, addr, &a), 0);
	assert_int_equal(ksnap_find(n, addr, &b), 0);
	same_symbol(a, b, addr);
	same_symbol(symtab_find(syms, nsyms, addr), b, addr);
}

/* The new file for text, read back whole (NULL when kstream_write refused it). */
static char *stream(const char *text, size_t len, size_t *out_len)
{
	char in[64], out[64];
	snprintf(in, sizeof(in), "%s/kallsyms", dir);
	snprintf(out, sizeof(out), "%s/snap", dir);
	FILE *f = fopen(in, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	unlink(out);
	int fd = open(out, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	int rc = kstream_write(in, &key, fd);
	close(fd);
	if (rc < 0)
		return NULL;
	char *buf = file_read(out, 1u << 28, out_len);
	assert_non_null(buf);
	return buf;
}

/* Both ways over text; the number of symbols. */
static size_t check_text(const char *text, size_t len)
{
	struct symtab_load r = { 0 };
	char *copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = 0;
	kallsyms_parse_text(copy, len, "test", &r);
	size_t nlen = 0;
	char *nbuf = stream(text, len, &nlen);
	if (!r.nsyms) { /* hidden addresses, no text symbols: the caller's old path says why */
		assert_null(nbuf);
		notes_clear(&r.notes);
		return 0;
	}
	assert_non_null(nbuf);
	size_t olen;
	char *obuf = ksnap_build(&key, r.syms, r.nsyms, &olen);
	struct ksnap o, n;
	assert_int_equal(ksnap_parse(obuf, olen, &key, &o), 0);
	if (ksnap_parse(nbuf, nlen, &key, &n) < 0)
		fail_msg("the streamed snapshot: %s", err_msg());
	assert_int_equal(n.nsyms, o.nsyms);
	assert_int_equal(n.core_lo, o.core_lo);
	assert_int_equal(n.core_hi, o.core_hi);
	for (size_t i = 0; i < r.nsyms; i++) {
		const struct symbol *y = &r.syms[i];
		uint64_t s = y->start, z = y->size;
		same_at(&o, &n, r.syms, r.nsyms, s);
		same_at(&o, &n, r.syms, r.nsyms, s - 1);
		same_at(&o, &n, r.syms, r.nsyms, s + z);
		if (z) {
			same_at(&o, &n, r.syms, r.nsyms, s + z - 1);
			same_at(&o, &n, r.syms, r.nsyms, s + z / 2);
		}
		if (i + 1 < r.nsyms && r.syms[i + 1].start > s + z) /* a gap */
			same_at(&o, &n, r.syms, r.nsyms, s + z + (r.syms[i + 1].start - s - z) / 2);
	}
	same_at(&o, &n, r.syms, r.nsyms, 0);
	same_at(&o, &n, r.syms, r.nsyms, UINT64_MAX);
	/* The rest: what a first report keeps beside the snapshot. */
	struct symbol *rest;
	size_t nrest;
	assert_int_equal(ksnap_rest(&n, &rest, &nrest), 0);
	size_t kept = ksnap_keep_outside(&o, r.syms, r.nsyms);
	assert_int_equal(nrest, kept);
	for (size_t i = 0; i < kept; i++)
		same_symbol(&r.syms[i], &rest[i], r.syms[i].start);
	symtab_free(rest, nrest);
	size_t count = o.nsyms;
	ksnap_release(&o);
	ksnap_release(&n);
	symtab_free(r.syms, kept);
	notes_clear(&r.notes);
	free(obuf);
	free(nbuf);
	return count;
}

static size_t check(const char *text)
{
	return check_text(text, strlen(text));
}

static void test_this_machine(void **state)
{
	size_t len;
	char *text = kallsyms_read("/proc/kallsyms", &len);
	if (!text) {
		skip();
		return;
	}
	size_t n = check_text(text, len);
	if (!n) /* addresses hidden from this user: both refuse it */
		print_message("kallsyms addresses are hidden here\n");
	free(text);
}

static void test_aliases_and_types(void **state)
{
	/* One address, several names: the last listed wins whatever its type (perf's size fix-up
	 * leaves only the last a range); data symbols and zero addresses are not kept. */
	assert_int_equal(check("ffffffff81000000 T _text\n"
			       "ffffffff81000000 t startup_64\n"
			       "ffffffff81000000 W weak_start\n"
			       "ffffffff81000100 w weak_first\n"
			       "ffffffff81000100 T global_second\n"
			       "ffffffff81000180 D data_here\n"
			       "ffffffff81000200 t local_a\n"
			       "ffffffff81000200 T global_b\n"
			       "0000000000000000 T zero_addr\n"
			       "ffffffff81000300 b bss_sym\n"
			       "ffffffff81000400 W weak_c\n"
			       "ffffffff81000400 w weak_d\n"
			       "ffffffff81000500 T last_one\n"),
			 5);
}

static void test_modules_and_last(void **state)
{
	/* A module's symbols inside the core range cut it; BPF below; a module's symbols listed
	 * before the core's (out of order); the last symbol near a page end. */
	check("ffffffff80000000 t bpf_prog_1_f\t[bpf]\n"
	      "ffffffff81000000 T _stext\n"
	      "ffffffff81000010 T second\n"
	      "ffffffff81000020 t in_mod\t[mymod]\n"
	      "ffffffff81000030 T after_mod\n"
	      "ffffffff81000040 T core_last\n"
	      "ffffffffc0001000 t mod_fn\t[nf_tables]\n"
	      "ffffffffc0001ff0 t mod_last\t[nf_tables]\n");
	check("ffffffffc0002000 t early_mod\t[m1]\n"
	      "ffffffffc0001000 t earlier_mod\t[m1]\n"
	      "ffffffff81000000 T _stext\n"
	      "ffffffff81000000 t alias_after\t[m2]\n"
	      "ffffffff81000100 T core_a\n"
	      "ffffffff81000200 T core_b\n"
	      "ffffffff81000200 t core_b_mod\t[m3]\n"
	      "ffffffff81000200 T core_b_again\n"
	      "ffffffff81000300 T core_c\n");
	check("ffffffff81000000 T only_core\n");
	check("ffffffffc0000000 t only_mod\t[m]\n"
	      "ffffffffc0000100 t only_mod2\t[m]\n");
	check("ffffffff81000000 T a\nffffffffffffffff T at_top\n");
	check("ffffffff81000000 T a\nfffffffffffff000 T near_top\n");
	check("ffffffff81000000 T a\nffffffff81000ff8 T page_end\n");
}

static void test_mangled(void **state)
{
	check("ffffffff81000000 T _stext\n"
	      "ffffffff81000100 T _RNvCs1234_7mycrate3foo\n"
	      "ffffffff81000200 T _ZN3foo3barEv\n"
	      "ffffffff81000300 T _Rnot_really\n"
	      "ffffffff81000400 T _Z\n"
	      "ffffffff81000500 t _RNvCs1234_7mycrate3bar\t[rmod]\n"
	      "ffffffff81000600 T _ZN1a1bEv@@VER\n"
	      "ffffffff81000700 T _RNvNtCs1234_4core3fmt5write\n"
	      "ffffffff81000800 T plain_end\n");
}

static void test_damaged_lines(void **state)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				    "\n"
				    "garbage line\n"
				    "ffffffff81000010T nospace\n"
				    "ffffffff81000020 T\n"
				    "ffffffff81000030 T \n"
				    "11111111111111111111 T too_many_digits\n"
				    "ffffffff81000040 X unknown_type\n"
				    "ffffffff81000050 T good\twith_tab_no_mod\n"
				    "ffffffff81000060 T nul\0inside\n"
				    "ffffffff81000070 T \0empty_after_nul\n"
				    "ffffffff81000080 t bad_mod\t[unclosed\n"
				    "ffffffff81000090 T crlf\r\n"
				    "ffffffff810000a0 T no_newline_at_end";
	check_text(text, sizeof(text) - 1);
	/* The highest address has an empty name: no symbol gets the last one's page. */
	static const char text2[] = "ffffffff81000000 T a\nffffffff81000010 T b\nffffffff81000fff T \0x\n";
	check_text(text2, sizeof(text2) - 1);
	assert_int_equal(check("0000000000000000 T hidden\n0000000000000000 t hidden2\n"), 0);
	assert_int_equal(check("ffffffff81000000 d data_only\n"), 0);
	assert_int_equal(check(""), 0);
}

static void test_large(void **state)
{
	/* More than a read (256 KB) and a group (2,048) and a chunk (64 KB): lines across reads, a
	 * line longer than a read, aliases and modules at random (fixed seed). */
	struct strbuf sb = STRBUF_INIT;
	unsigned seed = 12345;
	uint64_t addr = 0xffffffff81000000;
	for (int i = 0; i < 30000; i++) {
		seed = seed * 1103515245 + 12345;
		unsigned r = seed >> 16;
		if (r % 7)
			addr += 16 + r % 512;
		const char *types = "TtWwDb";
		sb_addf(&sb, "%016llx %c sym_%d_%u", (unsigned long long)addr, types[r % 6], i, r);
		if (r % 97 == 0)
			sb_addf(&sb, "\t[mod%u]", r % 3);
		sb_adds(&sb, "\n");
		if (i == 20000) {
			sb_addf(&sb, "%016llx T ", (unsigned long long)(addr + 1));
			for (int j = 0; j < 300000; j++)
				sb_adds(&sb, "x");
			sb_adds(&sb, "\n");
			addr += 2;
		}
	}
	for (int i = 0; i < 500; i++)
		sb_addf(&sb, "ffffffffc%07x t modsym_%d\t[late]\n", i * 64, i);
	assert_true(check_text(sb.buf, sb.len) > 10000);
	sb_release(&sb);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char p[64];
	snprintf(p, sizeof(p), "%s/kallsyms", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/snap", dir);
	unlink(p);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_aliases_and_types),
		cmocka_unit_test(test_modules_and_last),
		cmocka_unit_test(test_mangled),
		cmocka_unit_test(test_damaged_lines),
		cmocka_unit_test(test_large),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
