#!/bin/sh
# record --switch-output soak (issue 26): a day of one-minute periods is 1,440 switches; here
# (LPERF_SOAK_PERIODS, 480 by default: a switch costs about 0.1 s here, the kernel and the
# processes described again, so 1,440 take near 3 minutes) they are time-compressed, driven on --control's FIFO as fast as its answers allow (each "snapshot" is
# followed by a "ping": record reads the ping only after the switch it asked for is done, so the
# ping's ack says the period's file is complete and renamed). Along the way record's memory,
# descriptors and files stay bounded, and every period's file is read back before
# --switch-max-files removes it.
# e2e-class: parallel (memory, descriptors and files against the first checkpoint of the same run, switches driven by acks; passed 3 times in both builds beside a busy loop at loads of 10-30)
. "$(dirname "$0")/lib.sh"
N=${LPERF_SOAK_PERIODS:-480} K=40 B=20
# Under ASan each switch and each read-back is several times slower: 160 periods there, which
# still cross the checkpoints below (N/4, N/2, N) with K files kept. ASan's quarantine holds freed memory (its RSS
# grows with every free until the quarantine is full): a small one, so that RSS means use.
if ldd "$LPERF" 2>/dev/null | grep -q libasan; then
	N=${LPERF_SOAK_PERIODS:-160}
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
	export ASAN_OPTIONS
fi
# A light workload: a short busy burst, then a sleep, so that periods have a few samples.
LIGHT='while :; do i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done; sleep 0.01; done'

# rss PID / fds PID: the recorder's resident KiB and open descriptors (taken after a ping, when no
# switch is under way)
rss() { awk '/^VmRSS:/ { print $2 }' /proc/$1/status; }
fds() { ls /proc/$1/fd | wc -l; }
# check_new: every rotated file not read yet is read by lperf script (a period without samples is
# still a whole recording it reads); its name and size go to checked
check_new() {
	rotated >now
	sort checked | comm -13 - now >new
	while read -r f; do
		"$LPERF" script -i "$f" >/dev/null 2>serr || { echo "lperf script cannot read $f"; cat serr; return 1; }
		echo "$f $(stat -c %s "$f")" >>sizes && echo "$f" >>checked || return 1
	done <new
}
# rotated: the rotated files, oldest first; smallest: the smallest one's size
rotated() { ls | grep "^perf\.data\.[0-9]\{16\}$" | sort; }
smallest() { stat -c %s $(rotated) | sort -n | head -1; }

test_expect_success "$N switches: memory, descriptors and files bounded, every period readable" '
	mkfifo ctl ack && exec 8<>ack 9<>ctl && : >checked && : >sizes || exit 1
	t0=$(date +%s)
	"$LPERF" record -e cpu-clock --control=fifo:ctl,ack --switch-output --switch-max-files $K \
		-- sh -c "$LIGHT" 2>err & pid=$!
	# should record end early, "gone" on the ack FIFO ends any wait for an answer
	(tail --pid=$pid -f /dev/null; echo gone >ack) & watch=$!
	# cmd CMD: CMD on the control FIFO, answered ack
	cmd() { echo "$1" >&9 && read -r a <&8 && [ "$a" = ack ] || { echo "$1: $a"; cat err; return 1; }; }
	cmd ping && i=0 && while [ $i -lt $N ]; do
		i=$((i + 1)) && cmd snapshot && cmd ping || exit 1
		if [ $((i % B)) = 0 ] || [ $i = $N ]; then check_new || exit 1; fi
		case $i in $((N / 4))|$((N / 2))|$N)
			r=$(rss $pid) && d=$(fds $pid) && n=$(rotated | wc -l) && s=$(smallest) &&
			b=$(cat $(rotated) | wc -c) && c=$(wc -l <checked) &&
			echo "period $i: VmRSS $r KiB, $d descriptors, $n files of $b bytes (smallest $s), $c read" &&
			echo "$i $r $d $n $s" >>points &&
			# perf 6.1 reads them too (the newest, one in the middle)
			perf script -i $(rotated | tail -1) >/dev/null 2>perr &&
			perf script -i $(rotated | sed -n "$((K / 2))p") >/dev/null 2>>perr || { cat perr; exit 1; }
		esac
	done &&
	# stop ends the command by SIGTERM: record exits with its status, 143, as perf 6.1 does
	cmd stop && { wait $pid; rc=$?; kill $watch 2>/dev/null; exec 8>&- 9>&-; } &&
	t1=$(date +%s) && echo "record: exit $rc" && [ $rc = 143 ] &&
	check_new && c=$(wc -l <checked) && echo "$c files read back, in $((t1 - t0)) s" &&
	# the N periods and the last one, renamed at the end: each read once, none removed unread
	[ "$c" = $((N + 1)) ] && [ $(rotated | wc -l) = $K ] && [ ! -e perf.data ] &&
	[ $(grep -c "Dump perf.data" err) = $((N + 1)) ] &&
	# bounded against the first checkpoint: 8 MiB of resident memory is 23 KiB a period over the
	# 360 periods after it at N=480, 7.6 KiB at 1,440 (the buffers or the description of a file kept
	# per period would exceed it; the measured growth is 0); no
	# descriptor more; exactly K files; the smallest file (a period of few samples: its header and
	# the kernel and processes described) at most 32 KiB larger (about 800 samples: 0.2 s of the
	# workload running in a period between two pings), where a description that accumulated per
	# period would add hundreds of bytes a period
	awk -v k=$K "NR == 1 { r = \$2; d = \$3; s = \$5 }
		{ ok = \$2 <= r + 8192 && \$3 <= d && \$4 == k && \$5 <= s + 32768
		  printf \"period %d: VmRSS %+d KiB, descriptors %+d, smallest file %+d bytes: %s\n\",
			\$1, \$2 - r, \$3 - d, \$5 - s, ok ? \"bounded\" : \"NOT BOUNDED\"
		  if (!ok) bad = 1 }
		END { exit bad || NR != 3 }" points
'

test_done
