#include "analysis/profile.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void profile_init(struct profile *p, const struct evsel_set *evsels, const enum hist_key *keys,
		  size_t nkeys, enum hist_graph graph, bool children)
{
	struct sample_filter f = p->filter; /* filters may be set before init */
	memset(p, 0, sizeof(*p));
	p->filter = f;
	p->evsels = evsels;
	memcpy(p->keys, keys, nkeys * sizeof(*keys));
	p->nkeys = nkeys;
	p->graph = graph;
	p->children = children;
	p->n = evsels->n ? evsels->n : 1;
	p->hists = xcalloc(p->n, sizeof(*p->hists));
	for (size_t i = 0; i < p->n; i++)
		hist_init(&p->hists[i], keys, nkeys, graph, children);
}

int profile_sample(const struct resolved_sample *rs, void *arg)
{
	struct profile *p = arg;
	if (!filter_match(&p->filter, rs)) {
		p->filtered_out++;
		return 0;
	}
	size_t idx = rs->s->evsel ? (size_t)rs->s->evsel->idx : 0;
	if (idx >= p->n) {
		p->hists = xrealloc(p->hists, (idx + 1) * sizeof(*p->hists));
		for (size_t i = p->n; i <= idx; i++)
			hist_init(&p->hists[i], p->keys, p->nkeys, p->graph, p->children);
		p->n = idx + 1;
	}
	p->hists[idx].trace_text = p->trace_text;
	p->hists[idx].trace_arg = p->trace_arg;
	hist_add(&p->hists[idx], rs);
	p->kept++;
	return 0;
}

bool profile_ksyms_later(const struct profile *p)
{
	return !p->filter.nsyms && hist_ksyms_later(p->keys, p->nkeys);
}

void profile_sort(struct profile *p, bool by_children)
{
	for (size_t i = 0; i < p->n; i++)
		hist_sort(&p->hists[i], by_children);
}

void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->n; i++)
		hist_free(&p->hists[i]);
	free(p->hists);
	filter_free(&p->filter);
	memset(p, 0, sizeof(*p));
}
