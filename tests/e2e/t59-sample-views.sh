#!/bin/sh
# Golden outputs of the sampling commands: lperf sample, wperf record and wperf sample print the
# same tables from one engine, in the layout the personality asks for. Sampling is not
# deterministic, so counts, addresses and the rows of stray samples are normalised away
# (tests/e2e/sample_norm.py) and the rest is compared byte for byte; JSON by its shape. The
# renderers themselves are pinned byte for byte by tests/unit/test_sample_out.c.
# e2e-class: parallel (normalised goldens and JSON shapes; passed 3 times in both builds beside 1 to 4 other scripts at loads of 10-31)
. "$(dirname "$0")/lib.sh"
WPERF="$(dirname "$LPERF")/wperf"
wperf() { "$WPERF" "$@"; }
norm() { "$PYTHON" "$TEST_ROOT/tests/e2e/sample_norm.py" "$@"; }

cd "$SCRATCH" && printf "#include <stdlib.h>\n__attribute__((noinline)) static long hot_loop_fn(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i * 7; return s; }\nint main(int c, char **v) { return (int)(hot_loop_fn(atol(v[1])) & 1); }\n" >prog.c
cc -O1 -g -o "$SCRATCH/prog" prog.c && rm prog.c

TABLE='======================== sample source: cpu-clock, top 50 hot functions ========================
        overhead  count  symbol
        ========  =====  ======
        P  N  hot_loop_fn:prog
P%  N  top K in total
'

test_expect_success 'lperf sample: the hot-function table, then the elapsed time (%10.3f)' '
	lperf sample -e cpu-clock -C 0 -- "$SCRATCH/prog" 60000000 >out &&
	norm hot_loop_fn out >n &&
	{ printf "%s\n" "$TABLE"; echo "[10] seconds time elapsed"; } >expect &&
	diff -u expect n
'

test_expect_success 'lperf sample --annotate / --disassemble: the tables, then the annotation blocks' '
	lperf sample -e cpu-clock -C 0 --annotate -- "$SCRATCH/prog" 60000000 >out &&
	norm hot_loop_fn out >n &&
	{ printf "%s\n" "$TABLE"; printf "sample source code annotation\n\nhot_loop_fn\n line_number hits filename\n =========== ==== ========\n        2  N  prog.c\n\n[10] seconds time elapsed\n"; } >expect &&
	diff -u expect n &&
	lperf sample -e cpu-clock -C 0 --disassemble -- "$SCRATCH/prog" 60000000 >out &&
	norm hot_loop_fn out >n &&
	{ printf "%s\n" "$TABLE"; printf "sample source code annotation\n\nhot_loop_fn\n line_number hits filename instruction_address disassembled_line\n =========== ==== ======== =================== =================\n        2  N  prog.c  A  address  instruction\n\n[10] seconds time elapsed\n"; } >expect &&
	diff -u expect n
'

# wperf record and lperf sample run one body (cmd/sample.c:sample_command). Where the two copies
# had drifted, lperf's behaviour won: the elapsed time is "%10.3f" (wperf had "%20.3f") and the
# annotation blocks follow all the tables under "sample source code annotation" (wperf had a
# block list after each event's table).
test_expect_success 'wperf record: progress line on stdout, then exactly lperf sample'"'"'s layout' '
	wperf record -e cpu-clock:100000 -c 0 -- "$SCRATCH/prog" 60000000 >out &&
	norm hot_loop_fn out >n &&
	{ echo "sampling ... done!"; printf "%s\n" "$TABLE"; echo "[10] seconds time elapsed"; } >expect &&
	diff -u expect n &&
	lperf sample -e cpu-clock -C 0 -- "$SCRATCH/prog" 60000000 >lout &&
	norm hot_loop_fn lout >ln && sed 1d n >wn && diff -u ln wn
'

