#include "events/pfm.h"

#include <stdlib.h>
#include <string.h>

#include "util/dynlib.h"
#include "util/error.h"
#include "util/xalloc.h"

static int init_state; /* 0 not tried, 1 ready, -1 failed */
static int init_err;
static const struct dynlib_pfm *lp; /* libpfm4, loaded on first use */

int epfm_init(void)
{
	if (!init_state) {
		if (!(lp = dynlib_pfm()))
			return -1; /* err_set by dynlib_pfm, at every call */
		init_err = lp->initialize();
		init_state = init_err == PFM_SUCCESS ? 1 : -1;
	}
	if (init_state < 0)
		return err_set("libpfm4 initialization failed: %s", lp->strerror(init_err));
	return 0;
}

int epfm_encode(const char *name, void *out, size_t out_size, char **fstr, char **pmu)
{
	*fstr = NULL;
	*pmu = NULL;
	memset(out, 0, out_size);
	if (epfm_init() < 0)
		return -1;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	char *fs = NULL;
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.fstr = &fs;
	arg.size = sizeof(arg);
	/* Both user and kernel by default; lperf applies its own :u/:k/:h afterwards. */
	int r = lp->get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r == PFM_ERR_NOTFOUND) {
		free(fs);
		return 0;
	}
	if (r != PFM_SUCCESS) {
		free(fs);
		return err_set("libpfm4 cannot encode '%s': %s", name, lp->strerror(r));
	}
	memcpy(out, &attr, out_size < sizeof(attr) ? out_size : sizeof(attr));
	*fstr = fs ? fs : xstrdup(name);
	const char *sep = strstr(*fstr, "::");
	*pmu = sep ? xstrndup(*fstr, (size_t)(sep - *fstr)) : xstrdup("libpfm4");
	return 1;
}

static void encode_one(const char *pmu, const char *full, const char *desc, epfm_fn fn,
		       void *arg)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	pfm_perf_encode_arg_t a;
	memset(&a, 0, sizeof(a));
	a.attr = &attr;
	a.size = sizeof(a);
	char *q = xasprintf("%s::%s", pmu, full);
	/* Events that need a unit mask do not encode alone; they are listed with config 0. */
	if (lp->get_os_event_encoding(q, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &a) !=
	    PFM_SUCCESS)
		memset(&attr, 0, sizeof(attr));
	free(q);
	fn(pmu, full, desc, attr.type, attr.config, arg);
}

long epfm_for_each(epfm_fn fn, void *arg)
{
	if (epfm_init() < 0)
		return -1;
	long count = 0;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pi;
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (lp->get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present || !pi.name)
			continue;
		/* libpfm's own spellings of perf's generic events would duplicate ours */
		if (!strcmp(pi.name, "perf") || !strcmp(pi.name, "perf_raw"))
			continue;
		for (int i = pi.first_event; i != -1; i = lp->get_event_next(i)) {
			pfm_event_info_t ei;
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (lp->get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS ||
			    !ei.name)
				continue;
			encode_one(pi.name, ei.name, ei.desc, fn, arg);
			count++;
			for (int k = 0; k < ei.nattrs; k++) {
				pfm_event_attr_info_t ai;
				memset(&ai, 0, sizeof(ai));
				ai.size = sizeof(ai);
				if (lp->get_event_attr_info(i, k, PFM_OS_PERF_EVENT_EXT, &ai) !=
				    PFM_SUCCESS || ai.type != PFM_ATTR_UMASK || !ai.name)
					continue;
				char *full = xasprintf("%s:%s", ei.name, ai.name);
				encode_one(pi.name, full, ai.desc ? ai.desc : ei.desc, fn, arg);
				free(full);
				count++;
			}
		}
	}
	return count;
}
