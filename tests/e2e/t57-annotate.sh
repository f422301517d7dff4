#!/bin/sh
# Source lines, annotate and inline frames, compared with Linux perf 6.1 on perf-made recordings:
# per-instruction counts of the hottest function (perf annotate --stdio -n), source-line totals
# (perf report --sort srcline), script's srcline field, inline frames of a C++ -O2 DWARF stack,
# and C++ names without parameters unless -v.
# e2e-class: parallel (annotate and srcline compared with perf on the same files)
. "$(dirname "$0")/lib.sh"
W="$TEST_ROOT/tests/workloads"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O2 -g -fno-omit-frame-pointer -o "$BIN/annot" "$W/annot.c" || { echo "cannot build workloads"; exit 1; }
HAVE_CXX=
command -v g++ >/dev/null && g++ -O2 -g -o "$BIN/inline_cxx" "$W/inline_cxx.cpp" && HAVE_CXX=1

# "count addr" pairs of the instruction rows with samples in an annotate --stdio -n listing.
insn_counts() { awk '$2 == ":" && $3 ~ /^[0-9a-f]+:$/ && $1 ~ /^[0-9]+$/ && $1 > 0 { sub(":", "", $3); print $3, $1 }' "$1" | sort; }
# "count key" rows of a report -n listing (the key is the last field).
rows() { awk '$1 ~ /%$/ { print $2, $NF }' "$1" | sort; }

test_expect_success 'annotate: lperf reads its own recording' '
	lperf record -q -g -F 2000 -e cpu-clock -o "$SCRATCH/l.data" -- "$BIN/annot" 2 &&
	lperf annotate -i "$SCRATCH/l.data" --stdio -n hot_loop >a.txt &&
	expect_grep "Source code & Disassembly of hot_loop" a.txt &&
	expect_grep "mix\\(\\) \\(inlined\\)" a.txt &&
	expect_grep "<hot_loop\\+0x" a.txt &&
	test -n "$(insn_counts a.txt)"
'

test_expect_success 'annotate --json and --source-only' '
	lperf annotate -i "$SCRATCH/l.data" --json hot_loop >a.json &&
	validate_json annotate.schema.json a.json &&
	"$PYTHON" - a.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	f = d["functions"][0]
	assert f["symbol"] == "hot_loop", f["symbol"]
	assert sum(i["samples"] for i in f["instructions"]) == f["samples"]
	assert sum(l["samples"] for l in f["lines"]) == f["samples"]
	assert any(i.get("inlined") == "mix" for i in f["instructions"])
	assert any(i["jump_target"] for i in f["instructions"])
	EOF
	lperf annotate -i "$SCRATCH/l.data" --source-only hot_loop >s.txt &&
	expect_grep "annot.c:19 " s.txt
'

test_expect_success 'annotate: a build-id mismatch with no copy in the build-id cache is refused with a note' '
	cp "$BIN/annot" "$SCRATCH/annot2" &&
	lperf record -q -F 2000 -e cpu-clock -o m.data -- "$SCRATCH/annot2" 1 &&
	cc -O2 -g -DOTHER=1 -o "$SCRATCH/annot2" "$W/annot.c" -Wl,--build-id=sha1 -fno-inline &&
	{ lperf --buildid-dir "$PWD/empty" annotate -i m.data hot_loop >m.txt 2>m.err; true; } &&
	expect_grep "build-id" m.err && expect_no_grep "Disassembly of hot_loop" m.txt
'

test_expect_success 'report --annotate / --disassemble: line tables, text and JSON' '
	lperf report -i "$SCRATCH/l.data" --wperf --annotate >w.txt &&
	expect_grep "^hot_loop\$" w.txt && expect_grep "line_number +hits +filename" w.txt &&
	expect_grep "^ +19 +[0-9]+ +.*annot.c" w.txt &&
	lperf report -i "$SCRATCH/l.data" --wperf --disassemble >d.txt &&
	expect_grep "instruction_address +disassembled_line" d.txt &&
	lperf report -i "$SCRATCH/l.data" --json --disassemble >d.json &&
	validate_json report.schema.json d.json &&
	"$PYTHON" - d.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	a = [f for f in d["annotate"] if f["function_name"] == "hot_loop"][0]
	assert a["source_code"][0]["hits"] >= a["source_code"][-1]["hits"]
	assert sum(l["hits"] for l in a["source_code"]) == a["samples"], a
	assert all(l["disassembled_line"]["disassemble"] for l in a["source_code"])
	EOF
'

test_expect_success 'sample --annotate (live)' '
	lperf sample -q --annotate -F 2000 -- "$BIN/annot" 1 >s.txt &&
	expect_grep "^hot_loop\$" s.txt && expect_grep "line_number +hits +filename" s.txt
