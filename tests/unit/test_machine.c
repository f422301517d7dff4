/* The machine model: address-space maps (overlap splitting checked against a page-by-page model),
 * threads and processes through FORK, COMM (exec), EXIT and tid reuse, kernel and module maps
 * with a kallsyms fixture, resolution of this very process from its /proc/self/maps, and a
 * million lookups to catch accidental linear scans. */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/machine.h"
#include "resolve/resolve.h"
#include "symbols/dso.h"
#include "util/xalloc.h"

static char tmpdir[] = "/tmp/lperf-machine-XXXXXX";
static char *kallsyms;

/* A small kernel: text from 0xffffffff81000000, and one module. */
static const char kallsyms_fixture[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t early_fn\n"
	"ffffffff81002000 T do_syscall_64\n"
	"ffffffff81004000 T _etext\n"
	"ffffffffc0001000 t mod_init\t[foo_bar]\n"
	"ffffffffc0001100 t mod_work\t[foo_bar]\n";

static int setup(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	kallsyms = xasprintf("%s/kallsyms", tmpdir);
	FILE *f = fopen(kallsyms, "w");
	if (!f)
		return -1;
	fputs(kallsyms_fixture, f);
	fclose(f);
	setenv("LPERF_KALLSYMS", kallsyms, 1);
	return 0;
}

static int teardown(void **state)
{
	unsetenv("LPERF_KALLSYMS");
	unlink(kallsyms);
	rmdir(tmpdir);
	free(kallsyms);
	return 0;
}

static void maps_split_and_trim(void **state)
{
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *a = dso_cache_get(&c, "/a", NULL, 0), *b = dso_cache_get(&c, "/b", NULL, 0);
	struct dso *x = dso_cache_get(&c, "/x", NULL, 0);
	struct maps *ms = maps_new();
	maps_insert(ms, &(struct map){ 0x1000, 0x5000, 0, 5, 0, a });
	/* A hole punched in the middle leaves a head and a tail whose pgoff follows. */
	maps_insert(ms, &(struct map){ 0x2000, 0x3000, 0x100000, 5, 0, b });
	assert_int_equal(ms->n, 3);
	assert_int_equal(maps_view(ms)[0].start, 0x1000);
	assert_int_equal(maps_view(ms)[0].end, 0x2000);
	assert_int_equal(maps_view(ms)[0].pgoff, 0);
	assert_ptr_equal(maps_view(ms)[1].dso, b);
	assert_int_equal(maps_view(ms)[2].start, 0x3000);
	assert_int_equal(maps_view(ms)[2].end, 0x5000);
	assert_int_equal(maps_view(ms)[2].pgoff, 0x2000);
	assert_ptr_equal(maps_view(ms)[2].dso, a);
	/* Covering the start of one map and the end of another. */
	maps_insert(ms, &(struct map){ 0x1800, 0x3800, 0, 5, 0, x });
	assert_int_equal(ms->n, 3);
	assert_int_equal(maps_view(ms)[0].end, 0x1800);
	assert_ptr_equal(maps_view(ms)[1].dso, x);
	assert_int_equal(maps_view(ms)[2].start, 0x3800);
	assert_int_equal(maps_view(ms)[2].pgoff, 0x2800);
	/* Lookups: ends are exclusive. */
	assert_ptr_equal(maps_find(ms, 0x17ff)->dso, a);
	assert_ptr_equal(maps_find(ms, 0x1800)->dso, x);
	assert_ptr_equal(maps_find(ms, 0x4fff)->dso, a);
	assert_null(maps_find(ms, 0x5000));
	assert_null(maps_find(ms, 0xfff));
	/* Swallowing everything. */
	maps_insert(ms, &(struct map){ 0, 0x10000, 0, 5, 0, b });
	assert_int_equal(ms->n, 1);
	/* Empty maps change nothing. */
	maps_insert(ms, &(struct map){ 0x20000, 0x20000, 0, 5, 0, a });
	assert_int_equal(ms->n, 1);
	maps_put(ms);
	dso_cache_free(&c);
}

/* Random mappings against a model that remembers, for each page, which mapping and file page
 * it shows. */
static void maps_match_page_model(void **state)
{
	enum { PAGES = 256, ROUNDS = 3000 };
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *dsos[8];
	for (int i = 0; i < 8; i++) {
		char p[16];
		snprintf(p, sizeof(p), "/d%d", i);
		dsos[i] = dso_cache_get(&c, p, NULL, 0);
	}
	int model_dso[PAGES];
	uint64_t model_off[PAGES];
	for (int i = 0; i < PAGES; i++)
		model_dso[i] = -1;
	struct maps *ms = maps_new();
	uint32_t seed = 7;
	for (int r = 0; r < ROUNDS; r++) {
		seed = seed * 1103515245 + 12345;
		int start = (int)((seed >> 8) % PAGES);
		seed = seed * 1103515245 + 12345;
		int len = 1 + (int)((seed >> 8) % 24);
		if (start + len > PAGES)
			len = PAGES - start;
		int di = (int)((seed >> 4) % 8);
		uint64_t pgoff = (uint64_t)((seed >> 12) % 64) * 0x1000;
		maps_insert(ms, &(struct map){ (uint64_t)start * 0x1000, (uint64_t)(start + len) * 0x1000, pgoff, 5, 0,
					      dsos[di] });
		for (int p = start; p < start + len; p++) {
			model_dso[p] = di;
			model_off[p] = pgoff + (uint64_t)(p - start) * 0x1000;
		}
		for (size_t i = 1; i < ms->n; i++)
			assert_true(maps_view(ms)[i - 1].end <= maps_view(ms)[i].start);
		for (int p = 0; p < PAGES; p++) {
			const struct map *m = maps_find(ms, (uint64_t)p * 0x1000 + 0x800);
			if (model_dso[p] < 0) {
				assert_null(m);
				continue;
			}
			assert_non_null(m);
			assert_ptr_equal(m->dso, dsos[model_dso[p]]);
			assert_int_equal(m->pgoff + ((uint64_t)p * 0x1000 - m->start), model_off[p]);
		}
	}
	struct maps *copy = maps_clone(ms);
	assert_int_equal(copy->n, ms->n);
	assert_memory_equal(maps_view(copy), maps_view(ms), ms->n * sizeof(struct map));
	maps_put(copy);
	maps_put(ms);
	dso_cache_free(&c);
}

/* A million mappings (a hostile recording's MMAP2 records), top-down as mmap places them, then
 * 200,000 at scattered addresses: seconds of CPU time (not the sorted array's minutes: a loaded
 * machine stretches wall time, so CPU time is measured); lookups still right. */
static void maps_million(void **state)
{
	enum { N = 1000000 };
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *a = dso_cache_get(&c, "/a", NULL, 0);
	struct maps *ms = maps_new();
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t start = (uint64_t)(2 * N - 2 * i) * 0x1000;
		maps_insert(ms, &(struct map){ start, start + 0x1000, i, 5, 0, a });
	}
	assert_int_equal(ms->n, N);
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < N / 5; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t start = (x % (4 * (uint64_t)N)) * 0x1000;
		maps_insert(ms, &(struct map){ start, start + 0x800, 7, 5, 0, a });
		assert_int_equal(maps_find(ms, start + 0x10)->pgoff, 7);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("1,200,000 inserts and 200,000 lookups: %.2f s of CPU\n", secs);
#ifdef __SANITIZE_ADDRESS__
	assert_true(secs < 30);
#else
	assert_true(secs < 5);
#endif
	const struct map *v = maps_view(ms);
	for (size_t i = 1; i < ms->n; i++)
		assert_true(v[i - 1].end <= v[i].start);
	maps_put(ms);
	dso_cache_free(&c);
}

