#!/bin/sh
# The browser of report and top (tui/, ncurses), driven in a real terminal (tmux): the entries
# with perf's columns and the --stdio percentages, a chain expanded, annotate's hottest line, the
# symbol filter, the DSO zoom and back, sort orders, help, a flame graph of the view, 80x24 and
# 200x50 and a resize, top's refresh with a hot spot that moves every 3 s, and the terminal
# restored after q, Ctrl-C and a crash (SIGSEGV).
# e2e-class: parallel (screens waited for with deadlines, a hot spot watched until it leads within 15 s, a tmux socket of its own; passed 3 times in both builds beside 2 busy loops at loads of 13-18)
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || { test_skip "browser" "no tmux (scripts/install-deps.sh)"; test_done; exit; }
. "$(dirname "$0")/tmux.sh"
tui_recording
REPORT="cd $SCRATCH && $LPERF report -i $D"
# The browser's bottom bar, which a restored terminal no longer shows.
BAR="h/\\?: help"

test_expect_success 'report on a terminal opens the browser: perf columns, the --stdio percentages' '
	tmux_run 80 24 "$REPORT" && tmux_wait "$BAR" &&
	tmux_screen >s && expect_grep "^  Children +Self +Command +Shared Ob[a-z ]* +Symbol" s &&
	lperf report --stdio -i "$D" | grep -E "^ +[0-9.]+%" | head -5 |
		awk "{ print \$1, \$2, \$NF }" >want &&
	grep -E "^[+ -] +[0-9.]+%" s | head -5 | sed "s/^[+ -]//" | awk "{ print \$1, \$2, \$NF }" >got &&
	cat got && cut -d" " -f1,2 want >w2 && cut -d" " -f1,2 got >g2 && diff w2 g2 &&
	# a name at the screen edge is cut (a long DSO name widens its column)
	paste -d" " want got | awk "index(\$3, \$6) != 1 { bad = 1 } END { exit bad }"
'

test_expect_success 'Enter expands an entry, e its whole chain, a filter narrows to one symbol' '
	tmux_keys / && tmux_wait "Symbol filter:" && tmux_keys start_thread Enter &&
	tmux_wait "filter: start_thread" && tmux_screen >s &&
	test "$(grep -c "\\[\\.\\] start_thread" s)" -eq 2 && expect_no_grep "hot_gamma" s &&
	tmux_keys Enter && tmux_wait "^- +[0-9.]+%.*start_thread" &&
	tmux_screen >s1 && expect_grep "^     start_thread$" s1 && expect_grep "^   [ +] thread_(two|three)$" s1 &&
	tmux_keys e && tmux_wait " hot_(alpha|beta|gamma)$" &&
	tmux_screen >s2 && expect_grep "^   [ -] thread_(two|three)$" s2 &&
	tmux_keys Escape && tmux_wait "help  q: quit$" && tmux_screen >s3 && expect_grep "hot_gamma" s3
'

test_expect_success 'a annotates the selected function and starts on its hottest line' '
	lperf annotate --stdio -i "$D" hot_gamma >ann &&
	hot=$(awk "\$2 == \":\" && \$1 ~ /^[0-9.]+$/ && \$1 > m { m = \$1; l = \$3 } END { print l }" ann) &&
	test -n "$hot" &&
	tmux_keys / && tmux_wait "Symbol filter:" && tmux_keys hot_gamma Enter && tmux_wait "filter: hot_gamma" &&
	tmux_keys a && tmux_wait "Source code & Disassembly of hot_gamma" &&
	tmux_screen >s && expect_grep "$hot" s &&
	tm capture-pane -e -p -t t >attrs && grep "$hot" attrs | grep -q "\\[7m" &&
	tmux_keys q && tmux_wait "filter: hot_gamma" && tmux_keys Escape && tmux_wait "help  q: quit$"
'

test_expect_success 'd zooms into a DSO and Esc comes back; s sorts; h helps; f writes a flame graph' '
	tmux_keys d && tmux_wait "DSO: tui_work" && tmux_screen >s && expect_grep ", DSO: tui_w" s &&
	expect_no_grep "Shared Object" s &&
	expect_no_grep "libc.so.6|kernel.kallsyms" s &&
	tmux_keys f && tmux_wait "flame graph written to" 20 && tmux_screen >f &&
	svg=$(sed -n "s/.*flame graph written to \\([^ ]*\\).*/\\1/p" f) && test -s "$svg" &&
	grep -q "<svg" "$svg" && grep -q hot_gamma "$svg" && ! grep -q "kallsyms" "$svg" &&
	tmux_keys Escape && tmux_wait "help  q: quit$" && tmux_screen >s2 && expect_grep "libc.so.6" s2 &&
	tmux_keys s && tmux_wait "sort: self" &&
	tmux_keys h && tmux_wait "zoom into the selected entry" && tmux_keys q && tmux_wait "sort: self"
'

