#!/bin/sh
# Arm's per-CPU PMU data for `wperf man` (sysinfo/armdata.c): the JSON files Arm publishes and
# Linux carries under tools/perf/pmu-events/arch/arm64 (common and recommended events, each
# Neoverse core's events with their descriptions, the Telemetry Solution metrics), taken from a
# Debian linux-source package into a cache.
#   scripts/arm-data.sh [DIR]    (default build/arm-data; lperf reads it from there, or from
#                                 $LPERF_ARM_DATA)
# The source is the newest linux-source-N.M of Debian trixie-backports (Linux 6.13 and later
# carry Neoverse N3 and V3 and the Armv9 events of the 2024 data), fetched with a private apt
# configuration under build/apt-arm-data so that no suite is added to the host's sources (as
# scripts/arm64-python.sh does); without the network, the installed linux-source-6.12 of
# bookworm (scripts/install-deps.sh installs it). Only that subtree is extracted; the package is
# not kept. Idempotent: an existing cache is kept (ARM_DATA_REFRESH=1, or removing DIR, makes
# it anew); a cache made from linux-source-6.12 is remade when trixie-backports is reachable.
# Without any source it says so and exits 0 (lperf then says the data is missing when asked).
set -e
cd "$(dirname "$0")/.."
DIR=${1:-build/arm-data}
# One at a time (make all and make asan may run it together): the others wait, then find it done.
mkdir -p "$(dirname "$DIR")"
[ -n "${ARM_DATA_LOCKED:-}" ] || ARM_DATA_LOCKED=1 exec flock "$DIR.lock" "$0" "$@"
APT=build/apt-arm-data
SUB=tools/perf/pmu-events/arch/arm64
[ "${ARM_DATA_REFRESH:-0}" = 1 ] && rm -f "$DIR/.stamp"
stamp=$(cat "$DIR/.stamp" 2>/dev/null || true)
case $stamp in
"debian trixie-backports "*) exit 0 ;;
"debian bookworm "*) [ -f "$APT/.tried" ] && exit 0 ;; # the newer source was tried, offline
esac

tmp="$DIR.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
extract() { # extract TARBALL NAME STAMP
	echo "arm-data: extracting Arm's PMU data from $2 into $DIR" >&2
	tar -xJf "$1" -C "$tmp" --strip-components=6 "$2/$SUB"
	echo "$3" >"$tmp/.stamp"
	rm -rf "$DIR"
	mv "$tmp" "$DIR"
}

# The newest linux-source of trixie-backports, through a private apt configuration.
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
touch "$APT/.tried"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main" >"$APT/sources.list"
set -- -o Dir::Etc::sourcelist="$PWD/$APT/sources.list" -o Dir::Etc::sourceparts=/nonexistent \
	-o Dir::State::Lists="$PWD/$APT/lists" -o Dir::Cache="$PWD/$APT/cache"
pkg=""
if timeout 300 apt-get "$@" update -qq >/dev/null 2>&1; then
	pkg=$(apt-cache "$@" search --names-only '^linux-source-[0-9]+\.[0-9]+$' 2>/dev/null |
		sed -n 's/^\(linux-source-[0-9][0-9.]*\) .*/\1/p' | sort -V | tail -n 1)
fi
if [ -n "$pkg" ]; then
	deb="$tmp/deb"
	mkdir -p "$deb"
	if (cd "$deb" && timeout 600 apt-get "$@" download -qq "$pkg" >/dev/null 2>&1); then
		ver=$(dpkg-deb -f "$deb"/*.deb Version)
		dpkg-deb --fsys-tarfile "$deb"/*.deb | tar -x -C "$deb" "./usr/src/$pkg.tar.xz"
		rm -f "$deb"/*.deb
		mv "$deb/usr/src/$pkg.tar.xz" "$tmp.tar.xz"
		rm -rf "$deb"
		trap 'rm -rf "$tmp" "$tmp.tar.xz"' EXIT
		extract "$tmp.tar.xz" "$pkg" "debian trixie-backports $pkg $ver"
		exit 0
	fi
fi
echo "arm-data: Debian trixie-backports' linux-source is out of reach; using bookworm's linux-source-6.12" >&2
[ "$stamp" = "" ] || exit 0 # keep the cache there is
TAR=/usr/src/linux-source-6.12.tar.xz
if [ ! -f "$TAR" ]; then
	echo "arm-data: $TAR is missing (Debian's linux-source-6.12; scripts/install-deps.sh installs it): wperf man has no Arm data" >&2
	exit 0
fi
extract "$TAR" linux-source-6.12 "debian bookworm linux-source-6.12 $(stat -c '%s %Y' "$TAR")"