static const struct map *user_map(struct machine *m, pid_t tid, uint64_t addr)
{
	struct thread *t = machine_find_thread(m, tid);
	return t ? maps_find(t->maps, addr) : NULL;
}

static void threads_first_sight_and_sharing(void **state)
{
	struct machine m;
	machine_init(&m);
	struct thread *t = machine_thread(&m, 100, 101);
	/* Unknown threads are named by tid; the process leader is made too. */
	assert_string_equal(t->comm, ":101");
	assert_false(t->comm_set);
	struct thread *leader = machine_find_thread(&m, 100);
	assert_non_null(leader);
	assert_ptr_equal(leader->maps, t->maps);
	assert_ptr_equal(machine_thread(&m, 100, 101), t);
	assert_ptr_equal(machine_thread(&m, -1, 101), t);
	/* An MMAP seen through one thread is the whole process's. */
	machine_mmap(&m, 100, 101, 0x400000, 0x1000, 0, 5, "/bin/x", NULL, 0, false);
	assert_non_null(user_map(&m, 100, 0x400800));
	/* A named process does not name its unknown threads. */
	machine_comm(&m, 100, 100, "app", false);
	assert_string_equal(machine_thread(&m, 100, 105)->comm, ":105");
	assert_string_equal(leader->comm, "app");
	/* The idle task. */
	assert_string_equal(machine_thread(&m, 0, 0)->comm, "swapper");
	/* A thread first seen without its pid joins its process later. */
	struct thread *orphan = machine_thread(&m, -1, 102);
	assert_ptr_equal(machine_thread(&m, 100, 102), orphan);
	assert_ptr_equal(orphan->maps, leader->maps);
	/* Many threads: the table grows and finds them all. */
	for (pid_t i = 1000; i < 6000; i++)
		machine_thread(&m, i, i);
	for (pid_t i = 1000; i < 6000; i += 97)
		assert_int_equal(machine_find_thread(&m, i)->tid, i);
	assert_ptr_equal(machine_find_thread(&m, 101), t);
	assert_null(machine_find_thread(&m, 999999));
	machine_free(&m);
}

