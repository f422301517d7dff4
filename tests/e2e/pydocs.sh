# The CPython documentation's example (tests/workloads/perf_docs.py: foo <- bar <- baz <- <module>)
# as a known answer, sourced by the scripts that record it after lib.sh (t64-python-noflag.sh,
# t64-python-attach.sh).
W="$TEST_ROOT/tests/workloads/perf_docs.py"
# complete FOLDED: of the samples whose innermost py:: frame is foo (at least 50), at least 95%
# have bar, baz, <module> as the next py:: frames outwards and native frames outside them.
complete() {
	awk '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, fr, ";"); np = 0; first = 0
		for (i = 1; i <= k; i++)
			if (fr[i] ~ /^py::/) {
				if (!first) first = i
				name = substr(fr[i], 5); sub(/:.*/, "", name); py[++np] = name
			}
		if (np == 0 || py[np] != "foo") next
		all += n
		# fr[1] is the command; native frames (main, Py_RunMain...) come before <module>
		if (np == 4 && py[3] == "bar" && py[2] == "baz" && py[1] == "<module>" && first > 3) ok += n
	} END {
		printf "%d of %d samples in foo have complete Python stacks\n", ok, all
		exit !(all >= 50 && ok >= 0.95 * all)
	}' "$1"
}
