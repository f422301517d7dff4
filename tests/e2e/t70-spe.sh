#!/bin/sh
# Arm SPE without SPE hardware: the -e grammar against the Arm fixture sysfs (Linux's and
# WindowsPerf's filter spellings, record --dry-run), list/test detection, and a perf.data
# holding SPE AUX data written by lperf (tests/unit/test_spe_perfdata.c from hand-written
# packet streams) that Linux perf 6.1 and lperf must decode to the same records.
# e2e-class: parallel (SPE grammar and decoding of fixture recordings, compared with perf)
. "$(dirname "$0")/lib.sh"
F="$FIXTURES/sysfs-arm"
GEN="$(dirname "$LPERF")/tests/test_spe_perfdata"
AWK="$TEST_ROOT/tests/e2e/spe"

test_expect_success 'record --dry-run encodes arm_spe_0/ld=1,min_latency=64/ through the format files' '
	LPERF_SYSFS_ROOT=$F lperf record --dry-run -e arm_spe_0/ld=1,min_latency=64/ -- true >out &&
	expect_grep "arm_spe_0/ld=1,min_latency=64/ +arm_spe_0 +11 +0x200000000 +0 +0x40 +256 " out &&
	expect_grep "load_filter=0x1,min_latency=0x40" out &&
	expect_grep "AUX area: [0-9]+ pages" out
'

test_expect_success 'WindowsPerf and Linux spellings give the same encoding' '
	LPERF_SYSFS_ROOT=$F lperf record --dry-run -m 4,16 -e arm_spe_0/st=0,ld=0,b=1,ts=1,min=1024/ \
		-e arm_spe_0/store_filter=0,load_filter=0,branch_filter=1,ts_enable=1,min_latency=1024/ \
		-- true >out &&
	test "$(grep -cE " 0x100000001 +0 +0x400 " out)" -eq 2 &&
	expect_grep "AUX area: 16 pages" out &&
	LPERF_SYSFS_ROOT=$F lperf stat --dry-run -e arm_spe_0/pa=1,jitter=1,event_filter=0x22/ -- true >s &&
	expect_grep " 0x10002 +0x22 +0 " s
'

test_expect_success 'SPE values out of range and unknown terms are refused in one line' '
	LPERF_SYSFS_ROOT=$F expect_exit 2 "$LPERF" record --dry-run -e arm_spe_0/min=5000/ -- true 2>err &&
	expect_grep "too wide.*12 bits" err && expect_lines 1 err &&
	LPERF_SYSFS_ROOT=$F expect_exit 2 "$LPERF" record --dry-run -e arm_spe_0/lod=1/ -- true 2>err &&
	expect_grep "valid terms" err &&
	LPERF_SYSFS_ROOT=$F expect_exit 2 "$LPERF" record --dry-run -c 100 -e arm_spe_0/ld=1/ -- true 2>err &&
	expect_grep "below arm_spe_0.s caps/min_interval \(256\)" err
'

test_expect_success 'without an SPE PMU: one clear line' '
	expect_exit 2 "$LPERF" record --dry-run -e arm_spe_0/ld=1,min_latency=64/ -- true 2>err &&
	expect_lines 1 err && expect_grep "no Arm SPE PMU" err
'

test_expect_success 'sample and wperf record with an SPE event: one line where SPE cannot open, nothing left in TMPDIR' '
	mkdir -p tmp &&
	TMPDIR=$PWD/tmp LPERF_SYSFS_ROOT=$F expect_exit 1 "$LPERF" sample -e arm_spe_0/ld=1/ -- true 2>err &&
	expect_lines 1 err && expect_grep "cannot open event .arm_spe_0/ld=1/." err &&
	TMPDIR=$PWD/tmp LPERF_SYSFS_ROOT=$F expect_exit 1 "$LPERF" wperf record -e arm_spe_0/ld=1,min_latency=64/ \
		-c 0 --disassemble -- true 2>err &&
	expect_lines 1 err && test -z "$(ls tmp)"
'

test_expect_success 'list shows the SPE filters, test the SPE version' '
	LPERF_SYSFS_ROOT=$F lperf list >l &&
	expect_grep "load_filter +ld +config:33 +\[SPE filter\]" l &&
	expect_grep "min_latency +min +config2:0-11" l &&
	LPERF_SYSFS_ROOT=$F lperf test --no-python >t &&
	expect_grep "spe_device.version_name +FEAT_SPE$" t &&
	LPERF_SYSFS_ROOT=$F lperf test --no-python --json >t.json && validate_json test.schema.json t.json
'

if [ ! -x "$GEN" ]; then
	test_skip 'SPE perf.data round trip' "no $GEN (make unit)"
	test_done; exit
fi

