#!/bin/sh
# Builds an arm64 sysroot for the cross build (make ARCH=arm64) from Debian's arm64 packages:
# each package is fetched with `apt-get download` and unpacked with `dpkg -x`, so the host's
# installed set is left alone (only the arm64 architecture is added to dpkg, for downloading).
#   scripts/arm64-sysroot.sh [DIR]      (default build/arm64/sysroot)
# Idempotent: a sysroot whose stamp names the same package list is kept as it is.
set -e
cd "$(dirname "$0")/.."
SYSROOT=${1:-build/arm64/sysroot}
# -dev packages for the build, their runtime libraries for the guest (scripts/arm64-vm.sh), and
# the C runtime (libc6) the guest's dynamically linked programs need.
PKGS="libelf-dev libdw-dev libcapstone-dev libpfm4-dev zlib1g-dev libiberty-dev libcmocka-dev
libelf1 libdw1 libcapstone4 libpfm4 zlib1g libcmocka0 libzstd1 liblzma5 libbz2-1.0 libc6
libgcc-s1 libzstd-dev libdeflate-dev libdeflate0 liblzma-dev libbz2-dev libtraceevent-dev libtraceevent1 libjson-c-dev libjson-c5
libncurses-dev libncursesw6 libncurses6 libtinfo6"
want=$(echo $PKGS)
if [ -f "$SYSROOT/.stamp" ] && [ "$(cat "$SYSROOT/.stamp")" = "$want" ]; then
	exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	echo "arm64-sysroot: adding the arm64 architecture to dpkg (downloads only)"
	$SUDO dpkg --add-architecture arm64
	$SUDO apt-get update -qq
fi
debs="$SYSROOT.debs"
mkdir -p "$debs"
pkgs=""
for p in $PKGS; do pkgs="$pkgs $p:arm64"; done
if ! (cd "$debs" && apt-get download -qq $pkgs >/dev/null 2>&1); then
	# The lists may predate the arm64 architecture or a point release.
	$SUDO apt-get update -qq
	(cd "$debs" && apt-get download -qq $pkgs >/dev/null)
fi
rm -rf "$SYSROOT"
mkdir -p "$SYSROOT"
for d in "$debs"/*.deb; do
	dpkg -x "$d" "$SYSROOT"
done
# Absolute symlinks (libfoo.so -> /lib/...) must point inside the sysroot.
find "$SYSROOT" -type l | while read -r l; do
	t=$(readlink "$l")
	case "$t" in /*) ln -sf "$(realpath -m --relative-to="$(dirname "$l")" "$SYSROOT$t")" "$l" ;; esac
done
rm -rf "$debs"
echo "$want" >"$SYSROOT/.stamp"
echo "arm64-sysroot: $SYSROOT ready"
