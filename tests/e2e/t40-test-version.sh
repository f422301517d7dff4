#!/bin/sh
# lperf test (the capability report) and lperf version, end to end on this machine.
# e2e-class: parallel (capability report and version against /proc and fixtures)
. "$(dirname "$0")/lib.sh"
MAKE_VERSION=$(sed -n 's/^VERSION *:= *//p' "$TEST_ROOT/Makefile")

# The value of one row of `lperf test`: everything after the Test Name column.
row() { # row NAME FILE
	awk -v n="$1" '$1 == n { sub(/^ *[^ ]+ +/, ""); print; exit }' "$2"
}

test_expect_success 'test: the table has WindowsPerf headers and the kernel rows' '
	lperf test --no-python >out &&
	expect_grep "^        Test Name +Result$" out &&
	expect_grep "^        =========  +======$" out &&
	[ "$(row kernel.release out)" = "$(uname -r)" ] &&
	[ "$(row machine.arch out)" = "$(uname -m)" ] &&
	expect_grep "^        kernel.perf_event_paranoid +$(cat /proc/sys/kernel/perf_event_paranoid) \(" out &&
	expect_grep "^        kernel.perf_event_max_stack +$(cat /proc/sys/kernel/perf_event_max_stack)$" out &&
	expect_grep "^        cpu.online +$(getconf _NPROCESSORS_ONLN)$" out
'

test_expect_success 'test: PMU rows list what sysfs shows' '
	lperf test --no-python >out &&
	for p in $(ls /sys/bus/event_source/devices); do
		row pmu.sysfs out | grep -qw "$p" || fail "PMU $p missing: $(row pmu.sysfs out)"
	done &&
	expect_grep "^        pmu.libpfm4 " out &&
	expect_grep "^        pmu.gpc_num " out &&
	expect_grep "^        software_event.cpu-clock +opens$" out
'

test_expect_success 'test: the hardware event cannot open on this VM and says why' '
	if ls -d /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/armv* 2>/dev/null; then
		echo "this machine has a core PMU"; exit 0
	fi
	lperf test --no-python >out &&
	expect_grep "^        hardware_event.cycles +cannot open: no hardware PMU exposed \(virtual machine\?\) \[" out &&
	expect_grep "^        pmu.sysfs.core +none" out
'

test_expect_success 'test: the Arm fixture shows its core PMU and SPE' '
	LPERF_SYSFS_ROOT="$FIXTURES/sysfs-arm" lperf test --no-python >out &&
	expect_grep "^        sysfs.root +.*sysfs-arm \(from LPERF_SYSFS_ROOT" out &&
	expect_grep "^        pmu.sysfs.core +armv8_pmuv3_0 \(type [0-9]+, [0-9]+ events\)$" out &&
	expect_grep "^        arm_spe +arm_spe_0 \(type [0-9]+\)$" out &&
	expect_grep "^        arm_spe.caps +.*min_interval=[0-9]+" out &&
	expect_grep "^        arm_spe.filters +.*load_filter" out &&
	expect_grep "^        python +not searched" out &&
	LPERF_SYSFS_ROOT="$FIXTURES/sysfs-arm" lperf test --no-python --json >out.json &&
	validate_json test.schema.json out.json &&
	python3 - out.json "$FIXTURES/sysfs-arm/bus/event_source/devices/arm_spe_0" <<-\EOF
	import json, os, sys
	d = json.load(open(sys.argv[1]))
	spe, root = d["arm_spe"], sys.argv[2]
	assert spe["name"] == "arm_spe_0" and spe["type"] == int(open(root + "/type").read()), spe
	for cap in os.listdir(root + "/caps"):
	    assert spe["caps"][cap] == open(root + "/caps/" + cap).read().strip(), cap
	assert sorted(spe["filters"]) == sorted(os.listdir(root + "/format")), spe["filters"]
	core = [p for p in d["pmus"] if p["core"]]
	assert [p["name"] for p in core] == ["armv8_pmuv3_0"], core
	assert d["pythons"] == []
	EOF
'

test_expect_success 'test --json validates and matches /proc' '
	lperf test --json >out.json &&
	validate_json test.schema.json out.json &&
	python3 - out.json <<-\EOF
	import json, os, sys
	d = json.load(open(sys.argv[1]))
	k = d["kernel"]
	want = int(open("/proc/sys/kernel/perf_event_paranoid").read())
	assert k["perf_event_paranoid"] == want, (k["perf_event_paranoid"], want)
	assert k["kptr_restrict"] == int(open("/proc/sys/kernel/kptr_restrict").read())
	assert k["release"] == os.uname().release
	assert d["privileges"]["root"] == (os.geteuid() == 0)
	names = {p["name"] for p in d["pmus"]}
	assert names == set(os.listdir("/sys/bus/event_source/devices")), names
	rows = {r["Test_Name"]: r["Result"] for r in d["Test_Results"]}
	assert rows["kernel.release"] == k["release"]
	assert d["software_event"]["opens"] is True
	hw = d["hardware_event"]
	assert hw["opens"] == (hw["errno"] is None)
	EOF
'

