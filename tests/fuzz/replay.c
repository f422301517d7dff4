/* The replay driver: a main() for a fuzz harness built without libFuzzer. Runs every regular
 * file of each directory (or each file) given through LLVMFuzzerTestOneInput, in name order,
 * and prints two lines per input ("run NAME" before, "ok NAME" after: the last "run" line without
 * its "ok" names the input that crashed) and a summary "[  PASSED  ] N inputs" that
 * tests/run.sh counts. A crash, a sanitizer report or a hang is the failure. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	uint8_t *buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	/* An exact-size copy, so that ASan sees reads past the end of the input. */
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, buf, n);
	free(buf);
	printf("run %s\n", path);
	fflush(stdout);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	printf("ok %s\n", path);
	fflush(stdout);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	size_t ok = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
			run_file(argv[i]) == 0 ? ok++ : bad++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: cannot open directory %s\n", argv[i]);
			bad++;
			continue;
		}
		char **names = NULL;
		size_t n = 0;
		struct dirent *de;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			names = realloc(names, (n + 1) * sizeof(*names));
			if (asprintf(&names[n], "%s/%s", argv[i], de->d_name) < 0)
				abort();
			n++;
		}
		closedir(d);
		qsort(names, n, sizeof(*names), cmp);
		for (size_t k = 0; k < n; k++) {
			run_file(names[k]) == 0 ? ok++ : bad++;
			free(names[k]);
		}
		free(names);
	}
	printf("[  PASSED  ] %zu inputs\n", ok);
	if (bad)
		printf("[  FAILED  ] %zu inputs\n", bad);
	return bad ? 1 : 0;
}