'

if command -v node >/dev/null; then
test_expect_success 'annotate JIT code from the jitdump stored in the recording (node --perf-prof)' '
	cat >hot.js <<-\EOF &&
	function hot(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * 7) % 13; return s; }
	let t = 0; for (let k = 0; k < 30; k++) t += hot(2e6); console.log(t);
	EOF
	lperf record -q -F 2000 -e cpu-clock -o n.data -- node --perf-prof hot.js >/dev/null &&
	pid=$(lperf script -i n.data -F pid | awk "{ print \$1; exit }") &&
	rm -f "/tmp/jit-$pid.dump" "/tmp/perf-$pid.map" &&
	lperf annotate -i n.data --json -d "$(lperf report -i n.data --stdio --no-children --sort dso | awk "/jitted-/ { print \$NF; exit }")" >j.json &&
	validate_json annotate.schema.json j.json &&
	"$PYTHON" - j.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	f = d["functions"][0]
	assert "hot" in f["symbol"], f["symbol"]
	assert "note" not in f, f.get("note")
	assert len(f["instructions"]) > 5
	placed = sum(i["samples"] for i in f["instructions"])
	assert placed == f["samples"], (placed, f["samples"])
	EOF
'
fi

if command -v perf >/dev/null; then
test_expect_success 'perf recording: per-instruction counts of the hottest function equal perf annotate -n' '
	perf record -q -g -F 2000 -e cpu-clock -o "$SCRATCH/p.data" -- "$BIN/annot" 2 2>/dev/null &&
	perf annotate -i "$SCRATCH/p.data" --stdio -n hot_loop >pa.txt 2>/dev/null &&
	lperf annotate -i "$SCRATCH/p.data" --stdio -n hot_loop >la.txt &&
	insn_counts pa.txt >a && insn_counts la.txt >b && test -s a && diff a b
'

test_expect_success 'perf recording: --sort srcline and srcfile totals equal perf report' '
	for k in srcline srcfile; do
		perf report -i "$SCRATCH/p.data" --stdio -n --no-children --sort $k -g none >p.txt 2>/dev/null &&
		lperf report -i "$SCRATCH/p.data" --stdio -n --no-children --sort $k -g none >l.txt &&
		# PLT slots perf cannot name ("@plt+0") are a known difference (docs/annotate.md)
		# and so are glibc ld.so lines: perf asks binutils addr2line, which misreads the DWARF 5 file
		# table of ld.so (dl-find_object.h:95 becomes dl-find_object.c:95; eu-addr2line and lperf
		# read libdw: .h); ld.so gets a sample only now and then, at start-up; and so, now and
		# then, does _start of crt1, which no DWARF unit covers: perf ??:0 (or :0), lperf _start+N
		rows p.txt | grep -v "@plt+" | grep -v " dl-[a-z_-]*\.[ch]\(:[0-9]*\)\?\$\| rtld\.c\(:[0-9]*\)\?\$" |
			grep -v " \(??\)\?:0\$" >a &&
		rows l.txt | grep -v "\[[0-9a-f]*\]\$" | grep -v " dl-[a-z_-]*\.[ch]\(:[0-9]*\)\?\$\| rtld\.c\(:[0-9]*\)\?\$" |
			grep -v " _start+[0-9]*\$" >b && diff a b || return 1
	done
'

test_expect_success 'perf recording: script -F +srcline names the same lines' '
	perf script -i "$SCRATCH/p.data" -F +srcline 2>/dev/null | grep "^  " >a &&
	# but for a frame in _start of crt1, which no DWARF unit covers: perf prints no line (its
	# addr2line says ??:0), lperf the object and address (annot[1120]), as for the loader
	lperf script -i "$SCRATCH/p.data" -F +srcline |
		awk "/^  annot\\[[0-9a-f]*\\]\$/ && prev ~ / _start\\+0x/ { next } { prev = \$0; print }" | grep "^  " >b &&
	# as many lines; the same ones in the program (glibc is built with DWARF 5, whose file names
	# perf reads through binutils, which names the wrong file at times: strtoul.c for strtol.c,
	# dl-*.c, rtld.c; docs/annotate.md)
	grep -c . a && test $(wc -l <a) -eq $(wc -l <b) &&
	grep "^  annot\.c:" a >a2 && grep "^  annot\.c:" b >b2 && grep -c . a2 &&
	diff a2 b2
'

