#!/bin/sh
# The pager and colour of long text output (util/pager.h), driven in a real terminal (tmux):
# report --stdio, script, annotate, list and diff page through $LPERF_PAGER, then $PAGER, then
# less; --no-pager and a pipe do not page; hot percentages in perf's colours on a terminal,
# NO_COLOR and --color=never turn them off; piped output is the paged output without colour.
# e2e-class: parallel (pager and colour in a private tmux server; waits on the screen, generous bounds)
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || { test_skip "pager" "no tmux (scripts/install-deps.sh)"; test_done; exit; }
. "$(dirname "$0")/tmux.sh"
tui_recording
# The pager stand-in: notes that it ran and keeps what it was given.
PG="$SCRATCH/pager.sh"
cat >"$PG" <<'PAGER'
#!/bin/sh
echo "LESS=$LESS" >"$PAGED.called"
cat >"$PAGED"
PAGER
chmod +x "$PG"
ESC=$(printf '\033')
strip() { sed "s/$ESC\\[[0-9;]*m//g" "$1"; }

test_expect_success 'report --stdio on a terminal goes through $LPERF_PAGER with perf colours' '
	tmux_run 100 30 "PAGED=$PWD/out LPERF_PAGER=$PG $LPERF report --stdio -i $D" &&
	tmux_wait "EXIT=0" &&
	test -f out.called && expect_grep "LESS=FRSX" out.called &&
	expect_grep "$ESC\\[31m +[0-9.]+%$ESC\\[m" out &&
	lperf report --stdio -i "$D" >piped &&
	strip out >plain && cmp plain piped
'

test_expect_success 'piped output: no pager, no colour, byte for byte the --no-pager --color=never text' '
	PAGED=$PWD/out LPERF_PAGER=$PG lperf report --stdio -i "$D" >piped &&
	test ! -f out.called &&
	expect_no_grep "$ESC" piped &&
	lperf --no-pager report --stdio --color=never -i "$D" >plain &&
	cmp piped plain &&
	lperf report --stdio -i "$D" | cat >catted && cmp piped catted
'

test_expect_success '--color=always colours a pipe; NO_COLOR and --color=never do not colour a terminal' '
	lperf report --stdio --color=always -i "$D" >c && expect_grep "$ESC\\[3[12]m" c &&
	NO_COLOR=1 lperf report --stdio --color=always -i "$D" >c2 && expect_grep "$ESC\\[3[12]m" c2 &&
	tmux_run 100 30 "NO_COLOR=1 PAGED=$PWD/nc LPERF_PAGER=$PG $LPERF report --stdio -i $D" &&
	tmux_wait "EXIT=0" && test -f nc.called && expect_no_grep "$ESC" nc &&
	tmux_run 100 30 "PAGED=$PWD/nv LPERF_PAGER=$PG $LPERF report --stdio --color=never -i $D" &&
	tmux_wait "EXIT=0" && test -f nv.called && expect_no_grep "$ESC" nv &&
	test_must_fail_color() { ! lperf report --stdio --color=sometimes -i "$D" 2>err; } &&
	test_must_fail_color && expect_grep "sometimes" err
'

test_expect_success '--no-pager on a terminal: no pager; $PAGER when $LPERF_PAGER is unset' '
	tmux_run 100 30 "PAGED=$PWD/np LPERF_PAGER=$PG $LPERF --no-pager report --stdio -i $D" &&
	tmux_wait "EXIT=0" && test ! -f np.called &&
	tmux_run 100 30 "unset LPERF_PAGER; PAGED=$PWD/pp PAGER=$PG $LPERF report --stdio -i $D" &&
	tmux_wait "EXIT=0" && test -f pp.called &&
	tmux_run 100 30 "PAGED=$PWD/cc LPERF_PAGER=cat PAGER=$PG $LPERF report --stdio -i $D >/dev/null" &&
	tmux_wait "EXIT=0" && test ! -f cc.called
'

test_expect_success 'script, annotate, list and diff page on a terminal' '
	for c in "script -i $D" "annotate --stdio -i $D hot_alpha" "list sw" "diff $D $D"; do
		rm -f pg pg.called &&
		tmux_run 100 30 "PAGED=$PWD/pg LPERF_PAGER=$PG $LPERF $c" &&
		tmux_wait "EXIT=0" && test -s pg && test -f pg.called || return 1
	done
'

test_expect_success 'the default pager is less: it holds the screen until q' '
	tmux_run 80 24 "unset LPERF_PAGER PAGER LESS; $LPERF report --stdio -i $D" &&
	tmux_wait "Samples" &&
	tmux_screen >s1 && expect_no_grep "EXIT=" s1 &&
	tmux_keys q && tmux_wait "EXIT=0"
'

test_done
