/* record's SPE capture (see spe_capture.h). */
#include <stdlib.h>
#include <string.h>

#include "spe/spe_capture.h"
#include "spe/spe_perfdata.h"
#include "util/error.h"
#include "util/xalloc.h"

int spe_capture_info(struct perfdata_writer *w, uint32_t pmu_type, bool per_cpu)
{
	uint8_t rec[64];
	struct spe_auxtrace_info in = { pmu_type, per_cpu };
	size_t n = spe_build_auxtrace_info(rec, sizeof(rec), &in);
	return perfdata_writer_write(w, rec, n);
}

/* One AUXTRACE record: the header, then the piece padded with zeros to 8 bytes (zeros are SPE
 * Padding packets), as perf's auxtrace_mmap__read does. */
static int write_piece(const uint8_t *data, uint64_t size, uint64_t offset, void *arg)
{
	struct spe_capture *c = arg;
	uint64_t padded = (size + 7) & ~7ULL;
	uint8_t *rec = xmalloc(64 + padded);
	struct spe_auxtrace a = { padded, offset, c->pieces, c->idx, c->tid, c->cpu, NULL };
	size_t n = spe_build_auxtrace(rec, 64, &a);
	memcpy(rec + n, data, size);
	memset(rec + n + size, 0, padded - size);
	int r = perfdata_writer_write(c->w, rec, n + padded);
	free(rec);
	c->pieces++;
	c->bytes += padded;
	return r;
}

long spe_capture_drain(struct spe_capture *c)
{
	return auxbuf_drain(&c->aux, write_piece, c);
}