if [ -n "$HAVE_CXX" ]; then
# Frame names per sample, addresses, offsets and objects dropped.
names() { awk "/^\t/ { sub(/^\t *[0-9a-f]+ /, \"\"); sub(/\+0x[0-9a-f]+/, \"\"); sub(/ \([^()]*\)\$/, \"\"); print; next } /^\$/ { print \"--\" }"; }
test_expect_success 'C++ -O2 DWARF recording: inline frames as perf script' '
	perf record -q --call-graph dwarf -F 500 -e cpu-clock -o "$SCRATCH/c.data" -- "$BIN/inline_cxx" 3 2>/dev/null &&
	# a sample in the PLT: perf names it _init or @plt where lperf says NAME@plt (as in t58;
	# docs/annotate.md): such frames are left out of both
	perf script -i "$SCRATCH/c.data" 2>/dev/null | names | grep -v "@plt\|_init" >a &&
	lperf script -i "$SCRATCH/c.data" | names | grep -v "@plt\|_init" >b &&
	lperf script -i "$SCRATCH/c.data" | grep -c "(inlined)\$" &&
	test $(wc -l <a) -eq $(wc -l <b) &&
	"$PYTHON" - a b <<-\EOF
	import sys
	def samples(p):
	    out, cur = [], []
	    for l in open(p):
	        l = l.rstrip("\n")
	        if l == "--":
	            out.append(cur); cur = []
	        else:
	            cur.append(l)
	    return out
	a, b = samples(sys.argv[1]), samples(sys.argv[2])
	same = sum(x == y for x, y in zip(a, b))
	inl = sum(l.endswith("(inlined)") for s in b for l in s)
	print("samples", len(a), "identical", same, "inlined frames", inl)
	assert len(a) == len(b)
	# binutils names template instances without a linkage name by its state (docs/annotate.md)
	assert same == len(a), (same, len(a))
	EOF
'

test_expect_success 'C++ -O2 DWARF recording: script -F +srcline gives each inline level its line' '
	# the program'"'"'s own frames: a start-up sample in ld.so or libc gets binutils'"'"' DWARF 5
	# misreadings from perf (docs/annotate.md), which change its line count now and then
	own="/^\t/ { own = index(\$0, \"/inline_cxx)\") > 0; next } /^  / && own" &&
	perf script -i "$SCRATCH/c.data" -F +srcline 2>/dev/null | awk "$own" >a &&
	lperf script -i "$SCRATCH/c.data" -F +srcline | awk "$own" >b &&
	test $(wc -l <a) -eq $(wc -l <b) && test -s a &&
	# binutils names the wrong file for libc_start_call_main.h (DWARF 5), see docs/annotate.md
	paste -d "\n" a b | paste - - | awk -F "\t" "\$1 != \$2" | grep -v "libc-start.c" >diff || true &&
	n=$(wc -l <a) && d=$(wc -l <diff) && echo "$d of $n lines differ" &&
	test $((d * 10)) -le "$n"
'

test_expect_success 'C++ -O2 DWARF recording: report -g shows inline frames, self rows as perf' '
	perf report -i "$SCRATCH/c.data" --stdio -n --no-children --sort dso,sym -g none 2>/dev/null | grep "^ .*%" | grep -v "@plt\|\] _init\$" | sort >a &&
	lperf report -i "$SCRATCH/c.data" --stdio -n --no-children --sort dso,sym -g none | grep "^ .*%" | grep -v "@plt\|\] _init\$" | sort >b &&
	diff a b &&
	lperf report -i "$SCRATCH/c.data" --stdio --no-children --sort sym -g caller >g.txt &&
	expect_grep "__libc_start_main_impl \(inlined\)" g.txt &&
	lperf report -i "$SCRATCH/c.data" --stdio --no-children --sort sym -g caller --no-inline >n.txt &&
	expect_no_grep "\(inlined\)" n.txt
'

test_expect_success 'C++ names: no parameters by default, with them under -v (as perf)' '
	perf report -i "$SCRATCH/c.data" --stdio -n --no-children --sort sym -g none 2>/dev/null >p.txt &&
	lperf report -i "$SCRATCH/c.data" --stdio -n --no-children --sort sym -g none >l.txt &&
	expect_grep "phase_maps\$" p.txt && expect_grep "phase_maps\$" l.txt &&
	lperf report -v -i "$SCRATCH/c.data" --stdio -n --no-children --sort sym -g none >lv.txt &&
	expect_grep "phase_maps\\(int\\)\$" lv.txt &&
	# (the status and output of script checked: a failing script printed no (inlined) either)
	lperf script -i "$SCRATCH/c.data" --no-inline >s.txt && expect_grep "phase_maps" s.txt &&
	expect_no_grep "\(inlined\)" s.txt
'
fi
fi

test_done
