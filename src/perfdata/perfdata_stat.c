#include "perfdata/perfdata_stat.h"

#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata_int.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* STAT_CONFIG's tags (PERF_STAT_CONFIG_TERM__*). */
enum { CONFIG_AGGR_MODE = 0, CONFIG_INTERVAL = 1, CONFIG_SCALE = 2 };
/* EVENT_UPDATE's types (PERF_EVENT_UPDATE__*). */
enum { UPDATE_UNIT = 0, UPDATE_SCALE = 1 };
/* CPU_MAP's layouts (PERF_CPU_MAP__*): a list of CPU numbers, a bit mask, a range. */
enum { CPU_MAP_CPUS = 0, CPU_MAP_MASK = 1, CPU_MAP_RANGE = 2 };

static void add16(struct strbuf *sb, uint16_t v) { sb_add(sb, &v, 2); }

/* Writes sb as one record of type: the header in front, zeros to an 8-byte size. */
static int put(struct perfdata_writer *w, uint32_t type, struct strbuf *sb)
{
	static const uint8_t zeros[8];
	sb_add(sb, zeros, (8 - sb->len % 8) % 8);
	size_t size = sizeof(struct perf_event_header) + sb->len;
	if (size > 0xffff) {
		sb_release(sb);
		return err_set("a stat record of %zu bytes is too large for perf.data", size);
	}
	uint8_t *rec = xmalloc(size);
	struct perf_event_header h = { type, 0, (uint16_t)size };
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), sb->buf, sb->len);
	int r = perfdata_writer_write(w, rec, size);
	free(rec);
	sb_release(sb);
	return r;
}

int perfdata_stat_write_unit(struct perfdata_writer *w, uint64_t id, const char *unit, double scale)
{
	struct strbuf sb = STRBUF_INIT;
	fput64(&sb, UPDATE_UNIT);
	fput64(&sb, id);
	sb_add(&sb, unit, strlen(unit) + 1);
	if (put(w, REC_EVENT_UPDATE, &sb) < 0)
		return -1;
	fput64(&sb, UPDATE_SCALE);
	fput64(&sb, id);
	sb_add(&sb, &scale, sizeof(scale));
	return put(w, REC_EVENT_UPDATE, &sb);
}

int perfdata_stat_write(struct perfdata_writer *w, const struct perfdata_stat *s)
{
	if (perfdata_stat_write_maps(w, s) < 0)
		return -1;
	return perfdata_stat_write_round(w, s, PERFDATA_STAT_ROUND_FINAL);
}

int perfdata_stat_write_maps(struct perfdata_writer *w, const struct perfdata_stat *s)
{
	struct strbuf sb = STRBUF_INIT;
	fput64(&sb, s->npids);
	for (size_t i = 0; i < s->npids; i++) {
		char comm[16] = "";
		fput64(&sb, (uint64_t)(int64_t)s->pids[i]);
		sb_add(&sb, comm, sizeof(comm));
	}
	if (put(w, REC_THREAD_MAP, &sb) < 0)
		return -1;
	add16(&sb, CPU_MAP_CPUS);
	add16(&sb, (uint16_t)s->ncpus);
	for (size_t i = 0; i < s->ncpus; i++)
		add16(&sb, (uint16_t)s->cpus[i]);
	if (put(w, REC_CPU_MAP, &sb) < 0)
		return -1;
	const uint64_t config[][2] = { { CONFIG_AGGR_MODE, s->aggr_mode }, { CONFIG_INTERVAL, s->interval_ms },
				       { CONFIG_SCALE, s->scale } };
	fput64(&sb, 3);
	for (size_t i = 0; i < 3; i++) {
		fput64(&sb, config[i][0]);
		fput64(&sb, config[i][1]);
	}
	return put(w, REC_STAT_CONFIG, &sb);
}

int perfdata_stat_write_round(struct perfdata_writer *w, const struct perfdata_stat *s, uint64_t type)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < s->ncounts; i++) {
		const struct perfdata_stat_count *c = &s->counts[i];
		fput64(&sb, c->id);
		fput32(&sb, c->cpu);
		fput32(&sb, c->thread);
		fput64(&sb, c->val);
		fput64(&sb, c->ena);
		fput64(&sb, c->run);
		if (put(w, REC_STAT, &sb) < 0)
			return -1;
	}
	fput64(&sb, type);
	fput64(&sb, s->time_ns);
	return put(w, REC_STAT_ROUND, &sb);
}

static uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static int too_short(const char *kind, uint64_t offset, size_t size)
{
	return err_set("%s record at offset %#llx: %zu bytes is too short", kind, (unsigned long long)offset, size);
}

/* CPU_MAP: {u16 type; ...}, packed: a list {u16 nr; u16 cpu[nr]}, a range {u8 any_cpu; u8 pad;
 * u16 start; u16 end}, or a mask {u16 nr; u16 long_size; (u32 pad with 8-byte longs) long[nr]}. */
