#!/bin/sh
# record --pprof-dir (issue 26): a labelled pprof per --switch-output period, decoded here from the
# protobuf wire format (tests/e2e/pprof_decode.py, independent of lperf's writer). Each holds
# exactly the stacks report --folded shows of its period's perf.data, every sample labelled
# service (the command's name unless --service), host, pid (the process perf script names) and
# event; the shares of a workload of known
# shares per period; --switch-max-files bounds the profiles as the recordings; lperf diff of two
# periods shows what their profiles show; and lperf daemon's Python session as docs/daemon.md
# configures it gives profiles of a running Python service with its Python frames.
# e2e-class: parallel (shares within 3 sigma of the split the workload measured of its own CPU time, labels and stacks read back, polls with deadlines; passed 3 times in both builds at loads of 10-31)
. "$(dirname "$0")/lib.sh"
DECODE="$TEST_ROOT/tests/e2e/pprof_decode.py"
cc -O0 -g -fno-omit-frame-pointer -o "$SCRATCH/shares" "$TEST_ROOT/tests/workloads/shares.c" || exit 1
HOST=$(hostname)

# Three runs of shares, each its own period: the workload signals lperf (its parent) between runs.
PERIODS='SHARES_SPLIT=s1 "$0" 30 && kill -USR2 $PPID && SHARES_SPLIT=s2 "$0" 30 && kill -USR2 $PPID &&
	SHARES_SPLIT=s3 "$0" 30'

# shares PPROF: "work_X PERCENT N" of the samples in work_a, work_b, work_c (percent of the three)
shares() {
	"$PYTHON" "$DECODE" --folded "$1" | awk '{ n = split($1, f, ";"); c[f[n]] += $2 }
		END { t = c["work_a"] + c["work_b"] + c["work_c"]
		      for (k in c) if (k ~ /^work_[abc]$/) printf "%s %.2f %d\n", k, 100 * c[k] / t, t }'
}

# near_split SHARES SPLIT: each share within 3 standard deviations (from the sample count) of the
# split the workload measured, plus a point for the samples of the runs' edges
near_split() {
	while read -r f want; do
		awk -v f="$f" -v w="$want" '$1 == f { sd = 100 * sqrt(w / 100 * (1 - w / 100) / $3)
			d = $2 - w; if (d < 0) d = -d
			printf "%s: %s%% of %d samples, measured %s%%, tolerance %.2f\n", f, $2, $3, w, 3 * sd + 1
			found = 1; exit !(d <= 3 * sd + 1) } END { if (!found) exit 1 }' "$1" || return 1
	done <"$2"
}

test_expect_success 'a pprof per period: report --folded stacks, labels, known shares' '
	t0=$(date +%s) &&
	"$LPERF" record -q -e task-clock -g --switch-output --pprof-dir pp -- sh -c "$PERIODS" "$SCRATCH/shares" &&
	t1=$(date +%s) &&
	ls perf.data.* >data.list && ls pp >pp.list && sed "s/$/.pb.gz/" data.list | cmp - pp.list &&
	[ $(wc -l <data.list) = 3 ] &&
	i=0 && for f in $(cat data.list); do
		i=$((i + 1)) &&
		"$LPERF" report -i $f --folded >folded && sort folded >folded.report && test -s folded.report &&
		"$PYTHON" "$DECODE" --folded pp/$f.pb.gz | sort >folded.pprof &&
		cmp folded.report folded.pprof &&
		"$PYTHON" "$DECODE" pp/$f.pb.gz >dec &&
		! grep "^sample" dec | grep -v "| comm=[^,]*,service=sh,host=$HOST,pid=[0-9]*,event=task-clock |" &&
		grep "^sample" dec | sed "s/.*comm=\([^,]*\),.*pid=\([0-9]*\),.*/\1 \2/" | sort -u >pids.pprof &&
		perf script -i $f -F comm,pid 2>/dev/null | awk "{ print \$1, \$2 }" | sort -u >pids.perf &&
		cmp pids.perf pids.pprof &&
		awk -v a=$t0 -v b=$t1 "/^time_nanos/ { t = \$2 / 1e9; ok = t >= a - 1 && t <= b + 1 } END { exit !ok }" dec &&
		expect_grep "^type task-clock nanoseconds$" dec &&
		shares pp/$f.pb.gz >shares.$i && cat s$i && near_split shares.$i s$i || { cat dec | head; exit 1; }
	done