test_expect_success 'test -o FILE writes the same JSON and still prints the table' '
	lperf test --no-python -o report.json >out &&
	expect_grep "Test Name" out &&
	validate_json test.schema.json report.json &&
	expect_grep "\"Test_Name\": \"kernel.release\"" report.json
'

test_expect_success 'test: usage errors exit 2' '
	expect_exit 2 lperf test --bogus 2>err &&
	expect_grep "unknown option .--bogus." err &&
	expect_exit 2 lperf test extra 2>err &&
	expect_grep "unexpected argument" err &&
	lperf test --help >out &&
	expect_grep "^usage: lperf test" out &&
	expect_grep "\-\-json" out
'

# pyenv's 3.12 and 3.13 have the perf trampoline (3.13 also perf_jit) but were built without
# frame pointers (plain -O3).
if command -v pyenv >/dev/null 2>&1; then
	PY312=$(pyenv prefix 3.12 2>/dev/null || true)
	PY313=$(pyenv prefix 3.13 2>/dev/null || true)
else
	PY312= PY313=
fi
if [ -n "$PY312$PY313" ]; then
	export PY312 PY313
	test_expect_success 'test: pyenv Pythons are listed with perf trampoline yes, frame pointers no' '
		lperf test >out &&
		if [ -n "$PY312" ]; then
			expect_grep "^        python\.3\.12\.[0-9]+ +$PY312/bin/python3 \(pyenv\): perf trampoline yes, perf_jit no, frame pointers no; stacks: .*$" out
		fi &&
		if [ -n "$PY313" ]; then
			expect_grep "^        python\.3\.13\.[0-9]+ +$PY313/bin/python3 \(pyenv\): perf trampoline yes, perf_jit yes, frame pointers no; stacks: .*$" out
		fi
	'
	test_expect_success 'test --json: pyenv Pythons have the same facts' '
		lperf test --json >out.json &&
		python3 - out.json <<-\EOF
		import json, os, sys
		d = json.load(open(sys.argv[1]))
		by_path = {p["path"]: p for p in d["pythons"]}
		for var, jit in (("PY312", False), ("PY313", True)):
		    prefix = os.environ[var]
		    if not prefix:
		        continue
		    p = by_path[prefix + "/bin/python3"]
		    assert p["source"] == "pyenv" and p["error"] is None, p
		    assert p["perf_trampoline"] is True and p["perf_jit"] is jit, p
		    assert p["frame_pointers"] is False, p
		real = [p["realpath"] for p in d["pythons"]]
		assert len(real) == len(set(real)), "duplicates: %r" % real
		EOF
	'
else
	test_skip 'test: pyenv Pythons are listed' 'no pyenv Python 3.12 or 3.13 installed'
fi

test_expect_success 'test: a Python found on a private PATH is interrogated, shims are not' '
	mkdir -p bin root/shims root/versions &&
	cat >bin/python3 <<-\EOF &&
	#!/bin/sh
	echo version=3.12.9
	echo implementation=CPython
	echo machine=x86_64
	echo system=Linux
	echo perf_trampoline_config=1
	echo fno_omit_frame_pointer=1
	EOF
	printf "#!/bin/sh\nexit 9\n" >root/shims/python3 &&
	chmod +x bin/python3 root/shims/python3 &&
	PATH="$PWD/root/shims:$PWD/bin:/usr/bin:/bin" PYENV_ROOT="$PWD/root" "$LPERF" test >out &&
	expect_grep "^        python\.3\.12\.9 +$PWD/bin/python3 \(PATH\): perf trampoline yes, perf_jit no, frame pointers yes; stacks: .*$" out &&
	expect_no_grep "root/shims" out
'

test_expect_success 'version: one line with the Makefile version and the features' '
	lperf version >out &&
	expect_lines 1 out &&
	expect_grep "^lperf version $MAKE_VERSION \([0-9a-f]{12}|unknown\) \+pfm \+dw \+capstone \+zlib \+zstd( \+bpf)?$" out &&
	lperf --version >out2 &&
	cmp out out2
'

test_expect_success 'version -v: the WindowsPerf component table' '
	lperf version -v >out &&
	expect_grep "^        Component +Version +GitVer +FeatureString$" out &&
	expect_grep "^        lperf +$MAKE_VERSION +" out &&
	expect_grep "^        zlib +[0-9.]+ +\+zlib$" out &&
	expect_grep "^        zstd +[0-9.]+ +\+zstd$" out &&
	{ ! grep -q "+bpf" out || expect_grep "^        libbpf +[0-9]+\.[0-9]+ +\+bpf$" out; } &&
	expect_grep "^        libpfm4 +[0-9]+\.[0-9]+ +\+pfm$" out
'

test_expect_success 'version --json validates and carries the Makefile version' '
	lperf version --json >out.json &&
	validate_json version.schema.json out.json &&
	python3 - out.json "$MAKE_VERSION" <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	first = d["Version"][0]
	assert first["Component"] == "lperf" and first["Version"] == sys.argv[2], first
	assert first["FeatureString"] in ("+pfm +dw +capstone +zlib +zstd", "+pfm +dw +capstone +zlib +zstd +bpf"), first
	EOF
'

test_expect_success 'version: unknown option is a usage error' '
	expect_exit 2 lperf version --bogus 2>err &&
	expect_grep "unknown option" err
'

test_done