static int read_cpu_map(struct perfdata_stat *s, const uint8_t *p, size_t n, uint64_t offset)
{
	if (n < 4)
		return too_short("CPU_MAP", offset, n);
	uint16_t type = ld16(p), nr = ld16(p + 2);
	free(s->cpus);
	s->cpus = NULL;
	s->ncpus = 0;
	if (type == CPU_MAP_CPUS) {
		if (n < 4 + 2 * (size_t)nr)
			return too_short("CPU_MAP", offset, n);
		s->cpus = xmalloc((nr ? nr : 1) * sizeof(int));
		for (size_t i = 0; i < nr; i++) {
			uint16_t c = ld16(p + 4 + 2 * i);
			s->cpus[s->ncpus++] = c == 0xffff ? -1 : c;
		}
		return 0;
	}
	if (type == CPU_MAP_RANGE) {
		if (n < 8)
			return too_short("CPU_MAP", offset, n);
		uint16_t start = ld16(p + 4), end = ld16(p + 6);
		bool any = p[2] != 0;
		if (end < start)
			return err_set("CPU_MAP record at offset %#llx: range %u-%u runs backwards",
				       (unsigned long long)offset, start, end);
		s->cpus = xmalloc(((size_t)(end - start) + 2) * sizeof(int));
		if (any)
			s->cpus[s->ncpus++] = -1;
		for (unsigned c = start; c <= end; c++)
			s->cpus[s->ncpus++] = (int)c;
		return 0;
	}
	/* A mask: nr words of long_size bytes (4 or 8). */
	uint16_t lsize = n >= 6 ? ld16(p + 4) : 0;
	size_t base = lsize == 4 ? 6 : 10;
	if (type != CPU_MAP_MASK || (lsize != 4 && lsize != 8) || n < base + (size_t)nr * lsize)
		return err_set("CPU_MAP record at offset %#llx: unknown layout %u (long size %u)",
			       (unsigned long long)offset, type, lsize);
	s->cpus = xmalloc((size_t)nr * lsize * 8 * sizeof(int) + sizeof(int));
	for (size_t wd = 0; wd < nr; wd++) {
		uint64_t bits = lsize == 4 ? ld32(p + base + 4 * wd) : ld64(p + base + 8 * wd);
		for (unsigned b = 0; b < lsize * 8u; b++)
			if (bits >> b & 1)
				s->cpus[s->ncpus++] = (int)(wd * lsize * 8 + b);
	}
	return 0;
}

int perfdata_stat_read(struct perfdata_stat *s, const struct perf_event_header *h, uint64_t offset)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	size_t n = h->size - sizeof(*h);
	switch (h->type) {
	case REC_THREAD_MAP: {
		uint64_t nr = n >= 8 ? ld64(p) : 0;
		if (n < 8 || nr > (n - 8) / 24)
			return too_short("THREAD_MAP", offset, n);
		free(s->pids);
		s->pids = xmalloc((nr ? nr : 1) * sizeof(int));
		s->npids = nr;
		for (size_t i = 0; i < nr; i++)
			s->pids[i] = (int)(int64_t)ld64(p + 8 + 24 * i);
		return 0;
	}
	case REC_CPU_MAP:
		return read_cpu_map(s, p, n, offset);
	case REC_STAT_CONFIG: {
		uint64_t nr = n >= 8 ? ld64(p) : 0;
		if (n < 8 || nr > (n - 8) / 16)
			return too_short("STAT_CONFIG", offset, n);
		for (size_t i = 0; i < nr; i++) {
			uint64_t tag = ld64(p + 8 + 16 * i), val = ld64(p + 16 + 16 * i);
			if (tag == CONFIG_AGGR_MODE)
				s->aggr_mode = val;
			else if (tag == CONFIG_INTERVAL)
				s->interval_ms = val;
			else if (tag == CONFIG_SCALE)
				s->scale = val;
		}
		s->have_config = true;
		return 0;
	}
	case REC_STAT: {
		if (n < 40)
			return too_short("STAT", offset, n);
		if (s->have_round) {
			s->ncounts = 0;
			s->have_round = false;
		}
		ALLOC_GROW(s->counts, s->ncounts + 1, s->cap);
		struct perfdata_stat_count *c = &s->counts[s->ncounts++];
		*c = (struct perfdata_stat_count){ ld64(p), ld32(p + 8), ld32(p + 12), ld64(p + 16),
						   ld64(p + 24), ld64(p + 32) };
		return 0;
	}
	case REC_STAT_ROUND:
		if (n < 16)
			return too_short("STAT_ROUND", offset, n);
		s->have_round = true;
		s->nrounds++;
		s->round_type = ld64(p);
		s->time_ns = ld64(p + 8);
		return 0;
	default:
		return 0;
	}
}

void perfdata_stat_free(struct perfdata_stat *s)
{
	free(s->cpus);
	free(s->pids);
	free(s->counts);
	memset(s, 0, sizeof(*s));
}