static void fork_copies_process_shares_thread(void **state)
{
	struct machine m;
	machine_init(&m);
	machine_comm(&m, 10, 10, "parent", false);
	machine_mmap(&m, 10, 10, 0x400000, 0x1000, 0, 5, "/bin/p", NULL, 0, false);
	/* A new process: a copy of the address space, and the parent's comm. */
	machine_fork(&m, 20, 10, 20, 10);
	struct thread *child = machine_find_thread(&m, 20);
	assert_string_equal(child->comm, "parent");
	assert_true(child->comm_set);
	assert_ptr_not_equal(child->maps, machine_find_thread(&m, 10)->maps);
	assert_non_null(user_map(&m, 20, 0x400000));
	machine_mmap(&m, 20, 20, 0x500000, 0x1000, 0, 5, "/lib/c.so", NULL, 0, false);
	machine_mmap(&m, 10, 10, 0x600000, 0x1000, 0, 5, "/lib/p.so", NULL, 0, false);
	assert_null(user_map(&m, 10, 0x500000));
	assert_null(user_map(&m, 20, 0x600000));
	/* A new thread of the parent: the same address space. */
	machine_fork(&m, 10, 10, 11, 10);
	struct thread *th = machine_find_thread(&m, 11);
	assert_ptr_equal(th->maps, machine_find_thread(&m, 10)->maps);
	assert_string_equal(th->comm, "parent");
	machine_mmap(&m, 10, 11, 0x700000, 0x1000, 0, 5, "/lib/t.so", NULL, 0, false);
	assert_non_null(user_map(&m, 10, 0x700000));
	/* A fork from a parent never seen before still makes a child. */
	machine_fork(&m, 30, 29, 30, 29);
	assert_string_equal(machine_find_thread(&m, 30)->comm, ":29");
	machine_free(&m);
}

static void exec_clears_address_space(void **state)
{
	struct machine m;
	machine_init(&m);
	machine_comm(&m, 10, 10, "sh", false);
	machine_mmap(&m, 10, 10, 0x400000, 0x1000, 0, 5, "/bin/sh", NULL, 0, false);
	machine_fork(&m, 10, 10, 11, 10);
	/* A COMM without exec (a rename, or a synthesized one) keeps the maps. */
	machine_comm(&m, 10, 10, "renamed", false);
	assert_non_null(user_map(&m, 10, 0x400000));
	machine_comm(&m, 10, 10, "ls", true);
	struct thread *t = machine_find_thread(&m, 10);
	assert_string_equal(t->comm, "ls");
	assert_null(user_map(&m, 10, 0x400000));
	assert_null(user_map(&m, 11, 0x400000));
	machine_mmap(&m, 10, 10, 0x400000, 0x2000, 0, 5, "/bin/ls", NULL, 0, false);
	assert_string_equal(user_map(&m, 10, 0x401000)->dso->short_name, "ls");
	machine_free(&m);
}

