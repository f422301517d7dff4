/* util/outfile: the one way lperf writes an output file. Another user's links and files at the
 * destination are refused (and never written through), a failed write leaves the previous file,
 * devices are written in place, the temporary is a new private file. Files "of another user" are
 * made with chown, so those cases run as root only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/error.h"
#include "util/outfile.h"
#include "util/xalloc.h"

#define OTHER_UID 65534

static char dir[] = "/tmp/lperf-test-outfile-XXXXXX";

static char *at(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Entries of dir other than the ones named. */
static int entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	outfile_private_dir_remove(dir);
	return 0;
}

static void test_new_and_replaced(void **state)
{
	char *p = at("new.txt");
	assert_int_equal(outfile_write(p, "one", 3, 0600), 0);
	assert_string_equal(slurp(p), "one");
	struct stat st, st2;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(outfile_write(p, "two", 3, 0644), 0);
	assert_string_equal(slurp(p), "two");
	assert_int_equal(stat(p, &st2), 0);
	assert_true(st.st_ino != st2.st_ino); /* a new file renamed over, not rewritten */
	assert_int_equal(entries(), 1);       /* no temporary left */
	unlink(p);
	free(p);
}

static void test_abort_keeps_previous(void **state)
{
	char *p = at("keep.txt");
	put(p, "previous");
	struct outfile o;
	FILE *f = outfile_fopen(&o, p);
	assert_non_null(f);
	fputs("half a pic", f);
	fflush(f);
	assert_string_equal(slurp(p), "previous");
	assert_int_equal(entries(), 2);
	outfile_abort(&o);
	assert_string_equal(slurp(p), "previous");
	assert_int_equal(entries(), 1);
	/* keep_old: the previous file becomes NAME.old */
	assert_non_null(f = outfile_fopen(&o, p));
	fputs("new", f);
	assert_int_equal(outfile_commit(&o, true), 0);
	char *old = xasprintf("%s.old", p);
	assert_string_equal(slurp(p), "new");
	assert_string_equal(slurp(old), "previous");
	unlink(old);
	unlink(p);
	free(old);
	free(p);
}

static void test_symlink_refused(void **state)
{
	char *victim = at("victim"), *link = at("link.svg");
	put(victim, "secret");
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(outfile_write(link, "x", 1, 0644), -1);
	assert_non_null(strstr(err_msg(), "symbolic link"));
	assert_string_equal(slurp(victim), "secret");
	/* stat --append's open refuses it too */
	struct outfile o;
	assert_null(outfile_fappend(&o, link));
	assert_string_equal(slurp(victim), "secret");
	/* -f replaces the link itself, never what it points to */
	outfile_force = true;
	assert_int_equal(outfile_write(link, "x", 1, 0644), 0);
	outfile_force = false;
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(slurp(victim), "secret");
	unlink(link);
	unlink(victim);
	free(victim);
	free(link);
}

static void test_other_users_file(void **state)
{
	if (geteuid() != 0)
		skip();
	char *p = at("planted.data");
	put(p, "theirs");
	assert_int_equal(chown(p, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(outfile_write(p, "root's data", 11, 0600), -1);
	assert_non_null(strstr(err_msg(), "belongs to another user (uid 65534"));
	assert_string_equal(slurp(p), "theirs");
	struct outfile o;
	assert_null(outfile_fappend(&o, p));
	assert_string_equal(slurp(p), "theirs");
	outfile_force = true;
	assert_int_equal(outfile_write(p, "root's data", 11, 0600), 0);
	outfile_force = false;
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	unlink(p);
	free(p);
}

static void test_devices_and_dirs(void **state)
{
	struct outfile o;
	assert_int_equal(outfile_open(&o, "/dev/null", 0600), 0);
	assert_true(outfile_in_place(&o));
	assert_int_equal(write(o.fd, "x", 1), 1);
	assert_int_equal(outfile_commit(&o, true), 0);
	struct stat st;
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(outfile_open(&o, dir, 0600), -1);
	assert_non_null(strstr(err_msg(), "is a directory"));
	char *slash = xasprintf("%s/", dir);
	assert_int_equal(outfile_open(&o, slash, 0600), -1);
	free(slash);
	assert_int_equal(outfile_open(&o, "/nonexistent-dir/x", 0600), -1);
	assert_non_null(strstr(err_msg(), "No such file or directory"));
}

static void test_append(void **state)
{
	char *p = at("log.txt");
	struct outfile o;
	FILE *f = outfile_fappend(&o, p);
	assert_non_null(f);
	fputs("a", f);
	assert_int_equal(outfile_commit(&o, false), 0);
	assert_non_null(f = outfile_fappend(&o, p));
	fputs("b", f);
	assert_int_equal(outfile_commit(&o, false), 0);
	assert_string_equal(slurp(p), "ab");
	unlink(p);
	free(p);
}

static void test_private_dir(void **state)
{
	char *d = outfile_private_dir();
	assert_non_null(d);
	struct stat st;
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	char *f = xasprintf("%s/spe.data", d);
	put(f, "x");
	outfile_private_dir_remove(d);
	assert_int_equal(stat(d, &st), -1);
	free(f);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_replaced),
		cmocka_unit_test(test_abort_keeps_previous),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_other_users_file),
		cmocka_unit_test(test_devices_and_dirs),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_private_dir),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
