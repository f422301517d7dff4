/* Fuzz harness: symbol stores (symbols/symstore.h, DIR/.lperf/syms/BUILDID). The input is one
 * mode byte, then a store's bytes. Mode bit 0: the CRC-32 is made right first, so that the fuzzer
 * reaches the checks behind it; bit 1: the store is asked for under another build-id. The build-id
 * asked for is otherwise the one the header claims. An accepted store's symbols are looked up at
 * each start, middle and end, as a report does. Seeds: the stores lperf wrote for ld.so and libm
 * (their symbols from libc6-dbg's debug files), in each mode, and one cut short. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "symbols/buildid_cache.h"
#include "symbols/symstore.h"
#include "util/error.h"

#define CRC_OFF 36

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	uint8_t mode = data[0];
	size_t len = size - 1;
	/* An exact-size, aligned copy: ASan sees a read past the end. */
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	if ((mode & 1) && len >= CRC_OFF + 4) {
		uint32_t crc = buildid_cache_crc(buf, len, CRC_OFF);
		memcpy(buf + CRC_OFF, &crc, 4);
	}
	uint8_t id[20] = { 0 };
	uint32_t idn = 20;
	if (len >= 36) {
		memcpy(&idn, buf + 12, 4);
		memcpy(id, buf + 16, 20);
	}
	if (idn > 20)
		idn = 20;
	if (mode & 2)
		id[0] ^= 1;
	struct symstore s;
	if (symstore_parse(buf, len, id, idn, &s) == 0) {
		for (size_t i = 0; i < s.nsyms; i++) {
			const struct symbol *y = &s.syms[i];
			(void)symtab_find(s.syms, s.nsyms, y->start);
			(void)symtab_find(s.syms, s.nsyms, y->start + y->size / 2);
			(void)symtab_find(s.syms, s.nsyms, y->start + y->size);
			(void)strlen(y->name);
			if (y->mangled)
				(void)strlen(y->mangled);
		}
		(void)strlen(s.file.path);
		if (s.debug.path)
			(void)strlen(s.debug.path);
		symstore_release(&s);
	}
	err_clear();
	free(buf);
	return 0;
}
