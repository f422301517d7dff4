/* Synthesis: the records lperf makes for what exists when a recording starts (the kernel map,
 * modules, processes, threads and their executable mappings), checked against /proc and
 * against fixtures, parsed straight from the uapi layouts. */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "records_test.h"
#include "live/live.h"

static const struct perf_event_attr synth_attr = {
	.type = PERF_TYPE_SOFTWARE,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
		       PERF_SAMPLE_CPU,
	.sample_id_all = 1,
};

struct tmmap {
	uint16_t misc;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min, prot, flags;
	uint64_t ino;
	const char *filename;
};

/* MMAP: pid tid start len pgoff filename; MMAP2 adds maj min ino ino_gen prot flags. */
static void get_mmap(const struct perf_event_header *h, struct tmmap *m)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	memset(m, 0, sizeof(*m));
	m->misc = h->misc;
	memcpy(&m->pid, p, 4);
	memcpy(&m->tid, p + 4, 4);
	memcpy(&m->start, p + 8, 8);
	memcpy(&m->len, p + 16, 8);
	memcpy(&m->pgoff, p + 24, 8);
	p += 32;
	if (h->type == PERF_RECORD_MMAP2) {
		memcpy(&m->maj, p, 4);
		memcpy(&m->min, p + 4, 4);
		memcpy(&m->ino, p + 8, 8);
		memcpy(&m->prot, p + 24, 4);
		memcpy(&m->flags, p + 28, 4);
		p += 32;
	}
	size_t room = (size_t)((const uint8_t *)h + h->size - p);
	assert_true(memchr(p, 0, room) != NULL);
	m->filename = (const char *)p;
}

static void read_kernel_syms(uint64_t *text, uint64_t *etext)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	char line[512];
	*text = *etext = 0;
	bool got_text = false, got_etext = false;
	while (fgets(line, sizeof(line), f) && !(got_text && got_etext)) {
		unsigned long long a;
		char type, name[256];
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		/* arm64's kallsyms has no _text: _stext, as for synth_kernel and perf. */
		if (!got_text && (!strcmp(name, "_text") || !strcmp(name, "_stext")))
			*text = a, got_text = true;
		if (!got_etext && !strcmp(name, "_etext"))
			*etext = a, got_etext = true;
	}
	fclose(f);
	assert_true(got_text);
}

static void test_synth_kernel(void **state)
{
	struct coll col = { .rb = -1 };
	assert_int_equal(synth_kernel(&synth_attr, collect, &col), 0);
	size_t kernel = 0;
	uint64_t text, etext;
	read_kernel_syms(&text, &etext);
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		assert_int_equal(h->type, PERF_RECORD_MMAP);
		struct tmmap m;
		get_mmap(h, &m);
		assert_int_equal(m.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_KERNEL);
		assert_int_equal(m.pid, UINT32_MAX);
		if (!strncmp(m.filename, "[kernel.kallsyms]", 17)) {
			assert_true(!strcmp(m.filename, "[kernel.kallsyms]_text") ||
				    !strcmp(m.filename, "[kernel.kallsyms]_stext"));
			assert_int_equal(m.start, text);
			assert_int_equal(m.pgoff, text);
			/* perf 6.1: up to _etext when kallsyms shows it (0x1276508 in this VM) */
			if (etext > text)
				assert_int_equal(m.len, etext - text);
			else
				assert_int_equal(m.len, ~0ULL - text);
			kernel++;
		}
	}
	assert_int_equal(kernel, 1);
	coll_free(&col);
}

static char tmpdir[] = "/tmp/lperf-synth-XXXXXX";

