/* Test workload: touches N fresh pages (default 2000) so page-fault counts are deterministic,
 * then optionally spins for S milliseconds of CPU (second argument), and exits with status X
 * (third argument). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 2000;
	long spin_ms = argc > 2 ? atol(argv[2]) : 0;
	int status = argc > 3 ? atoi(argv[3]) : 0;
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 99;
	for (long i = 0; i < pages; i++)
		p[i * psz] = 1;
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	volatile unsigned long x = 0;
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < spin_ms);
	return status;
}
