#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "events/tracedata.h"
#include "output/script_out.h"
#include "record/regname.h"
#include "util/error.h"

static const struct { const char *name; unsigned bit; } field_names[] = {
	{ "comm", SF_COMM }, { "pid", SF_PID }, { "tid", SF_TID }, { "cpu", SF_CPU }, { "time", SF_TIME },
	{ "event", SF_EVENT }, { "period", SF_PERIOD }, { "ip", SF_IP }, { "sym", SF_SYM },
	{ "symoff", SF_SYMOFF }, { "dso", SF_DSO }, { "srcline", SF_SRCLINE }, { "trace", SF_TRACE },
	{ "iregs", SF_IREGS }, { "brstack", SF_BRSTACK }, { "brstacksym", SF_BRSTACKSYM },
};

int script_parse_fields(const char *spec, unsigned *fields)
{
	bool rel;
	unsigned add, del;
	if (script_parse_fields_rel(spec, fields, &rel, &add, &del) < 0)
		return -1;
	if (rel)
		return err_set("'+field' and '-field' need the default field list");
	return 0;
}

int script_parse_fields_rel(const char *spec, unsigned *fields, bool *relative, unsigned *add, unsigned *del)
{
	*fields = *add = *del = 0;
	while (*spec == ',') /* perf's "-F,-time": the empty first item is nothing */
		spec++;
	*relative = *spec == '+' || *spec == '-';
	const char *p = spec;
	while (*p) {
		char sign = 0;
		if (*relative && (*p == '+' || *p == '-'))
			sign = *p++;
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t i;
		for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
			if (strlen(field_names[i].name) == len && !strncasecmp(field_names[i].name, p, len))
				break;
		if (i == sizeof(field_names) / sizeof(field_names[0]))
			return err_set("unknown field '%.*s' (use comm, pid, tid, cpu, time, event, period, ip, "
				       "sym, symoff, dso, srcline, trace, iregs, brstack, brstacksym)", (int)len, p);
		if (sign == '-')
			*del |= field_names[i].bit;
		else if (*relative)
			*add |= field_names[i].bit;
		else
			*fields |= field_names[i].bit;
		p += len + (e ? 1 : 0);
	}
	if (!*fields && !*relative)
		return err_set("no fields given");
	return 0;
}

unsigned script_default_fields(const struct perf_event_attr *attr)
{
	if (attr->type == PERF_TYPE_TRACEPOINT)
		return SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_EVENT | SF_TRACE |
		       (attr->sample_type & PERF_SAMPLE_CALLCHAIN ? SF_IP | SF_SYM | SF_SYMOFF | SF_DSO : 0);
	unsigned f = SF_COMM | SF_TID | SF_TIME | SF_EVENT | SF_IP | SF_SYM | SF_SYMOFF | SF_DSO | SF_PERIOD;
	if (attr->sample_type & PERF_SAMPLE_CPU)
		f |= SF_CPU;
	if (!(attr->sample_type & PERF_SAMPLE_TIME))
		f &= ~(unsigned)SF_TIME;
	return f;
}

/* perf prints a call chain's addresses as its maps translate them: in a file-backed user map
 * (an ELF file, the vDSO) relative to the file (ip - start + pgoff), in the kernel, anonymous
 * memory, JIT code and outside any map as they are. The sampled ip of a line without a chain
 * is printed as it is. */
static uint64_t chain_ip(const struct frame *fr)
{
	const struct map *m = fr->loc.map;
	if (!m || !m->dso || fr->loc.kernel || (m->dso->kind != DSO_ELF && m->dso->kind != DSO_VDSO))
		return fr->ip;
	return fr->ip - m->start + m->pgoff;
}

static void location(FILE *f, const struct frame *fr, unsigned fields, bool chain)
{
	if (fields & SF_IP)
		fprintf(f, "%16" PRIx64, chain ? chain_ip(fr) : fr->ip);
	if (fields & SF_SYM) {
		if (fr->loc.sym) {
			fprintf(f, " %s", fr->loc.sym->name);
			if (fields & SF_SYMOFF)
				fprintf(f, "+0x%" PRIx64, fr->loc.sym_off);
		} else {
			fputs(" [unknown]", f);
		}
	}
	if ((fields & SF_DSO) && fr->line > 0)
		fprintf(f, " (%s line %d)", fr->loc.dso ? fr->loc.dso->path : "[unknown]", fr->line); /* Python */
	else if ((fields & SF_DSO) && !fr->inlined)
		fprintf(f, " (%s)", fr->loc.dso ? fr->loc.dso->path : "[unknown]");
	/* perf prints the line under the frame (the resolver's: "dso[addr]" when it has none, nothing
	 * unmapped). */
	if ((fields & SF_SRCLINE) && fr->srcline)
		fprintf(f, "\n  %s", fr->srcline);
	if (fr->inlined)
		fputs(" (inlined)", f);
}

/* The sample's raw data as its format prints it (events/tracedata.c: libtraceevent, the record
 * checked against its format first), as perf script does. */
static void trace_fields(FILE *f, struct tep_handle *tep, const struct perf_sample *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (tep && tracedata_print(tep, (int)s->cpu, s->raw, s->raw_size, &sb) == 0)
		fwrite(sb.buf, 1, sb.len, f);
	sb_release(&sb);
}

