#!/bin/sh
# The shape of the code (tests/layout.py: the folder graph is docs/architecture.md's table, no file
# circle, unique file names, library code silent, no file over 800 lines, no function over 120,
# nothing in cmd/ but commands and option tables) and the one rule every command shares: output
# that cannot be written is an error.
# e2e-class: parallel (source layout and write errors: no sampling, no timing)
. "$(dirname "$0")/lib.sh"

test_expect_success 'src/: folders as docs/architecture.md says, no file circle, unique names, sizes' '
	"$PYTHON" "$TEST_ROOT/tests/layout.py" >out || { cat out; false; }
'

# The checker itself, on a small tree with one of each problem.
test_expect_success 'layout.py reports drift from the table, folder cycles, file circles, upward and stale declarations, twins, printing, helpers in cmd/' '
	mkdir -p src/util src/events src/wperf src/cmd &&
	printf "| folder | owns | may include |\n|---|---|---|\n| \`util/\` | u | — |\n| \`events/\` | e | util |\n| \`wperf/\` | w | events, util |\n| \`cmd/\` | c | anything |\n| \`lperf.c\` | l | cmd |\n" >arch.md &&
	printf "int a_one(void);\n" >src/util/a.h &&
	printf "#include \"util/a.h\"\nint a_one(void)\n{\n\treturn b_two();\n}\n" >src/util/a.c &&
	printf "static int (*hook)(void);\nint b_two(void)\n{\n\thook = a_one;\n\treturn 0;\n}\n" >src/util/b.c &&
	printf "#include \"wperf/w.h\"\nint e_x(void)\n{\n\treturn 0;\n}\n" >src/events/run.c &&
	printf "int cmd_x(void);\n" >src/wperf/w.h &&
	printf "#include \"events/e.h\"\n#include <stdio.h>\nvoid w_y(void)\n{\n\tprintf(\"hi\");\n}\n" >src/wperf/run.c &&
	printf "int e_x(void);\nint e_gone(void);\n" >src/events/e.h &&
	printf "#include \"wperf/w.h\"\nint cmd_x(void)\n{\n\treturn 0;\n}\n" >src/cmd/x.c &&
	printf "#include \"cmd/cmd.h\"\n" >src/lperf.c &&
	printf "int helper_y(void)\n{\n\treturn 0;\n}\n" >src/cmd/helper.c &&
	printf "int x_opt(void)\n{\n\treturn 0;\n}\n" >src/cmd/x_opts.c &&
	LAYOUT_SRC=src LAYOUT_DOC=arch.md expect_exit 1 "$PYTHON" "$TEST_ROOT/tests/layout.py" >out &&
	expect_grep "^#   cycle: events <-> wperf$" out &&
	expect_grep "^#   events includes wperf/, which its row does not list$" out &&
	expect_grep "^#   wperf.s row lists util, which it does not include$" out &&
	expect_grep "^#   circle: util/a <-> util/b$" out &&
	expect_grep "^#   wperf/w.h declares cmd_x, defined in cmd/x.c$" out &&
	expect_grep "^#   events/e.h declares e_gone, which no file defines$" out &&
	expect_grep "^#   run.c: events/run.c wperf/run.c$" out &&
	expect_grep "^#   wperf/run.c:5: prints" out &&
	expect_grep "^#   cmd/helper.c defines no command entry" out &&
	! grep -q "cmd/x.c defines\|cmd/x_opts.c defines" out &&
	expect_grep "^ok [0-9]+ - no file over 800 lines$" out
'

test_expect_success 'a write error on stdout fails with a message (list, version, help)' '
	for c in list version help; do
		expect_exit 1 lperf $c >/dev/full 2>err &&
		expect_grep "^lperf: write error on standard output: No space left on device$" err || return 1
	done
'

test_expect_success 'a write error on stdout fails report and script with a message' '
	lperf record -q -e cpu-clock -o rec.data -- sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done" &&
	expect_exit 1 lperf report -i rec.data >/dev/full 2>err &&
	expect_grep "write error on standard output" err &&
	expect_exit 1 lperf script -i rec.data >/dev/full 2>err &&
	expect_grep "write error on standard output" err
'

test_expect_success 'a closed stdout is not an error' '
	lperf version >&-
'
test_done