test_expect_success 't and p zoom by the thread and process ids of the entry (title), again: back' '
	ids=$(lperf script -F comm,pid,tid -i "$D" | awk "\$1 == \"tui-two\" { print \$2; exit }") &&
	pid=${ids%/*} tid=${ids#*/} && echo "tui-two: $pid/$tid" &&
	test -n "$pid" && test "$pid" != "$tid" &&
	tmux_keys / && tmux_wait "Symbol filter:" && tmux_keys hot_beta Enter && tmux_wait "filter: hot_beta" &&
	tmux_keys t && tmux_wait ", Thread: tu" && tmux_wait "thread: tui-two\\($tid\\)" && tmux_keys / && tmux_wait "Symbol filter:" && tmux_keys Enter &&
	tmux_wait "Esc: back\$" && tmux_screen >s && expect_no_grep "% +(tui-three|tui_work) " s && expect_grep "% +tui-two " s &&
	tmux_keys t && tmux_wait "help  q: quit\$" &&
	tmux_keys / && tmux_wait "Symbol filter:" && tmux_keys hot_beta Enter && tmux_wait "filter: hot_beta" &&
	tmux_keys p && tmux_wait "process: tui_work\\($pid\\)" && tmux_keys / && tmux_wait "Symbol filter:" &&
	tmux_keys Enter && tmux_wait "Esc: back\$" && tmux_screen >s2 && expect_grep "% +tui-three " s2 &&
	expect_grep "% +tui_work " s2 && tmux_keys Escape && tmux_wait "help  q: quit\$"
'

test_expect_success 'c switches to callee graphs (who called it) and back' '
	tmux_keys / && tmux_wait "Symbol filter:" && tmux_keys hot_gamma Enter && tmux_wait "filter: hot_gamma" &&
	tmux_keys c && tmux_wait "now: callee graphs" && tmux_keys e &&
	tmux_wait "^     thread_three$" && tmux_screen >s && expect_grep "^     hot_gamma$" s &&
	expect_grep "^     start_thread$" s &&
	tmux_keys c && tmux_wait "now: caller graphs" && tmux_keys Escape && tmux_wait "help  q: quit$"
'

test_expect_success 'q quits and the terminal is restored' '
	tmux_keys q && tmux_wait "EXIT=0" && tmux_screen >s && expect_no_grep "$BAR" s
'

test_expect_success 'Ctrl-C restores the terminal; so does a crash (SIGSEGV)' '
	tmux_run 80 24 "$REPORT" && tmux_wait "$BAR" &&
	tmux_keys C-c && tmux_wait "EXIT=[0-9]+" && tmux_screen >s && expect_no_grep "$BAR" s &&
	tmux_run 80 24 "$REPORT" && tmux_wait "$BAR" &&
	pkill -SEGV -f "^$LPERF report -i $D\$" && tmux_wait "EXIT=139" &&
	tmux_screen >s2 && expect_no_grep "$BAR" s2
'

test_expect_success '200x50, and a resize to 100x30, redraw to the new size' '
	tmux_run 200 50 "$REPORT" && tmux_wait "$BAR" && tmux_screen >s &&
	test "$(grep -cE "^[+ -] +[0-9.]+%" s)" -ge 10 &&
	tm resize-window -t t -x 100 -y 30 && tmux_keys j &&
	n=0; until tmux_screen | sed -n 30p | grep -q help || [ $n -ge 50 ]; do sleep 0.1; n=$((n + 1)); done &&
	tmux_screen >s2 && cat s2 && test "$(wc -l <s2)" -eq 30 && sed -n 30p s2 | grep -q help &&
	tmux_keys q && tmux_wait "EXIT=0"
'

test_expect_success 'two events: perf event menu, Enter browses one, Tab the next, Esc the menu again' '
	lperf record -q -g -e cpu-clock -e task-clock -F 500 -o two.data -- "$BIN/tui_work" 0.5 &&
	tmux_run 80 24 "cd $PWD && $LPERF report -i two.data" && tmux_wait "^Available samples" &&
	tmux_wait "^[0-9]+K? cpu-clock" && tmux_screen >m && expect_grep "^[0-9]+K? task-clock" m &&
	expect_grep "ESC: exit, ENTER" m &&
	tmux_keys Enter && tmux_wait "of event .cpu-clock." &&
	tmux_keys Tab && tmux_wait "of event .task-clock." && tmux_wait "now: task-clock" &&
	tmux_keys Tab && tmux_wait "of event .cpu-clock." &&
	tmux_keys Escape && tmux_wait "^Available samples" && tmux_keys Down Enter &&
	tmux_wait "of event .task-clock." && tmux_keys Escape && tmux_wait "^Available samples" &&
	tmux_keys q && tmux_wait "EXIT=0"
'

