#include "python/pymethod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pybpf.h"
#include "python/pylayout.h"
#include "util/error.h"
#include "util/xalloc.h"

static int bpf_state; /* 0 untried, 1 loads, -1 does not */
static char *bpf_why;

static bool bpf_loads(void)
{
	if (!bpf_state) {
		struct pybpf *b = getenv("LPERF_NO_BPF") ? NULL : pybpf_open();
		bpf_state = b ? 1 : -1;
		if (!b)
			bpf_why = xstrdup(getenv("LPERF_NO_BPF") ? "LPERF_NO_BPF is set" : err_msg());
		pybpf_close(b);
	}
	return bpf_state > 0;
}

const char *pymethod_describe(const struct pyinfo *py, char *buf, size_t size)
{
	bool cpython = py->implementation && !strcmp(py->implementation, "CPython");
	bool known = cpython && py->major == 3 && (pylayout_table(3, py->minor) || py->minor == 13);
	const char *walk = NULL;
	if (known)
		walk = bpf_loads() ? "BPF frame walk at each sample" : NULL;
	char frames[512];
	if (known && !walk) {
		snprintf(frames, sizeof(frames), "process_vm_readv frame reads, approximate (no BPF: %s)",
			 bpf_why ? bpf_why : "?");
		walk = frames;
	}
	if (py->perf_jit)
		snprintf(buf, size, "-X perf_jit (jitdump)%s%s%s", walk ? "; without flags: " : "",
			 walk ? walk : "", walk ? " (--python-frames)" : "");
	else if (py->perf_trampoline)
		snprintf(buf, size, "-X perf (perf map)%s%s%s", walk ? "; without flags: " : "",
			 walk ? walk : "", walk ? " (--python-frames)" : "");
	else if (walk)
		snprintf(buf, size, "%s", walk);
	else
		snprintf(buf, size, "none: native frames only (Python frames need CPython 3.8 to 3.13)");
	return buf;
}
