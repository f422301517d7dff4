/* mounts_has: which mount points a /proc/self/mounts table has, by type (tracefs_denied asks it
 * whether a denied kernel/debug/tracing is a tracefs or only behind a 0700 debugfs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/fileio.h"

/* The tables are written here (the emulated Arm machine runs the unit tests without fixtures). */
static char both[64], debugfs[64], missing[64];

static void table(char *path, const char *text)
{
	snprintf(path, 64, "/tmp/lperf-mounts.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	table(both, "nodev /sys/kernel/tracing tracefs rw,relatime 0 0\n"
		    "none /sys/kernel/debug debugfs rw,relatime 0 0\n"
		    "tracefs /sys/kernel/debug/tracing tracefs rw,relatime 0 0\n"
		    "/dev/vda /mnt/with\\040space ext4 rw 0 0\n");
	table(debugfs, "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
		       "none /sys/kernel/debug debugfs rw,relatime 0 0\n"
		       "proc /proc proc rw,relatime 0 0\n");
	table(missing, "");
	unlink(missing);
	return 0;
}

static int teardown(void **state)
{
	unlink(both);
	unlink(debugfs);
	return 0;
}

static void test_tracefs_mounted(void **state)
{
	assert_true(mounts_has(both, "/sys/kernel/tracing", "tracefs"));
	assert_true(mounts_has(both, "/sys/kernel/debug/tracing", "tracefs"));
	assert_false(mounts_has(both, "/sys/kernel/debug", "tracefs"));
	assert_true(mounts_has(both, "/sys/kernel/debug", "debugfs"));
	assert_true(mounts_has(both, "/mnt/with\\040space", "ext4"));
}

static void test_debugfs_alone(void **state)
{
	/* a debugfs of mode 0700 denies kernel/debug/tracing: no tracefs there all the same */
	assert_false(mounts_has(debugfs, "/sys/kernel/debug/tracing", "tracefs"));
	assert_false(mounts_has(debugfs, "/sys/kernel/tracing", "tracefs"));
	assert_false(mounts_has(debugfs, "/sys", "proc"));
}

static void test_unreadable_table(void **state)
{
	/* nothing known against it: as before the check, the denial stands */
	assert_true(mounts_has(missing, "/sys/kernel/tracing", "tracefs"));
}

static void *own_tid(void *arg)
{
	*(pid_t *)arg = proc_tgid((pid_t)syscall(SYS_gettid)); /* asked while the thread runs */
	return NULL;
}

/* proc_tgid, proc_ppid: this process's, a thread's of it, and a pid that is not there (0). */
/* A private read-only mapping of a file, an anonymous one, and an address in neither. */
static void test_self_mapping(void **state)
{
	char path[] = "/tmp/lperf-fileio-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	char page[8192] = { 1 };
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	char *p = mmap(NULL, sizeof(page), PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	struct self_mapping m;
	assert_true(proc_self_mapping((uintptr_t)p + 5000, &m));
	assert_int_equal(m.start, (uintptr_t)p);
	assert_true(m.end >= (uintptr_t)p + sizeof(page));
	assert_string_equal(m.perms, "r--p");
	assert_int_equal(m.inode, st.st_ino);
	char *a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(a != MAP_FAILED);
	assert_true(proc_self_mapping((uintptr_t)a, &m));
	assert_int_equal(m.inode, 0);
	assert_string_equal(m.perms, "rw-p");
	munmap(a, 4096);
	assert_false(proc_self_mapping((uintptr_t)a, &m));
	munmap(p, sizeof(page));
	close(fd);
	unlink(path);
}

static void test_proc_ids(void **state)
{
	assert_int_equal(proc_tgid(getpid()), getpid());
	assert_int_equal(proc_ppid(getpid()), getppid());
	pthread_t th;
	pid_t tg = 0;
	assert_int_equal(pthread_create(&th, NULL, own_tid, &tg), 0);
	pthread_join(th, NULL);
	assert_int_equal(tg, getpid());
	assert_int_equal(proc_tgid(-5), 0);
	assert_int_equal(proc_ppid(-5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracefs_mounted),
		cmocka_unit_test(test_debugfs_alone),
		cmocka_unit_test(test_unreadable_table),
		cmocka_unit_test(test_proc_ids),
		cmocka_unit_test(test_self_mapping),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
