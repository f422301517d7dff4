#!/bin/sh
# Builds the guest's CPython 3.13 for arm64 (scripts/arm64-vm.sh --python): a cpio archive that
# is appended to the guest image, made from Debian trixie's arm64 packages (the next release,
# the first with 3.13), fetched with a private apt configuration under build/arm64/trixie so
# that trixie is never added to the host's sources, and unpacked with dpkg -x. It carries
# trixie's C runtime too (3.13 needs glibc 2.38+), placed over the base image's; lperf and the
# test programs, built against bookworm's glibc 2.36, run on it unchanged.
#   scripts/arm64-python.sh OUT.cpio
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTF=$1
[ -f "$OUTF" ] && [ "$OUTF" -nt "$0" ] && exit 0
D="$ROOT/build/arm64/trixie"
mkdir -p "$D/lists/partial" "$D/cache/archives/partial"
echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$D/sources.list"
set -- -o Dir::Etc::sourcelist="$D/sources.list" -o Dir::Etc::sourceparts=/nonexistent \
	-o Dir::State::Lists="$D/lists" -o Dir::Cache="$D/cache"
[ -f "$D/lists/.updated" ] || { apt-get "$@" update -qq && touch "$D/lists/.updated"; }
PKGS="python3.13-minimal libpython3.13-minimal libpython3.13-stdlib libc6 libgcc-s1 libexpat1 zlib1g"
debs="$D/debs"
rm -rf "$debs" && mkdir -p "$debs"
pk=""
for p in $PKGS; do pk="$pk $p:arm64"; done
# shellcheck disable=SC2086
(cd "$debs" && apt-get "$@" download -qq $pk 2>/dev/null)
r="$D/root"
rm -rf "$r" "$D/x" && mkdir -p "$r/lib/aarch64-linux-gnu" "$D/x"
for f in "$debs"/*.deb; do dpkg -x "$f" "$D/x"; done
# The C runtime goes where the base image's is (/lib/aarch64-linux-gnu, searched first, and
# /lib/ld-linux-aarch64.so.1 pointing into it), so that the loader and libc always match.
cp -a "$D"/x/usr/lib/aarch64-linux-gnu/*.so* "$r/lib/aarch64-linux-gnu/"
mkdir -p "$r/usr/bin" "$r/usr/lib"
cp -a "$D/x/usr/bin/python3.13" "$r/usr/bin/"
ln -s python3.13 "$r/usr/bin/python3"
cp -a "$D/x/usr/lib/python3.13" "$r/usr/lib/"
# What a profiling guest does not need: tests, GUI, installers, bytecode caches.
(cd "$r/usr/lib/python3.13" && rm -rf test idlelib tkinter turtledemo ensurepip pydoc_data lib2to3 \
	config-3.13-aarch64-linux-gnu && find . -name __pycache__ -type d -exec rm -rf {} +)
(cd "$r" && find . | cpio -o -H newc --quiet) >"$OUTF.tmp"
mv "$OUTF.tmp" "$OUTF"
rm -rf "$r" "$D/x" "$debs"
