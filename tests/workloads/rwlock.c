/* Fidelity workload: time in libc's versioned aliases (pthread_rwlock_rdlock@GLIBC_2.2.5 and
 * ...@@GLIBC_2.34 at one address) and a short user call chain.
 *   rwlock [SCALE]   about SCALE * 0.5 s of CPU */
#include <pthread.h>
#include <stdlib.h>

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

int main(int argc, char **argv)
{
	long scale = argc > 1 ? atol(argv[1]) : 1;
	for (long i = 0; i < 20000000 * (scale > 0 ? scale : 1); i++) {
		pthread_rwlock_rdlock(&lock);
		pthread_rwlock_unlock(&lock);
	}
	return 0;
}