test_expect_success 'Enter on a call in the annotate view annotates the function it calls; q comes back' '
	lperf record -q -g -F 1000 -e cpu-clock -o calls.data -- "$BIN/tui_work" calls 1 &&
	addr=$(nm "$BIN/tui_work" | awk "\$3 == \"hot_alpha\" { sub(/^0+/, \"\", \$1); print \$1 }") &&
	test -n "$addr" &&
	tmux_run 100 60 "cd $PWD && $LPERF report -i calls.data" && tmux_wait "$BAR" &&
	tmux_keys / && tmux_wait "Symbol filter:" && tmux_keys busy_caller Enter && tmux_wait "filter: busy_caller" &&
	tmux_keys a && tmux_wait "call[a-z]* 0x$addr\$" && tmux_wait "^Annotate busy_caller" &&
	tm capture-pane -e -p -t t >attrs && sel=$(grep -n "\[7m" attrs | head -1 | cut -d: -f1) &&
	call=$(tmux_screen | grep -n "call[a-z]* 0x$addr\$" | head -1 | cut -d: -f1) &&
	test -n "$sel" && test -n "$call" && echo "selected $sel, the call $call" &&
	while [ "$sel" -lt "$call" ]; do tmux_keys Down; sel=$((sel + 1)); done &&
	while [ "$sel" -gt "$call" ]; do tmux_keys Up; sel=$((sel - 1)); done &&
	tmux_keys Enter && tmux_wait "^Annotate hot_alpha" && tmux_screen >s && expect_grep "hot_alpha\(\):" s &&
	tmux_keys q && tmux_wait "^Annotate busy_caller" && tmux_keys Up Enter && tmux_wait "not a call" &&
	tmux_keys q && tmux_wait "$BAR" && tmux_keys q && tmux_wait "EXIT=0"
'

test_expect_success 'report --stdio and a pipe keep the text; --tui --stdio is a usage error' '
	lperf report -i "$D" >piped && lperf report --stdio -i "$D" >text && cmp piped text &&
	expect_exit 2 lperf report --tui --stdio -i "$D" 2>err
'

# lead SYMBOL SECONDS: until the first entry row on the screen is SYMBOL (that screen in ./s). The
# hot spot of tui_work shift moves every 3 s: the screen is watched for each to lead in turn, not
# read at a moment that a late first refresh (a slow or loaded machine) would put in another phase.
lead() {
	n=$(($2 * 10))
	while [ "$n" -gt 0 ]; do
		tmux_screen >s && grep -E "^ +[0-9.]+%" s | head -1 | grep -qE "tui_work +\\[\\.\\] $1" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	echo "$1 never led:" >&2; cat s >&2; return 1
}
test_expect_success 'top on a terminal: the browser, refreshed, a moving hot spot leads, q restores' '
	"$BIN/tui_work" shift 30 & w=$! &&
	tmux_run 120 24 "$LPERF top -q -p $w -d 1" && lead hot_alpha 15 && lead hot_beta 15 &&
	expect_grep "samples/s, target: pid $w" s && expect_grep "lperf top itself" s &&
	tmux_keys q && tmux_wait "EXIT=0" && tmux_screen >s2 && expect_no_grep "$BAR" s2;
	rc=$?; kill $w 2>/dev/null; wait $w; return $rc
'

test_expect_success 'top: a annotates, f writes a flame graph, the command output waits for the end' '
	printf "#!/bin/sh\necho SCRIBBLE-OUT\necho SCRIBBLE-ERR >&2\ntouch %s/printed\nexec %s shift 30\n" \
		"$PWD" "$BIN/tui_work" >noisy.sh && chmod +x noisy.sh &&
	tmux_run 120 30 "cd $PWD && $LPERF top -q -d 1 -- $PWD/noisy.sh" && tmux_wait "\\[\\.\\] hot_(alpha|beta)" 30 &&
	n=0; until [ -e printed ] || [ $n -ge 100 ]; do sleep 0.1; n=$((n + 1)); done; test -e printed &&
	tmux_keys j k && tmux_wait "\\[\\.\\] hot_(alpha|beta)" && tmux_screen >s && expect_no_grep SCRIBBLE s &&
	tmux_keys Home a && tmux_wait "^Annotate hot_(alpha|beta)" && tmux_screen >a &&
	expect_grep "Source code & Disassembly of hot_(alpha|beta) in tui_work" a &&
	tm capture-pane -e -p -t t | grep "\\[7m" | grep -qE "^.{0,30}[0-9]+\\.[0-9]{2} :" &&
	tmux_keys q && tmux_wait "$BAR" && tmux_keys f && tmux_wait "flame graph written to lperf-top-flame.svg" 20 &&
	grep -q "<svg" lperf-top-flame.svg && grep -qE "hot_(alpha|beta)" lperf-top-flame.svg &&
	tmux_keys q && tmux_wait "EXIT=0" && tmux_screen >s2 && expect_grep "^SCRIBBLE-OUT" s2 &&
	expect_grep "^SCRIBBLE-ERR" s2 && expect_no_grep "$BAR" s2
'

test_expect_success 'top: Ctrl-C ends it and restores the terminal' '
	tmux_run 80 24 "$LPERF top -q -d 1" && tmux_wait "$BAR" &&
	tmux_keys C-c && tmux_wait "EXIT=0" && tmux_screen >s && expect_no_grep "$BAR" s
'

test_done