static char *write_tmp(const char *name, const char *text)
{
	char *path = NULL;
	assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_synth_kernel_fixture(void **state)
{
	assert_non_null(mkdtemp(tmpdir));
	/* No _text and no _etext: _stext names the map, which ends at the first module above. */
	char *ks = write_tmp("kallsyms", "ffffffff81000000 T startup_64\n"
					 "ffffffff81001000 T _stext\n"
					 "ffffffffc0001000 t mod_fn\t[ext4]\n"
					 "garbage line\n"
					 "ffffffff82000000 D _edata\n");
	char *mods = write_tmp("modules",
			       "ext4 1048576 2 - Live 0xffffffffc0000000\n"
			       "snd_hda_core 4096 0 - Live 0xffffffffc0200000 (O)\n"
			       "bogus\n"
			       "evil/name 10 0 - Live 0xffffffffc0300000\n");
	char *moddir = NULL, *kdir = NULL, *ko = NULL;
	assert_true(asprintf(&moddir, "%s/lib", tmpdir) > 0);
	assert_true(asprintf(&kdir, "%s/kernel", moddir) > 0);
	assert_true(asprintf(&ko, "%s/snd-hda-core.ko.xz", kdir) > 0);
	assert_int_equal(mkdir(moddir, 0755), 0);
	assert_int_equal(mkdir(kdir, 0755), 0);
	close(open(ko, O_CREAT | O_WRONLY, 0644));

	struct coll col = { .rb = -1 };
	assert_int_equal(synth_kernel_from(&synth_attr, ks, mods, moddir, collect, &col), 0);
	assert_int_equal(col.n, 3);
	struct tmmap m;
	get_mmap(hdr(&col, 0), &m);
	assert_string_equal(m.filename, "[kernel.kallsyms]_stext");
	assert_int_equal(m.start, 0xffffffff81001000ULL);
	assert_int_equal(m.pgoff, 0xffffffff81001000ULL);
	assert_int_equal(m.len, 0xffffffffc0000000ULL - 0xffffffff81001000ULL);
	get_mmap(hdr(&col, 1), &m);
	assert_string_equal(m.filename, "[ext4]");
	assert_int_equal(m.start, 0xffffffffc0000000ULL);
	assert_int_equal(m.len, 1048576);
	assert_int_equal(m.pgoff, 0);
	assert_int_equal(m.pid, UINT32_MAX);
	assert_int_equal(m.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_KERNEL);
	get_mmap(hdr(&col, 2), &m);
	assert_string_equal(m.filename, ko); /* its file, found under the module tree */
	assert_int_equal(m.start, 0xffffffffc0200000ULL);
	coll_free(&col);

	/* Hidden addresses (kptr_restrict): everything reads 0, and is emitted as 0. */
	char *ks0 = write_tmp("kallsyms0", "0000000000000000 T _text\n0000000000000000 T _etext\n");
	char *mods0 = write_tmp("modules0", "ext4 1048576 2 - Live 0x0000000000000000\n");
	assert_int_equal(synth_kernel_from(&synth_attr, ks0, mods0, NULL, collect, &col), 0);
	assert_int_equal(col.n, 2);
	get_mmap(hdr(&col, 0), &m);
	assert_string_equal(m.filename, "[kernel.kallsyms]_text");
	assert_int_equal(m.start, 0);
	assert_int_equal(m.len, ~0ULL);
	get_mmap(hdr(&col, 1), &m);
	assert_int_equal(m.start, 0);
	coll_free(&col);

	/* No kallsyms at all: still one kernel map. */
	assert_int_equal(synth_kernel_from(&synth_attr, "/nonexistent", NULL, NULL, collect, &col), 0);
	assert_int_equal(col.n, 1);
	coll_free(&col);

	unlink(ko);
	rmdir(kdir);
	rmdir(moddir);
	unlink(ks);
	unlink(mods);
	unlink(ks0);
	unlink(mods0);
	rmdir(tmpdir);
	free(ks);
	free(mods);
	free(ks0);
	free(mods0);
	free(ko);
	free(kdir);
	free(moddir);
}

static void test_synth_maps_fixture(void **state)
{
	strcpy(tmpdir, "/tmp/lperf-synth-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	char *maps = write_tmp("maps",
		"55d0c0000000-55d0c0002000 r--p 00000000 fe:00 1234 /usr/bin/app\n"
		"55d0c0002000-55d0c0005000 r-xp 00002000 fe:00 1234 /usr/bin/app\n"
		"7f0000000000-7f0000001000 r-xp 00001000 08:1f 99   /opt/my dir/lib x.so (deleted)\n"
		"7f0000100000-7f0000200000 rwxp 00000000 00:00 0 \n"
		"7f0000300000-7f0000301000 r-xs 00000000 00:05 77 /dev/zero\n"
		"7f0000400000-7f0000300000 r-xp 00000000 00:00 0 backwards\n"
		"zzzz-7f0000500000 r-xp 00000000 00:00 0 junk\n"
		"7f0000600000-7f0000601000 r-x\n"
		"7f0000700000-7f0000701000 r-xp 00000000 00:00 0 [vdso]\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]");
	struct coll col = { .rb = -1 };
	assert_int_equal(synth_mmaps_from(&synth_attr, 4242, maps, collect, &col), 0);
	const char *want[] = { "/usr/bin/app", "/opt/my dir/lib x.so (deleted)", "//anon",
			       "/dev/zero", "[vdso]", "[vsyscall]" };
	assert_int_equal(col.n, 6);
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		assert_int_equal(h->type, PERF_RECORD_MMAP2);
		struct tmmap m;
		get_mmap(h, &m);
		assert_string_equal(m.filename, want[i]);
		assert_int_equal(m.pid, 4242);
		assert_int_equal(m.misc & PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MISC_USER);
		assert_true(m.prot & PROT_EXEC);
		if (i == 0) {
			assert_int_equal(m.start, 0x55d0c0002000ULL);
			assert_int_equal(m.len, 0x3000);
			assert_int_equal(m.pgoff, 0x2000);
			assert_int_equal(m.maj, 0xfe);
			assert_int_equal(m.min, 0);
			assert_int_equal(m.ino, 1234);
			assert_int_equal(m.prot, PROT_READ | PROT_EXEC);
			assert_int_equal(m.flags, MAP_PRIVATE);
		}
		if (i == 1) {
			assert_int_equal(m.maj, 8);
			assert_int_equal(m.min, 0x1f);
		}
		if (i == 2)
			assert_int_equal(m.prot, PROT_READ | PROT_WRITE | PROT_EXEC);
		if (i == 3)
			assert_int_equal(m.flags, MAP_SHARED);
		if (i == 5)
			assert_int_equal(m.prot, PROT_EXEC);
	}
	coll_free(&col);
	unlink(maps);
	rmdir(tmpdir);
	free(maps);
}