test_expect_success 'lperf decodes its SPE recording: script, report, --json' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	lperf script -i spe.data >s.txt 2>err && test ! -s err && expect_lines 6 s.txt &&
	expect_grep "spe_demo_load\+0x[0-9a-f]+ .* op=LOAD_STORE_ATOMIC-LOAD-GP ev=retired\+l1d-access\+tlb-access tot=9 issue=4 xlat=1 va=0x7ffd00001040 pa=0x80001040 ds=l1d" s.txt &&
	lperf report -i spe.data >r.txt &&
	expect_grep "sample source: LOAD_STORE_ATOMIC-STORE-GP/retired\+l1d-access" r.txt &&
	expect_grep "^ +3 +403.0 +300 +900 +900 +900 .*spe_demo_load" r.txt &&
	expect_grep "^ +dram +0xe +1 +1 +0 +300.0" r.txt &&
	expect_grep "^ +0x7ffd00001040 +2 +1 +1 " r.txt &&
	lperf report -i spe.data --json >r.json && validate_json spe-report.schema.json r.json &&
	lperf report -i spe.data --itrace=b >b.txt && expect_grep "records \(1 selected\)|\(1 selected\)" b.txt &&
	expect_exit 2 "$LPERF" script -i spe.data --itrace=l 2>err && expect_grep "Arm SPE records produce no such" err
'

test_expect_success 'script --json: every record with its decoded fields; --itrace keeps the chosen ones' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	lperf script -i spe.data --json >s.json && validate_json spe-script.schema.json s.json &&
	"$PYTHON" - s.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	r = d["records"]
	assert d["spe"]["records"] == 6 and len(r) == 6, len(r)
	ld = r[0]
	assert ld["symbol"] == "spe_demo_load" and ld["symbol_offset"] > 0, ld
	assert ld["op"] == "LOAD_STORE_ATOMIC-LOAD-GP" and ld["op_kind"] == "load"
	assert ld["events"] == ["retired", "l1d-access", "tlb-access"], ld["events"]
	assert ld["latency"] == {"total": 9, "issue": 4, "translation": 1}
	assert ld["data_va"] == 0x7ffd00001040 and ld["data_pa"] == 0x80001040 and ld["data_source_name"] == "l1d"
	assert [x["op_kind"] for x in r] == ["load", "load", "store", "branch", "other", "load"]
	EOF
	lperf script -i spe.data --json --itrace=b >b.json && validate_json spe-script.schema.json b.json &&
	"$PYTHON" -c "import json,sys; r = json.load(open(\"b.json\"))[\"records\"]; assert len(r) == 1 and r[0][\"synthesized\"] == [\"branch-miss\"], r" &&
	expect_exit 2 "$LPERF" script -i "$FIXTURES/perfdata/perf61-cpu-clock.data" --json 2>err &&
	expect_grep "Arm SPE recordings" err && expect_lines 1 err
'

test_expect_success 'annotate counts SPE records per instruction of the functions they sampled' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	lperf annotate -i spe.data --json >a.json && validate_json annotate.schema.json a.json &&
	"$PYTHON" - a.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	got = {f["symbol"]: f["samples"] for f in d["functions"]}
	assert got == {"spe_demo_load": 3, "spe_demo_branch": 2, "spe_demo_store": 1}, got
	EOF
	lperf annotate -i spe.data -n --stdio >a.txt &&
	expect_grep "spe_demo_load .*arm_spe_0" a.txt &&
	lperf annotate -i spe.data --itrace=b --json >b.json &&
	"$PYTHON" -c "import json; f = json.load(open(\"b.json\"))[\"functions\"]; assert [(x[\"symbol\"], x[\"samples\"]) for x in f] == [(\"spe_demo_branch\", 1)], f" &&
	expect_exit 2 "$LPERF" annotate -i "$FIXTURES/perfdata/perf61-cpu-clock.data" --itrace=b 2>err &&
	expect_lines 1 err
'

test_expect_success 'report --annotate / --disassemble: WindowsPerf blocks per hot function from SPE records' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	lperf report -i spe.data --annotate >a.txt &&
	expect_grep "^sample source code annotation" a.txt &&
	awk "/^spe_demo_load\$/ { f = 1; next } f && /test_spe_perfdata.c/ { print; exit }" a.txt >row &&
	expect_grep "^ +[0-9]+ +3 +tests/unit/test_spe_perfdata.c" row &&
	lperf report -i spe.data --disassemble >d.txt &&
	expect_grep "instruction_address +disassembled_line" d.txt &&
	lperf report -i spe.data --disassemble --json >d.json && validate_json spe-report.schema.json d.json &&
	"$PYTHON" -c "import json; a = json.load(open(\"d.json\"))[\"annotate\"]; assert {x[\"function_name\"]: x[\"samples\"] for x in a} == {\"spe_demo_load\": 3, \"spe_demo_branch\": 2, \"spe_demo_store\": 1}, a"
'

