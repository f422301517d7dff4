/* Workload with hot functions the compiler inlines at -O2 (rle_compress, adler, insertion inside
 * msort, xr): DWARF reports show them as "(inlined)" rows (issue 22).
 *   inline_hot [SCALE [ADLER%]]   about SCALE * 0.3 s of CPU; ADLER% of adler's work (default
 *   100: lperf diff's tests remove part of one function's work). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t xr_state = 2463534242u;

static inline uint32_t xr(void)
{
	xr_state ^= xr_state << 13;
	xr_state ^= xr_state >> 17;
	xr_state ^= xr_state << 5;
	return xr_state;
}

static inline void insertion(uint32_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t v = a[i];
		size_t j = i;
		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

static void msort_with_tmp(uint32_t *a, uint32_t *tmp, size_t n)
{
	if (n <= 48) {
		insertion(a, n);
		return;
	}
	size_t h = n / 2;
	msort_with_tmp(a, tmp, h);
	msort_with_tmp(a + h, tmp, n - h);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

static inline size_t rle_compress(const unsigned char *in, size_t n, unsigned char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t r = 1;
		while (i + r < n && in[i + r] == in[i] && r < 255)
			r++;
		out[o++] = (unsigned char)r;
		out[o++] = in[i];
		i += r;
	}
	return o;
}

static inline uint32_t adler(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;
	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return (b << 16) | a;
}

int main(int argc, char **argv)
{
	unsigned long scale = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
	unsigned long adler_pct = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
	size_t n = 200000;
	uint32_t *a = malloc(n * sizeof(*a)), *tmp = malloc(n * sizeof(*a));
	unsigned char *buf = malloc(n), *out = malloc(2 * n);
	if (!a || !tmp || !buf || !out)
		return 1;
	uint64_t sum = 0;
	for (unsigned long round = 0; round < 3 * (scale ? scale : 1); round++) {
		for (size_t i = 0; i < n; i++)
			a[i] = xr();
		msort_with_tmp(a, tmp, n);
		for (size_t i = 0; i < n; i++)
			buf[i] = (unsigned char)((a[i] >> 29) + (xr() % 7 == 0));
		for (int rep = 0; rep < 20; rep++) {
			sum += rle_compress(buf, n, out);
			sum += adler(buf, n * adler_pct / 100);
		}
	}
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
