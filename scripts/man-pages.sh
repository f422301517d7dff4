#!/bin/sh
# Writes lperf's manual pages into DIR: lperf(1) and lperf-COMMAND(1) for every command the
# binary lists. The binary writes each page from the option table its parser uses
# ('lperf help --man COMMAND'), so the pages cannot drift from the options (docs/man.md).
#   scripts/man-pages.sh BUILD/lperf DIR
set -eu
bin=$1 dir=$2
mkdir -p "$dir"
rm -f "$dir"/lperf*.1
"$bin" help --man help >"$dir/lperf.1"
for c in $("$bin" help --commands); do
	[ "$c" = help ] && continue
	"$bin" help --man "$c" >"$dir/lperf-$c.1.tmp"
	mv "$dir/lperf-$c.1.tmp" "$dir/lperf-$c.1"
done