/* The Python view's thread names (machine_rename): the kernel's comm kept, inherited by a fork,
 * ended by a COMM. */
static void rename_keeps_kernel_comm(void **state)
{
	struct machine m;
	machine_init(&m);
	machine_comm(&m, 20, 20, "python3", false);
	machine_rename(&m, 20, 20, "MainThread");
	struct thread *t = machine_find_thread(&m, 20);
	assert_string_equal(t->comm, "MainThread");
	assert_string_equal(t->kcomm, "python3");
	machine_rename(&m, 20, 20, "Main");
	assert_string_equal(t->comm, "Main");
	assert_string_equal(t->kcomm, "python3");
	machine_fork(&m, 20, 20, 21, 20);
	struct thread *c = machine_find_thread(&m, 21);
	assert_string_equal(c->comm, "python3");
	assert_null(c->kcomm);
	machine_comm(&m, 20, 20, "other", false);
	assert_string_equal(t->comm, "other");
	assert_null(t->kcomm);
	machine_free(&m);
}

static void exit_keeps_thread_until_reuse(void **state)
{
	struct machine m;
	machine_init(&m);
	machine_comm(&m, 40, 40, "worker", false);
	machine_mmap(&m, 40, 40, 0x400000, 0x1000, 0, 5, "/bin/w", NULL, 0, false);
	machine_exit(&m, 40, 40);
	struct thread *old = machine_find_thread(&m, 40);
	assert_true(old->exited);
	/* Late samples still resolve in the exited thread. */
	assert_ptr_equal(machine_thread(&m, 40, 40), old);
	assert_non_null(user_map(&m, 40, 0x400000));
	/* The tid comes back in a new process: a new thread; the old one stays valid. */
	machine_comm(&m, 1, 1, "init", false);
	machine_fork(&m, 40, 1, 40, 1);
	struct thread *nw = machine_find_thread(&m, 40);
	assert_ptr_not_equal(nw, old);
	assert_false(nw->exited);
	assert_string_equal(nw->comm, "init");
	assert_string_equal(old->comm, "worker");
	assert_null(user_map(&m, 40, 0x400000));
	/* A tid seen in another process without a FORK: also a new thread. */
	struct thread *again = machine_thread(&m, 50, 40);
	assert_ptr_not_equal(again, nw);
	assert_int_equal(again->pid, 50);
	machine_exit(&m, 77, 77); /* unknown: nothing happens */
	assert_null(machine_find_thread(&m, 77));
	machine_free(&m);
}