/* perf's " ABI:2    DI:0x0    R8:0x7 ": the registers sampled at the interrupt, in number order. */
static void intr_regs(FILE *f, const struct perf_sample *s, unsigned machine)
{
	if (!s->intr_regs_mask)
		return;
	fprintf(f, " ABI:%" PRIu64 " ", s->intr_abi);
	size_t k = 0;
	for (unsigned r = 0; r < 64 && k < s->intr_nregs; r++) {
		if (!(s->intr_regs_mask & (1ULL << r)))
			continue;
		const char *name = regname(machine, r);
		fprintf(f, "%5s:0x%" PRIx64 " ", name ? name : "unknown", s->intr_regs[k++]);
	}
}

/* perf's branch type names (PERF_BR_*), "-" when none was saved. */
static const char *branch_type(unsigned type)
{
	static const char *const names[] = { "N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET",
					     "SYSCALL", "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ",
					     "SERROR", "NO_TX" };
	if (!type)
		return "-";
	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "N/A";
}

static void branch_end(FILE *f, const struct addr_loc *loc, uint64_t addr, bool sym)
{
	if (!sym)
		fprintf(f, "0x%" PRIx64, addr);
	else if (loc && loc->sym)
		fprintf(f, "%s+0x%" PRIx64, loc->sym->name, loc->sym_off);
	else
		fputs("[unknown]", f);
}

/* perf's brstack / brstacksym: " FROM/TO/P/-/-/CYCLES/TYPE " per entry, newest first. */
static void branches(FILE *f, const struct perf_sample *s, bool sym, const struct addr_loc *locs)
{
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		const struct perf_branch_entry *b = &s->branches[i];
		fputc(' ', f);
		branch_end(f, locs ? &locs[2 * i] : NULL, b->from, sym);
		fputc('/', f);
		branch_end(f, locs ? &locs[2 * i + 1] : NULL, b->to, sym);
		fprintf(f, "/%c/%c/%c/%u/%s ", b->mispred ? 'M' : b->predicted ? 'P' : '-', b->in_tx ? 'X' : '-',
			b->abort ? 'A' : '-', (unsigned)b->cycles, branch_type(b->type));
	}
}

/* What perf prints after the location: iregs, then the branch stack. */
static void sample_extras(FILE *f, const struct perf_sample *s, unsigned fields, const struct script_style *st)
{
	if (fields & SF_IREGS)
		intr_regs(f, s, st ? st->regs_machine : regname_host());
	if (fields & (SF_BRSTACK | SF_BRSTACKSYM))
		branches(f, s, fields & SF_BRSTACKSYM, st ? st->br_locs : NULL);
}

void script_print_sample(FILE *f, const struct resolved_sample *rs, unsigned fields, bool callchain)
{
	script_print_sample_style(f, rs, fields, callchain, NULL);
}

void script_print_sample_style(FILE *f, const struct resolved_sample *rs, unsigned fields, bool callchain,
			       const struct script_style *st)
{
	const struct perf_sample *s = rs->s;
	bool chain = callchain && (fields & (SF_IP | SF_SYM));
	if (fields & SF_COMM) {
		const char *comm = rs->thread && rs->thread->comm ? rs->thread->comm : ":-1";
		if (chain)
			fprintf(f, "%s ", comm);
		else
			fprintf(f, "%16s ", comm);
	}
	if ((fields & SF_PID) && (fields & SF_TID))
		fprintf(f, "%5u/%-5u ", s->pid, s->tid);
	else if (fields & SF_PID)
		fprintf(f, "%5u ", s->pid);
	else if (fields & SF_TID)
		fprintf(f, "%5u ", s->tid);
	if (fields & SF_CPU)
		fprintf(f, "[%03u] ", s->cpu);
	if (fields & SF_TIME)
		fprintf(f, "%5" PRIu64 ".%06" PRIu64 ": ", s->time / 1000000000, s->time % 1000000000 / 1000);
	if (fields & SF_PERIOD)
		fprintf(f, "%10" PRIu64 " ", s->period);
	if (fields & SF_EVENT)
		fprintf(f, "%*s: ", st ? st->name_width : 0, s->evsel && s->evsel->name ? s->evsel->name : "?");
	if ((fields & SF_TRACE) && st)
		trace_fields(f, st->tep, s);
	if (!(fields & (SF_IP | SF_SYM | SF_DSO))) {
		sample_extras(f, s, fields, st);
		fputc('\n', f);
		return;
	}
	if (chain) {
		fputc('\n', f);
		for (size_t i = 0; i < (rs->chain_reset ? 0 : rs->nframes); i++) {
			fputc('\t', f);
			location(f, &rs->frames[i], fields, true);
			fputc('\n', f);
		}
		sample_extras(f, s, fields, st);
		if (fields & (SF_IREGS | SF_BRSTACK | SF_BRSTACKSYM))
			fputc('\n', f);
		fputc('\n', f);
		return;
	}
	fputc(' ', f);
	location(f, &rs->frames[0], fields, false);
	sample_extras(f, s, fields, st);
	fputc('\n', f);
}
