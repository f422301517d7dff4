#!/bin/sh
# Python stacks against a known answer (tests/workloads/py_shares.py: a, b and c take 60/30/10 of
# the loop's time in turns of a few milliseconds; SHA-256 in libcrypto under digest, deflate in
# libz under squeeze; tests/e2e/pyshares_check.py). As root, read by BPF at each sample (pyenv
# CPython 3.11 with --python, 3.13 with --python-frames): each share within 3 standard deviations
# of the split the workload measured of its own CPU time in that run (61.3/29.1/9.5 on 3.13 here,
# alone or beside three busy loops), full chains >= 99%, each C library's samples under their
# Python caller. As a
# normal user (nobody, Debian's python3.11, which nobody may run; no BPF) with --nonblocking (the
# reader that does not pause the threads; the default pauses them, t116-python-paused.sh): the
# recording is made, the warning and the report's header say the stacks are approximate
# (docs/python.md "Without BPF"), and the chains are whole; the shares are printed, not checked:
# read between the samples, not at them, they are not the known answer (issue 24).
# e2e-class: exclusive (3.13's c got 7.0% of 2,048 samples in spin beside another script in a clean-clone ASan pass, 2026-11-27, where the workload measures about 9.5% of its CPU time: more than 3 sigma, not understood; it had passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31 and in four clean-clone runs; alone until it is)
. "$(dirname "$0")/lib.sh"
CHECK="$TEST_ROOT/tests/e2e/pyshares_check.py"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
# the workload and the recordings where nobody can reach them too
PUB=$(mktemp -d /tmp/lperf-noroot.XXXXXX)
at_exit 'rm -rf "$PUB"'
chmod 755 "$PUB"
cp "$TEST_ROOT/tests/workloads/py_shares.py" "$PUB/py_shares.py"
chmod 644 "$PUB/py_shares.py"
W="$PUB/py_shares.py"
export CHECK NOBODY PUB W

for v in 3.11 3.13; do
	py=$(py_for $v)
	if [ -z "$py" ]; then
		test_skip "$v as root: the known answer" "no pyenv CPython $v"
		continue
	fi
	case $v in 3.13) opt=--python-frames ;; *) opt=--python ;; esac
	export py opt
	if lperf record -q $opt -o "$SCRATCH/probe.data" -- "$py" -c pass 2>&1 | grep -q "no BPF"; then
		test_skip "$v as root: the known answer" "BPF cannot be loaded here"
		continue
	fi
	test_expect_success "$v as root ($opt, BPF): 60/30/10 shares, whole chains, C code under its caller" '
		lperf record -q $opt -o r.data -- "$py" "$W" 400 "$PWD/split.txt" && cat split.txt &&
		lperf report -i r.data --folded >f.txt 2>/dev/null &&
		$PYTHON "$CHECK" f.txt exact split.txt
	'
done

if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ -x /usr/bin/python3.11 ] &&
	$NOBODY env -C / /usr/bin/python3.11 -c pass >/dev/null 2>&1; then
	test_expect_success "nobody without BPF, --nonblocking: recorded, said approximate, whole chains" '
		mkdir -p "$PUB/nb" && chmod 777 "$PUB/nb" &&
		$NOBODY env -C "$PUB/nb" LPERF_NO_BPF=1 "$LPERF" record --nonblocking --python -o n.data -- /usr/bin/python3.11 "$W" 200 2>err &&
		cat err && expect_grep "no BPF \\(LPERF_NO_BPF is set\\).*process_vm_readv.*approximate" err &&
		$NOBODY env -C "$PUB/nb" "$LPERF" report -i n.data --stdio >r.txt 2>/dev/null &&
		expect_grep "^# Python stacks: approximate" r.txt &&
		$NOBODY env -C "$PUB/nb" "$LPERF" report -i n.data --folded >f.txt 2>/dev/null &&
		$PYTHON "$CHECK" f.txt approx
	'
else
	test_skip "nobody without BPF" "needs root, setpriv and /usr/bin/python3.11 that nobody may run"
fi

test_done