static void kernel_and_module_maps(void **state)
{
	struct machine m;
	machine_init(&m);
	uint64_t text = 0xffffffff81000000ull;
	machine_mmap(&m, -1, 0, text, UINT64_MAX - text, text, 5, "[kernel.kallsyms]_text", NULL, 0, true);
	assert_true(m.kernel_map_seen);
	assert_int_equal(m.kmaps.n, 1);
	assert_int_equal(maps_view(&m.kmaps)[0].end, UINT64_MAX);
	machine_mmap(&m, -1, 0, 0xffffffffc0001000ull, 0x2000, 0, 5, "/lib/modules/6.1/kernel/foo-bar.ko", NULL, 0,
		     true);
	/* The module ends the kernel map instead of splitting it. */
	assert_int_equal(m.kmaps.n, 2);
	assert_int_equal(maps_view(&m.kmaps)[0].end, 0xffffffffc0001000ull);

	struct thread *t = machine_thread(&m, 5, 5);
	struct addr_loc loc;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_KERNEL, 0xffffffff81001234ull, 0, &loc));
	assert_true(loc.kernel);
	assert_string_equal(loc.dso->short_name, "[kernel.kallsyms]");
	assert_string_equal(loc.sym->name, "early_fn");
	assert_int_equal(loc.addr, 0xffffffff81001234ull);
	assert_int_equal(loc.sym_off, 0x234);
	assert_true(resolve_addr(&m, NULL, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001150ull, 0, &loc));
	assert_string_equal(loc.dso->short_name, "[foo_bar]");
	assert_string_equal(loc.sym->name, "mod_work");
	/* Unknown cpumode: kernel addresses are found anyway. */
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_CPUMODE_UNKNOWN, 0xffffffff81002010ull, 0, &loc));
	assert_true(loc.kernel);
	assert_string_equal(loc.sym->name, "do_syscall_64");
	/* A kernel address in user mode is not in the process's maps. */
	assert_false(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0xffffffff81002010ull, 0, &loc));
	assert_false(loc.kernel);
	assert_null(loc.map);
	assert_int_equal(loc.addr, 0xffffffff81002010ull);
	/* Nothing is modelled for the hypervisor and guests. */
	assert_false(resolve_addr(&m, t, PERF_RECORD_MISC_HYPERVISOR, 0xffffffff81002010ull, 0, &loc));
	assert_true(loc.kernel);
	assert_false(resolve_addr(&m, t, PERF_RECORD_MISC_GUEST_KERNEL, 0xffffffff81002010ull, 0, &loc));
	assert_false(resolve_addr(&m, t, PERF_RECORD_MISC_GUEST_USER, 0x400000, 0, &loc));
	/* No thread: no user maps. */
	assert_false(resolve_addr(&m, NULL, PERF_RECORD_MISC_USER, 0x400000, 0, &loc));
	machine_free(&m);
}

static void kernel_without_mmap(void **state)
{
	struct machine m;
	machine_init(&m);
	struct addr_loc loc;
	assert_true(resolve_addr(&m, NULL, PERF_RECORD_MISC_KERNEL, 0xffffffff81001010ull, 0, &loc));
	assert_string_equal(loc.sym->name, "early_fn");
	/* Module symbols come with their module's name in [kernel.kallsyms]. */
	assert_true(resolve_addr(&m, NULL, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001010ull, 0, &loc));
	assert_string_equal(loc.sym->name, "mod_init [foo_bar]");
	/* A real kernel map replaces the stand-in. It is recorded up to _etext, but reaches the end
	 * of the address space (.init.text lies past _etext), as perf's: without module maps the
	 * module's code is still named from kallsyms. */
	uint64_t text = 0xffffffff81000000ull;
	machine_mmap(&m, -1, 0, text, 0x10000, text, 5, "[kernel.kallsyms]_text", NULL, 0, true);
	assert_int_equal(m.kmaps.n, 1);
	assert_int_equal(maps_view(&m.kmaps)[0].end, UINT64_MAX);
	assert_true(resolve_addr(&m, NULL, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001010ull, 0, &loc));
	assert_string_equal(loc.sym->name, "mod_init [foo_bar]");
	machine_free(&m);
}

/* This process, as perf would have recorded it: its file-backed maps from /proc/self/maps. */
static void feed_self(struct machine *m, pid_t pid)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, off;
		char perms[8], path[4000] = "";
		int n = sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %3999[^\n]", &start, &end, perms, &off,
			       path);
		if (n < 4)
			continue;
		if (path[0] != '/' && strcmp(path, "[vdso]"))
			continue;
		machine_mmap(m, pid, pid, start, end - start, off, perms[2] == 'x' ? 5 : 1, path, NULL, 0, false);
	}
	fclose(f);
}

static int local_function_for_lookup(int x)
{
	return x * 3 + 1;
}