test_expect_success 'a corrupted AUX byte is reported with its offset and decoding goes on' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	off=$(grep -abo "$(printf "\\122\\026\\000")" spe.data | head -n1 | cut -d: -f1) &&
	test -n "$off" &&
	cp spe.data bad.data &&
	printf "\\377" | dd of=bad.data bs=1 seek="$off" conv=notrunc 2>/dev/null &&
	lperf script -i bad.data >s.txt 2>err &&
	expect_grep "SPE data offset 0xf .*unknown SPE packet header 0xff" err &&
	expect_lines 5 s.txt
'

if ! command -v perf >/dev/null 2>&1; then
	test_skip 'perf 6.1 decodes the same records' 'no perf'
	test_done; exit
fi

test_expect_success 'perf report -D and lperf script decode the same packets per record' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	perf report -D -i spe.data >d.txt 2>err && test ! -s err &&
	awk -f "$AWK/perf_dump.awk" d.txt >p.txt && expect_lines 6 p.txt &&
	lperf script -i spe.data | awk -f "$AWK/lperf_script.awk" >l.txt &&
	diff p.txt l.txt
'

test_expect_success 'perf script --itrace=i1i and lperf agree on ip, symbol, address, latency' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	perf script -i spe.data --itrace=i1i -F tid,ip,sym,addr,weight,phys_addr >p0.txt 2>err &&
	test ! -s err &&
	awk "\$4 != \"0\" { print \$1, \$4, \$5, \$2, \$3, \$6 }" p0.txt >p.txt && expect_lines 6 p.txt &&
	lperf script -i spe.data --itrace=i1i >l0.txt &&
	awk "{ va = pa = \"0\"; tot = \"\";
	       for (i = 7; i <= NF; i++) { split(\$i, kv, \"=\");
	         if (kv[1] == \"va\") va = kv[2]; if (kv[1] == \"pa\") pa = kv[2]; if (kv[1] == \"tot\") tot = kv[2] }
	       sub(/^0x/, \"\", va); sub(/^0x/, \"\", pa); s = \$7; sub(/\\+0x[0-9a-f]+\$/, \"\", s);
	       print \$2, \$6, s, va, tot, pa }" l0.txt >l.txt &&
	diff p.txt l.txt
'

test_expect_success 'perf and lperf synthesise the same events (--itrace=fmtbaM)' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	perf script -i spe.data --itrace=fmtbaM -F event,ip 2>err | awk "{ print \$1, \$2 }" >p.txt &&
	test ! -s err &&
	lperf script -i spe.data --itrace=fmtbaM | awk "{ print \$5, \$6 }" >l.txt &&
	test "$(wc -l <p.txt)" -eq 20 && diff p.txt l.txt
'

test_expect_success 'real SPE bytes (kernel PCs, timestamps): perf and lperf decode the same' '
	LPERF_SPE_REAL_OUT=$PWD/real.data "$GEN" >/dev/null &&
	perf report -D -i real.data 2>err | awk -f "$AWK/perf_dump.awk" >p.txt &&
	# perf warns only that it has no kernel symbols for the EL1 PCs (no kallsyms here)
	! grep -v -e "^\$" -e "^Warning:" -e "Kernel address maps" -e "kptr_restrict" \
		-e "kallsyms nor vmlinux" -e "be resolved" -e "kernel modules" err &&
	expect_lines 2 p.txt &&
	lperf script -i real.data | awk -f "$AWK/lperf_script.awk" >l.txt && diff p.txt l.txt &&
	perf script -i real.data --itrace=i1i -F ip,addr,weight 2>err |
		awk "\$3 != \"0\" { print \$3, \$1, \$2 }" >p2.txt && test ! -s err &&
	lperf script -i real.data --itrace=i1i | awk "{ va = \"0\"; tot = \"\";
		for (i = 7; i <= NF; i++) { split(\$i, kv, \"=\");
		  if (kv[1] == \"va\") va = kv[2]; if (kv[1] == \"tot\") tot = kv[2] }
		sub(/^0x/, \"\", va); print \$6, va, tot }" >l2.txt &&
	expect_lines 2 p2.txt && diff p2.txt l2.txt
'

test_expect_success 'data sources: perf names the same levels for loads (Neoverse N1 CPUID)' '
	LPERF_SPE_OUT=$PWD/spe.data "$GEN" >/dev/null &&
	perf script -i spe.data --itrace=i1i -F ip,data_src 2>/dev/null >p.txt &&
	lperf script -i spe.data >l.txt &&
	for pair in "l1d:LVL L1 or L1 hit" "dram:LVL Local RAM or RAM hit" "remote:LVL Remote"; do
		name=${pair%%:*} lvl=${pair#*:} &&
		ip=$(grep "ds=$name(" l.txt | grep "op=LOAD" | awk "{ print \$4 }") &&
		test -n "$ip" && grep "$lvl" p.txt | grep -q "$ip" || return 1
	done
'

test_done
