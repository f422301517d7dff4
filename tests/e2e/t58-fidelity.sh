#!/bin/sh
# Agreement with Linux perf 6.1 on the rows of the fidelity audit (issue 10): C++ names (t57),
# map-relative unresolved addresses in non-PIE binaries, alias choice (ELF: first of equals in
# symbol-table order, so libc's @GLIBC_2.2.5 over @@GLIBC_2.34; kallsyms: the last listed), call
# chains holding a 0xffffffffffffffff entry, kernel .init.text addresses in chains (named: the
# kernel map reaches past _etext), call-chain addresses printed map-relative, and no note for a JIT process without a perf map
# unless -v.
# e2e-class: parallel (rows of the same recordings compared with perf; passed 3 times in both builds beside 2 other scripts at loads of 12-19)
. "$(dirname "$0")/lib.sh"
W="$TEST_ROOT/tests/workloads"
BIN="$SCRATCH/bin"
mkdir -p "$BIN"
cc -O1 -fno-omit-frame-pointer -o "$BIN/rwlock" "$W/rwlock.c" -lpthread &&
cc -O1 -no-pie -fno-pie -o "$BIN/nopie" "$W/shares.c" && strip -s "$BIN/nopie" || { echo "cannot build workloads"; exit 1; }

# "count dso sym" rows of report --sort dso,sym -n, without PLT slots perf names differently
# (perf: _init or @plt where lperf names name@plt; docs/annotate.md).
rows() { awk '$1 ~ /%$/ { $1 = ""; print }' "$1" | grep -v "@plt\|\] _init\$" | sort; }

if ! command -v perf >/dev/null; then
	test_skip "fidelity with perf" "no perf"
	test_done
	exit
fi

test_expect_success 'aliases at one address: libc versioned names as perf' '
	perf record -q -g -F 2000 -e cpu-clock -o "$SCRATCH/rw.data" -- "$BIN/rwlock" 1 2>/dev/null &&
	perf report -i "$SCRATCH/rw.data" --stdio -n --no-children --sort dso,sym -g none >p.txt 2>/dev/null &&
	lperf report -i "$SCRATCH/rw.data" --stdio -n --no-children --sort dso,sym -g none >l.txt &&
	rows p.txt >a && rows l.txt >b && diff a b &&
	expect_grep "pthread_rwlock_rdlock@GLIBC_2.2.5" l.txt
'

test_expect_success 'kernel aliases: the last kallsyms name, as perf' '
	perf record -q -F 4000 -e cpu-clock -o k.data -- dd if=/dev/zero of=/dev/null bs=64k count=40000 2>/dev/null &&
	perf report -i k.data --stdio -n --no-children --sort dso,sym >p.txt 2>/dev/null &&
	lperf report -i k.data --stdio -n --no-children --sort dso,sym >l.txt &&
	rows p.txt >a && rows l.txt >b && diff a b
'

test_expect_success 'non-PIE stripped binary: unresolved addresses map-relative, as perf' '
	perf record -q -F 2000 -e cpu-clock -o np.data -- "$BIN/nopie" 3 2>/dev/null &&
	perf report -i np.data --stdio -n --no-children --sort dso,sym >p.txt 2>/dev/null &&
	lperf report -i np.data --stdio -n --no-children --sort dso,sym >l.txt &&
	rows p.txt >a && rows l.txt >b && diff a b &&
	grep "nopie .*\[\.\] 0x0000000000001" l.txt
'

test_expect_success 'a chain entry 0xffffffffffffffff: an empty chain in script, as perf' '
	n=$("$PYTHON" "$TEST_ROOT/tests/e2e/patch_chain.py" "$SCRATCH/rw.data" m.data 5 minus1) && test "$n" -gt 0 &&
	perf script -i m.data 2>/dev/null | sed "s/^\t *[0-9a-f]* /\t/; s/+0x[0-9a-f]*//" | grep -v "@plt\|_init" >a &&
	lperf script -i m.data | sed "s/^\t *[0-9a-f]* /\t/; s/+0x[0-9a-f]*//" | grep -v "@plt\|_init" >b &&
	diff a b &&
	perf report -i m.data --stdio -n --no-children --sort dso,sym -g none >p.txt 2>/dev/null &&
	lperf report -i m.data --stdio -n --no-children --sort dso,sym -g none >l.txt &&
	rows p.txt >a && rows l.txt >b && diff a b
'

test_expect_success 'a kernel .init.text address (start_kernel) in a chain: named as perf names it' '
	sk=$(awk "\$3 == \"start_kernel\" { print \$1; exit }" /proc/kallsyms) && test -n "$sk" &&
	perf record -q -g -F 4000 -e cpu-clock -o kk.data -- dd if=/dev/zero of=/dev/null bs=4k count=100000 2>/dev/null &&
	n=$("$PYTHON" "$TEST_ROOT/tests/e2e/patch_chain.py" kk.data k2.data 3 kaddr "$(printf %x $((0x$sk + 16)))") &&
	test "$n" -gt 0 &&
	# PLT slots perf leaves unnamed ("@plt+0x0") are NAME@plt in lperf (docs/annotate.md): dd hits
	# libc'"'"'s __tunable_get_val@plt now and then
	perf script -i k2.data 2>/dev/null | sed "s/ [^ ]*@plt+/ @plt+/" >a &&
	lperf script -i k2.data | sed "s/ [^ ]*@plt+/ @plt+/" >b && test -s b && diff a b
'

# perf names PLT entries by their order in .rela.plt, which libc does not keep (lperf follows
# each entry's GOT slot: docs/annotate.md), and a non-PIE PLT's first entries _init+OFF; the
# samples compared are the idle CPUs' and the program's (other processes on the machine may map
# memfd JIT code, which lperf reads as possible JIT code). Only the boot CPU's idle task runs
# through start_kernel: the test above checks .init.text names deterministically.
# A sample inside execve after the new comm has the old image's user IP, which perf names from the
# old maps and lperf, having emptied them at the exec, prints [unknown] (docs/report.md): such
# samples (execve in their kernel part) are left out of both.
samples_of() { awk -v RS= -v ORS="\n\n" "(\$1 == \"swapper\" || \$1 == \"rwlock\") && !/execve/" | grep -v "@plt\|_init+"; }
test_expect_success '-a -g stacks (idle CPUs and a busy program): script prints what perf prints, map-relative addresses included' '
	perf record -q -a -g -F 1000 -e cpu-clock -o idle.data -- "$BIN/rwlock" 1 2>/dev/null &&
	perf script -i idle.data 2>/dev/null | samples_of >a &&
	lperf script -i idle.data | samples_of >b &&
	diff a b && expect_grep "^\s+[0-9a-f]{1,8} .*(libc.so|/rwlock)" b
'

if command -v node >/dev/null; then
test_expect_success 'a JIT process that wrote no perf map: no note unless -v (perf says nothing)' '
	perf record -q -F 999 -e cpu-clock -o n.data -- node -e "let s = 0; for (let i = 0; i < 3e7; i++) s += i % 7;" 2>/dev/null &&
	perf report -i n.data --stdio >/dev/null 2>perr &&
	lperf report -i n.data --stdio >/dev/null 2>err &&
	expect_no_grep "no perf map" err &&
	lperf report -v -i n.data --stdio >/dev/null 2>verr &&
	expect_grep "no perf map" verr &&
	lperf script -i n.data >/dev/null 2>serr && expect_no_grep "no perf map" serr
'
fi

test_done