static int helper_pipe[2];
static volatile pid_t helper_tid;

static void *helper(void *arg)
{
	helper_tid = (pid_t)syscall(SYS_gettid);
	char b;
	(void)!read(helper_pipe[0], &b, 1);
	return NULL;
}

static void test_synth_self(void **state)
{
	assert_int_equal(pipe(helper_pipe), 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, helper, NULL), 0);
	while (!helper_tid)
		usleep(1000);
	struct coll col = { .rb = -1 };
	int r = synth_process(&synth_attr, getpid(), collect, &col);
	assert_int_equal(write(helper_pipe[1], "x", 1), 1);
	pthread_join(th, NULL);
	close(helper_pipe[0]);
	close(helper_pipe[1]);
	assert_int_equal(r, 0);

	char comm[64] = "", exe[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	assert_true(readlink("/proc/self/exe", exe, sizeof(exe) - 1) > 0);

	uint32_t me = (uint32_t)getpid();
	size_t comms = 0, own_exe = 0, libc = 0, forks = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		const uint32_t *u = (const uint32_t *)(h + 1);
		if (h->type == PERF_RECORD_COMM) {
			assert_int_equal(u[0], me);
			if (u[1] == me) {
				assert_string_equal((const char *)(u + 2), comm);
				assert_false(h->misc & PERF_RECORD_MISC_COMM_EXEC);
			}
			comms++;
		} else if (h->type == PERF_RECORD_MMAP2) {
			struct tmmap m;
			get_mmap(h, &m);
			assert_int_equal(m.pid, me);
			own_exe += !strcmp(m.filename, exe);
			libc += strstr(m.filename, "/libc.so") != NULL ||
				strstr(m.filename, "/libc-") != NULL;
		} else if (h->type == PERF_RECORD_FORK) {
			if (u[0] == me && u[1] == me && u[2] == (uint32_t)helper_tid)
				forks++;
			assert_true(u[2] != me); /* not for the leader */
		} else {
			fail_msg("unexpected record type %u", h->type);
		}
	}
	/* The leader's COMM comes first. */
	assert_int_equal(hdr(&col, 0)->type, PERF_RECORD_COMM);
	assert_true(comms >= 2);
	assert_int_equal(own_exe, 1);
	assert_true(libc >= 1);
	assert_int_equal(forks, 1);
	coll_free(&col);

	/* A process that is gone: nothing, and no error. */
	assert_int_equal(synth_process(&synth_attr, INT_MAX - 1, collect, &col), 0);
	assert_int_equal(col.n, 0);
}

static void test_synth_all(void **state)
{
	struct coll col = { .rb = -1 };
	assert_int_equal(synth_all_processes(&synth_attr, collect, &col), 0);
	/* init and this process at least. */
	size_t init = 0, self = 0;
	for (size_t i = 0; i < col.n; i++) {
		const struct perf_event_header *h = hdr(&col, i);
		const uint32_t *u = (const uint32_t *)(h + 1);
		if (h->type == PERF_RECORD_COMM) {
			init += u[0] == 1;
			self += u[0] == (uint32_t)getpid();
		}
	}
	assert_true(init >= 1);
	assert_true(self >= 1);
	coll_free(&col);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synth_kernel),
		cmocka_unit_test(test_synth_kernel_fixture),
		cmocka_unit_test(test_synth_maps_fixture),
		cmocka_unit_test(test_synth_self),
		cmocka_unit_test(test_synth_all),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
