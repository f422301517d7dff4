#!/bin/sh
# lperf stat -I's rows over time: about 100 ms apart at -I 100 (the mean gap within 90-140 ms),
# none early. Alone on the machine: a row woken late makes its gap longer. The rest of stat end to
# end is t10-stat.sh's, beside other scripts.
# e2e-class: exclusive
. "$(dirname "$0")/lib.sh"
FAULTS="$HELPERS/faults"

test_expect_success 'interval printing with -I gives rows over time' '
	lperf stat -I 100 -e task-clock -- "$FAULTS" 10 450 2>out &&
	rows=$(grep -c "task-clock" out) && echo "$rows rows" && [ "$rows" -ge 4 ] &&
	# The full intervals are about 100 ms apart (the last row is the partial tail). Rows are due
	# at fixed times from the start, so one row woken late on a loaded machine makes one gap
	# longer and the next shorter: the mean gap is checked, and that no row comes early.
	grep task-clock out | sed \$d | awk "{ if (\$1 < 0.1 * ++n - 0.01) { print \"row\", n, \"early:\", \$1; bad = 1 } t[n] = \$1 }
		END { g = (t[n] - t[1]) / (n - 1); print \"mean gap\", g; exit bad || g < 0.09 || g > 0.14 }"
'

test_done