static void resolve_this_process(void **state)
{
	struct machine m;
	machine_init(&m);
	pid_t pid = getpid();
	feed_self(&m, pid);
	struct thread *t = machine_thread(&m, pid, pid);
	struct addr_loc loc;
	/* A static function of this test, a library function of lperf linked in, one of libc. */
	uint64_t ip = (uint64_t)(uintptr_t)&local_function_for_lookup + 1;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, ip, 0, &loc));
	assert_non_null(loc.sym);
	assert_string_equal(loc.sym->name, "local_function_for_lookup");
	assert_string_equal(loc.dso->short_name, "test_machine");
	assert_int_equal(loc.sym_off, 1);
	ip = (uint64_t)(uintptr_t)&maps_find;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, ip, 0, &loc));
	assert_string_equal(loc.sym->name, "maps_find");
	ip = (uint64_t)(uintptr_t)&getpid;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, ip, 0, &loc));
	assert_non_null(loc.sym);
	assert_non_null(strstr(loc.dso->short_name, "libc"));
	assert_non_null(strstr(loc.sym->name, "getpid"));
	machine_free(&m);
}

/* Not timed: a linear scan anywhere (threads, maps, symbols) makes this take minutes. */
static void million_lookups(void **state)
{
	/* A kernel with 200,000 symbols. */
	char *big = xasprintf("%s/kallsyms-big", tmpdir);
	FILE *f = fopen(big, "w");
	assert_non_null(f);
	for (int i = 0; i < 200000; i++)
		fprintf(f, "%016" PRIx64 " t fn_%d\n", (uint64_t)(0xffffffff81000000ull + (uint64_t)i * 0x40), i);
	fclose(f);
	struct machine m;
	machine_init(&m);
	machine_mmap(&m, -1, 0, 0xffffffff81000000ull, 200000 * 0x40, 0xffffffff81000000ull, 5,
		     "[kernel.kallsyms]_text", NULL, 0, true);
	dso_load_kallsyms(maps_view(&m.kmaps)[0].dso, big);
	assert_int_equal(maps_view(&m.kmaps)[0].dso->nsyms, 200000);
	/* 100 processes of 2,000 maps each. */
	for (pid_t p = 1; p <= 100; p++)
		for (uint64_t i = 0; i < 2000; i++)
			machine_mmap(&m, p, p, 0x10000000 + i * 0x10000, 0x8000, 0, 5, "//anon", NULL, 0, false);
	pid_t pid = getpid();
	feed_self(&m, pid);
	uint64_t self_ip = (uint64_t)(uintptr_t)&local_function_for_lookup;
	uint32_t seed = 99;
	size_t kernel_hits = 0, user_hits = 0, self_hits = 0;
	for (int i = 0; i < 1000000; i++) {
		seed = seed * 1103515245 + 12345;
		struct addr_loc loc;
		switch (i % 3) {
		case 0: {
			uint64_t ip = 0xffffffff81000000ull + (uint64_t)(seed % 200000) * 0x40 + 3;
			if (resolve_addr(&m, NULL, PERF_RECORD_MISC_KERNEL, ip, 0, &loc) && loc.sym)
				kernel_hits++;
			break;
		}
		case 1: {
			pid_t p = 1 + (pid_t)(seed % 100);
			uint64_t ip = 0x10000000 + (uint64_t)((seed >> 8) % 2000) * 0x10000 + 0x100;
			user_hits += resolve_addr(&m, machine_thread(&m, p, p), PERF_RECORD_MISC_USER, ip, 0, &loc);
			break;
		}
		default:
			if (resolve_addr(&m, machine_thread(&m, pid, pid), PERF_RECORD_MISC_USER, self_ip, 0, &loc) &&
			    loc.sym)
				self_hits++;
			break;
		}
	}
	assert_int_equal(kernel_hits, 333334);
	assert_int_equal(user_hits, 333333);
	assert_int_equal(self_hits, 333333);
	machine_free(&m);
	unlink(big);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(maps_split_and_trim),
		cmocka_unit_test(maps_match_page_model),
		cmocka_unit_test(maps_million),
		cmocka_unit_test(threads_first_sight_and_sharing),
		cmocka_unit_test(fork_copies_process_shares_thread),
		cmocka_unit_test(exec_clears_address_space),
		cmocka_unit_test(rename_keeps_kernel_comm),
		cmocka_unit_test(exit_keeps_thread_until_reuse),
		cmocka_unit_test(kernel_and_module_maps),
		cmocka_unit_test(kernel_without_mmap),
		cmocka_unit_test(resolve_this_process),
		cmocka_unit_test(million_lookups),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
