/* Functions named with bytes that are not valid UTF-8 text, as a JIT's or a CPython
 * surrogateescape name can hold them: hot with a lone surrogate (ED A0 80), a byte 0xFF and
 * U+FFFE; cold with U+FFFF and a byte 0xF5. main calls hot for two thirds of its work and cold
 * for one third, so that a click on hot zooms away from cold (tests/e2e/t74-bad-names.sh). */
void hot(long n) __asm__("hot_\355\240\200_\377_\357\277\276");
void cold(long n) __asm__("cold_\357\277\277_\365");

void hot(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

void cold(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

int main(void)
{
	for (int k = 0; k < 8; k++) {
		hot(40000000);
		cold(20000000);
	}
	return 0;
}