'

test_expect_success '--switch-max-files bounds the profiles as it bounds the recordings' '
	"$LPERF" record -q -e task-clock --switch-output --switch-max-files 2 --pprof-dir pp \
		--service web -- sh -c "$PERIODS" "$SCRATCH/shares" &&
	ls perf.data.* >data.list && ls pp >pp.list &&
	[ $(wc -l <data.list) = 2 ] && sed "s/$/.pb.gz/" data.list | cmp - pp.list &&
	for f in pp/*; do "$PYTHON" "$DECODE" $f >dec && expect_grep "service=web," dec || exit 1; done
'

test_expect_success '30 periods on control: the profiles stay bounded, no file descriptor is left behind' '
	mkfifo ctl ack && exec 8<>ack 9<>ctl || exit 1
	"$LPERF" record -e task-clock --control=fifo:ctl,ack --switch-output --switch-max-files 3 --pprof-dir pp \
		-- sh -c "end=\$((\$(date +%s) + 300)); while [ \$(date +%s) -lt \$end ]; do :; done" 2>err & pid=$! &&
	i=0 && while [ $i -lt 30 ]; do
		i=$((i + 1)) && echo snapshot >&9 && read -r a <&8 &&
		# the period is written once record says so (Dump): wait for that, not for a time
		n=0 && while [ $(grep -c "Dump perf.data" err) -lt $i ]; do
			n=$((n + 1)); [ $n -lt 3000 ] || { cat err; kill $pid; exit 1; }; sleep 0.02
		done &&
		# descriptors counted once the loop has answered a ping (no switch under way), and
		# leaks looked for as growth over 20 periods (one a period would be 20 more)
		if [ $i = 10 ]; then echo ping >&9 && read -r a <&8 && fd10=$(ls /proc/$pid/fd | wc -l); fi || exit 1
	done &&
	echo ping >&9 && read -r a <&8 && fd30=$(ls /proc/$pid/fd | wc -l) &&
	echo "lperf'"'"'s descriptors after 10 periods: $fd10, after 30: $fd30" &&
	# stop ends the command by SIGTERM: record exits with its status, 143, as perf 6.1 does
	echo stop >&9 && read -r a <&8 && wait $pid; rc=$?; exec 8>&- 9>&- && echo "record: exit $rc" && [ $rc = 143 ] &&
	[ "$fd30" -lt $((fd10 + 5)) ] &&
	ls perf.data.* >data.list && ls pp >pp.list && [ $(wc -l <data.list) = 3 ] &&
	sed "s/$/.pb.gz/" data.list | cmp - pp.list &&
	for f in $(cat data.list); do
		perf script -i $f >/dev/null 2>&1 && "$PYTHON" "$DECODE" pp/$f.pb.gz >/dev/null || exit 1
	done
'

test_expect_success 'without --switch-output: one profile of the whole recording, named after it' '
	"$LPERF" record -q -e task-clock -o run.data --pprof-dir pp -- "$SCRATCH/shares" 5 &&
	ls pp >list && echo run.data.pb.gz | cmp - list &&
	"$LPERF" report -i run.data --folded >folded && sort folded >folded.report && test -s folded.report &&
	"$PYTHON" "$DECODE" --folded pp/run.data.pb.gz | sort >folded.pprof && cmp folded.report folded.pprof
'

test_expect_success 'lperf diff of two periods shows the shares their profiles show' '
	"$LPERF" record -q -e task-clock --switch-output --pprof-dir pp -- sh -c "$PERIODS" "$SCRATCH/shares" &&
	set -- $(ls perf.data.* | head -2) &&
	"$LPERF" diff $1 $2 >diff.txt && cat diff.txt &&
	for f in $1 $2; do
		# each function share of the period by its events (the period column), as diff weighs them
		"$PYTHON" "$DECODE" pp/$f.pb.gz | awk -F " [|] " "/^sample/ { split(\$1, v, \" \"); all += v[3]
			n = split(\$3, fr, \";\"); p[fr[n]] += v[3] }
			END { for (k in p) if (k ~ /^work_[abc]\$/) printf \"%s %.2f\\n\", k, 100 * p[k] / all }" | sort >$f.share || exit 1
	done &&
	for w in work_a work_b work_c; do
		old=$(awk -v w=$w "\$1 == w { print \$2 }" $1.share) && new=$(awk -v w=$w "\$1 == w { print \$2 }" $2.share) &&
		awk -v w=$w -v o=$old -v n=$new "\$NF == w && \$1 ~ /%\$/ { b = \$1 + 0; d = \$2 + 0
			ok = (b - o < 0.011 && o - b < 0.011 && b + d - n < 0.021 && n - b - d < 0.021) }
			END { printf \"%s: diff %s%% %+.2f, profiles %s%% -> %s%%\n\", w, b, d, o, n; exit !ok }" diff.txt || exit 1
	done
'

test_expect_success 'bad --pprof-dir requests are usage errors naming the problem' '
	expect_exit 2 "$LPERF" record -o - --pprof-dir pp -e task-clock -- true >/dev/null 2>err &&
	expect_grep "pprof-dir needs a directory and a recording file" err &&
	: >afile && expect_exit 2 "$LPERF" record --pprof-dir afile -e task-clock -- true 2>err &&
	expect_grep "pprof-dir .afile.: not a directory" err
'

# The daemon's Python session as the documentation configures it (docs/daemon.md), for a Python
# service already running: its pid and a period of a second instead of a minute.
RUN=$(sed -n "s/^run = \(--python -p\) 1234 \(.*\)--switch-output=60s\(.*\)$/\1 PID \2--switch-output=1s\3/p" \
	"$TEST_ROOT/docs/daemon.md")
# pysamples DIR: samples with a Python work_X frame in the profiles of DIR so far
pysamples() {
	for f in "$1"/*.pb.gz; do [ -e "$f" ] && "$PYTHON" "$DECODE" --folded "$f"; done 2>/dev/null |
		awk '/work_[abc] \(/ { n += $NF } END { print n + 0 }'
}
stop_daemon() {
	pid=$("$LPERF" daemon --config "$1" -x: | head -1 | cut -d: -f1)
	"$LPERF" daemon stop --config "$1" && tail --pid="$pid" -f /dev/null
}

test_expect_success 'daemon: a Python service session from docs/daemon.md gives labelled Python profiles' '
	test -n "$RUN" && echo "run = $RUN" || exit 1
	"$PYTHON" "$TEST_ROOT/tests/workloads/py_service.py" 300 ready & py=$!
	i=0 && while [ ! -e ready ]; do i=$((i + 1)); [ $i -lt 600 ] || { kill $py; exit 1; }; sleep 0.1; done &&
	mkdir base && printf "[daemon]\nbase = %s\n\n[session-web]\nrun = %s\n" "$PWD/base" \
		"$(echo "$RUN" | sed "s/PID/$py/")" >c &&
	"$LPERF" daemon start --config c &&
	i=0 && while [ $(pysamples base/session-web/pprof) -lt 300 ]; do
		i=$((i + 1)); [ $i -lt 240 ] || { cat base/session-web/output; stop_daemon c; kill $py; exit 1; }; sleep 0.5
	done &&
	stop_daemon c && kill $py &&
	# the last period too: its profile is written once its recording is
	i=0 && for f in base/session-web/perf.data.*; do
		while [ ! -e base/session-web/pprof/${f##*/}.pb.gz ]; do
			i=$((i + 1)); [ $i -lt 600 ] || exit 1; sleep 0.1
		done
	done &&
	for f in base/session-web/pprof/*.pb.gz; do
		"$PYTHON" "$DECODE" $f >dec &&
		! grep "^sample" dec | grep -Ev "\| comm=[^,]*,service=web,host=$HOST,pid=$py,event=(cpu-clock|cycles) \|" || exit 1
	done &&
	for f in base/session-web/pprof/*.pb.gz; do "$PYTHON" "$DECODE" --folded $f; done >all.folded &&
	awk "/<module> [^;]*;serve [^;]*;work_a [^;]*;spin [^;]* [0-9]+\$/ { a += \$NF }
		/<module> [^;]*;serve [^;]*;work_c [^;]*;spin [^;]* [0-9]+\$/ { c += \$NF }
		END { printf \"work_a %d, work_c %d samples\n\", a, c; exit !(a > c && c > 0) }" all.folded
'

test_done
