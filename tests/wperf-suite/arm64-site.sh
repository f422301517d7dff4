#!/bin/sh
# The pytest and jsonschema packages the emulated Arm machine's CPython 3.13 runs WindowsPerf's
# suite with: Debian trixie's arm64 packages (the release whose Python is the guest's), fetched
# through scripts/arm64-python.sh's private apt configuration (build/arm64/trixie; trixie is never
# added to the host's sources) and unpacked with dpkg -x into DIR (their dist-packages).
#   tests/wperf-suite/arm64-site.sh DIR
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTD=$1
[ -f "$OUTD/.done" ] && exit 0
D="$ROOT/build/arm64/trixie"
[ -f "$D/sources.list" ] || { echo "arm64-site: run scripts/arm64-python.sh first" >&2; exit 1; }
set -- -o Dir::Etc::sourcelist="$D/sources.list" -o Dir::Etc::sourceparts=/nonexistent \
	-o Dir::State::Lists="$D/lists" -o Dir::Cache="$D/cache"
[ -f "$D/lists/.updated" ] || { apt-get "$@" update -qq && touch "$D/lists/.updated"; }
# Architecture-independent packages by name, the one with a compiled module (rpds) for arm64.
PKGS="python3-pytest python3-pluggy python3-iniconfig python3-packaging python3-pytest-timeout
python3-jsonschema python3-attr python3-referencing python3-jsonschema-specifications
python3-typing-extensions python3-rpds-py:arm64"
debs="$D/site-debs"
rm -rf "$debs" && mkdir -p "$debs"
# shellcheck disable=SC2086
(cd "$debs" && apt-get "$@" download -qq $PKGS)
rm -rf "$OUTD" "$D/sx" && mkdir -p "$OUTD" "$D/sx"
for f in "$debs"/*.deb; do dpkg -x "$f" "$D/sx"; done
cp -a "$D"/sx/usr/lib/python3/dist-packages/. "$OUTD/"
find "$OUTD" -name __pycache__ -type d -exec rm -rf {} +
rm -rf "$debs" "$D/sx"
touch "$OUTD/.done"
