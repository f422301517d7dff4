#!/bin/sh
# Arm's per-CPU PMU data for `wperf man` (events/armdata.c): the JSON files Arm publishes and
# Linux carries under tools/perf/pmu-events/arch/arm64 (common and recommended events, each
# Neoverse core's events with their descriptions, the Telemetry Solution metrics), taken from
# Debian's linux-source-6.12 package (scripts/install-deps.sh installs it) into a cache.
#   scripts/arm-data.sh [DIR]    (default build/arm-data; lperf reads it from there, or from
#                                 $LPERF_ARM_DATA)
# Only that subtree is extracted. Idempotent: a cache whose stamp names the same tarball is kept.
# Without the package it says so and exits 0 (lperf then says the data is missing when asked).
set -e
cd "$(dirname "$0")/.."
DIR=${1:-build/arm-data}
TAR=/usr/src/linux-source-6.12.tar.xz
SUB=linux-source-6.12/tools/perf/pmu-events/arch/arm64
if [ ! -f "$TAR" ]; then
	echo "arm-data: $TAR is missing (Debian's linux-source-6.12; scripts/install-deps.sh installs it): wperf man has no Arm data" >&2
	exit 0
fi
stamp="$(stat -c '%s %Y' "$TAR") $TAR"
if [ -f "$DIR/.stamp" ] && [ "$(cat "$DIR/.stamp")" = "$stamp" ]; then
	exit 0
fi
tmp="$DIR.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "arm-data: extracting Arm's PMU data from $TAR into $DIR" >&2
tar -xJf "$TAR" -C "$tmp" --strip-components=6 "$SUB"
echo "$stamp" >"$tmp/.stamp"
rm -rf "$DIR"
mv "$tmp" "$DIR"
trap - EXIT
