// C++ -O2 workload for inline frames: std::map, std::sort, std::vector, small inlined helpers.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

static inline unsigned step(unsigned x) { return x * 1103515245u + 12345u; }

__attribute__((noinline)) long phase_maps(int n)
{
	std::map<unsigned, unsigned> m;
	unsigned x = 1;
	for (int i = 0; i < n; i++) {
		x = step(x);
		m[x % 100000] += i;
	}
	long s = 0;
	for (auto &kv : m)
		s += kv.second;
	return s;
}

__attribute__((noinline)) long phase_sort(int n)
{
	std::vector<unsigned> v(n);
	unsigned x = 7;
	for (auto &e : v)
		e = x = step(x);
	std::sort(v.begin(), v.end());
	std::stable_sort(v.begin(), v.end(), [](unsigned a, unsigned b) { return (a & 0xffff) < (b & 0xffff); });
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	long s = 0;
	for (int k = 0; k < scale; k++) {
		s += phase_maps(300000);
		s += phase_sort(600000);
	}
	return s == 42; /* 0: the result only keeps the work from being optimised away */
}