test_expect_success 'wperf record --annotate / --disassemble: lperf sample'"'"'s annotation blocks' '
	wperf record -e cpu-clock:100000 -c 0 --annotate -- "$SCRATCH/prog" 60000000 >out &&
	norm hot_loop_fn out >n &&
	{ echo "sampling ... done!"; printf "%s\n" "$TABLE"; printf "sample source code annotation\n\nhot_loop_fn\n line_number hits filename\n =========== ==== ========\n        2  N  prog.c\n\n[10] seconds time elapsed\n"; } >expect &&
	diff -u expect n &&
	wperf record -e cpu-clock:100000 -c 0 --disassemble -- "$SCRATCH/prog" 60000000 >out &&
	norm hot_loop_fn out >n &&
	{ echo "sampling ... done!"; printf "%s\n" "$TABLE"; printf "sample source code annotation\n\nhot_loop_fn\n line_number hits filename instruction_address disassembled_line\n =========== ==== ======== =================== =================\n        2  N  prog.c  A  address  instruction\n\n[10] seconds time elapsed\n"; } >expect &&
	diff -u expect n
'

WSHAPE_HEAD='{"sampling": {"base_address": "int", "events": [{"annotate": '
WSHAPE_TAIL=', "interval": "int", "printed_sample_num": "int", "samples": [{"count": "int", "overhead": "float", "symbol": "str"}], "type": "str"}], "pdb_file": "str", "pe_file": "str", "runtime_delta": "int", "sample_display_row": "int", "samples_dropped": "int", "samples_generated": "int"}}'

test_expect_success 'wperf record --json: WindowsPerf sampling shape (-v pcs, --annotate, --disassemble)' '
	wperf record -e cpu-clock:100000 -c 0 --json -- "$SCRATCH/prog" 60000000 >j.json &&
	norm --json x j.json >n && echo "$WSHAPE_HEAD[]$WSHAPE_TAIL" >expect && diff -u expect n &&
	wperf record -e cpu-clock:100000 -c 0 -v --json -- "$SCRATCH/prog" 60000000 >j.json &&
	norm --json x j.json >n &&
	echo "$WSHAPE_HEAD[], \"interval\": \"int\", \"pcs\": [{\"address\": \"int\", \"count\": \"int\", \"in_symbol\": \"str\"}]${WSHAPE_TAIL#, \"interval\": \"int\"}" >expect &&
	diff -u expect n &&
	wperf record -e cpu-clock:100000 -c 0 --annotate --json -- "$SCRATCH/prog" 60000000 >j.json &&
	norm --json x j.json >n &&
	echo "$WSHAPE_HEAD[{\"function_name\": \"str\", \"source_code\": [{\"filename\": \"str\", \"hits\": \"int\", \"line_number\": \"int\"}]}]$WSHAPE_TAIL" >expect &&
	diff -u expect n &&
	wperf record -e cpu-clock:100000 -c 0 --disassemble --json -- "$SCRATCH/prog" 60000000 >j.json &&
	norm --json x j.json >n &&
	echo "$WSHAPE_HEAD[{\"function_name\": \"str\", \"source_code\": [{\"disassembled_line\": {\"disassemble\": [{\"address\": \"str\", \"instruction\": \"str\"}]}, \"filename\": \"str\", \"hits\": \"int\", \"instruction_address\": \"str\", \"line_number\": \"int\"}]}]$WSHAPE_TAIL" >expect &&
	diff -u expect n
'

test_expect_success 'lperf sample --json --disassemble: lperf-report/1 with the annotate array' '
	lperf sample -e cpu-clock -C 0 --disassemble --json -- "$SCRATCH/prog" 60000000 >j.json &&
	norm --json x j.json >n &&
	echo "{\"annotate\": [{\"dso\": \"str\", \"event\": \"str\", \"function_name\": \"str\", \"samples\": \"int\", \"source_code\": [{\"disassembled_line\": {\"disassemble\": [{\"address\": \"str\", \"hits\": \"int\", \"instruction\": \"str\"}]}, \"filename\": \"str\", \"hits\": \"int\", \"instruction_address\": \"str\", \"line_number\": \"int\"}]}], \"events\": [{\"entries\": [{\"dso\": \"str\", \"kernel\": \"bool\", \"overhead\": \"float\", \"period\": \"int\", \"samples\": \"int\", \"symbol\": \"str\"}], \"event\": \"str\", \"event_count\": \"int\", \"samples\": \"int\", \"sort\": [\"str\"]}], \"filtered_out\": \"int\", \"lost_records\": \"int\", \"lost_samples\": \"int\", \"samples\": \"int\", \"schema\": \"str\", \"source\": \"str\"}" >expect &&
	diff -u expect n
'

test_done
