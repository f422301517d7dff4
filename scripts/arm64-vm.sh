#!/bin/sh
# Runs one command in an emulated Arm64 machine with a real (emulated) PMU:
#   scripts/arm64-vm.sh [--add FILE]... [--python] -- COMMAND [ARGS...]
# Builds what is missing (build/arm64/lperf, the kernel, the guest image), boots
# qemu-system-aarch64 -M virt -cpu max (PMUv3, armv8_pmuv3, 7 counters) with -icount shift=0 so
# that instruction counts are deterministic, mounts proc, sys, tracefs and debugfs, copies each
# --add FILE (or directory) into the guest's working directory /work, runs COMMAND there as root
# with lperf on PATH, prints its output (stdout and stderr together, from the serial console)
# and exits with COMMAND's status. --python adds CPython 3.13 for arm64 (scripts/arm64-python.sh).
# Caches live in build/arm64/vm (git-ignored). See docs/arm64.md.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/arm64"
VM="$OUT/vm"
SYSROOT="$OUT/sysroot"
: "${ARM64_VM_TIMEOUT:=600}"
: "${ARM64_VM_MEM:=512}"

adds="" python=0
while [ $# -gt 0 ]; do
	case "$1" in
	--add) [ $# -ge 2 ] || { echo "arm64-vm: --add needs a file" >&2; exit 2; }
	       [ -e "$2" ] || { echo "arm64-vm: no such file: $2" >&2; exit 2; }
	       adds="$adds
$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
	--python) python=1; shift ;;
	--) shift; break ;;
	*) echo "usage: scripts/arm64-vm.sh [--add FILE]... [--python] -- COMMAND [ARGS...]" >&2; exit 2 ;;
	esac
done
[ $# -gt 0 ] || { echo "arm64-vm: no command given" >&2; exit 2; }

for t in qemu-system-aarch64 aarch64-linux-gnu-gcc cpio; do
	command -v "$t" >/dev/null || { echo "arm64-vm: $t is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }
done

mkdir -p "$VM"
# lperf for aarch64 (make's own dependency tracking decides whether anything is rebuilt).
make -C "$ROOT" --no-print-directory -s ARCH=arm64 -j"$(nproc)" build/arm64/lperf >&2

# The kernel: Debian's linux-image-arm64, unpacked (its Image is built with the PMU driver, PL011
# console, tracefs and debugfs in, so the guest needs no modules).
fetch_deb() { # fetch_deb PKG DIR: download PKG:arm64 and unpack it into DIR
	tmp=$(mktemp -d "$VM/deb.XXXXXX")
	(cd "$tmp" && apt-get download -qq "$1:arm64" 2>/dev/null) ||
		{ apt-get update -qq && (cd "$tmp" && apt-get download -qq "$1:arm64"); }
	dpkg -x "$tmp"/*.deb "$2"
	rm -rf "$tmp"
}
if [ ! -f "$VM/Image" ]; then
	"$ROOT/scripts/arm64-sysroot.sh" "$SYSROOT" >&2
	kpkg=$(apt-cache depends linux-image-arm64:arm64 | sed -n 's/.*Depends: \(linux-image-[0-9].*-arm64\).*/\1/p' | head -n1)
	[ -n "$kpkg" ] || { echo "arm64-vm: cannot find the package linux-image-arm64 depends on" >&2; exit 1; }
	echo "arm64-vm: fetching $kpkg" >&2
	rm -rf "$VM/kernel" && mkdir -p "$VM/kernel"
	fetch_deb "$kpkg" "$VM/kernel"
	cp "$VM"/kernel/boot/vmlinuz-* "$VM/Image.tmp" && mv "$VM/Image.tmp" "$VM/Image"
	rm -rf "$VM/kernel"
fi
if [ ! -x "$VM/busybox" ]; then
	rm -rf "$VM/bb" && mkdir -p "$VM/bb"
	fetch_deb busybox-static "$VM/bb"
	cp "$VM/bb/bin/busybox" "$VM/busybox"
	rm -rf "$VM/bb"
fi

# The base image: busybox, the C runtime and lperf's libraries from the sysroot, lperf, /init.
# Rebuilt when lperf, the sysroot or this script is newer than it.
base="$VM/base.cpio"
if [ ! -f "$base" ] || [ "$OUT/lperf" -nt "$base" ] || [ "$0" -nt "$base" ] || [ "$SYSROOT/.stamp" -nt "$base" ]; then
	r="$VM/root"
	rm -rf "$r" && mkdir -p "$r/bin" "$r/sbin" "$r/usr/bin" "$r/usr/sbin" "$r/usr/local/bin" \
		"$r/lib" "$r/usr/lib/aarch64-linux-gnu" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/work" "$r/root" "$r/etc"
	cp "$VM/busybox" "$r/bin/busybox"
	cp -a "$SYSROOT/lib/." "$r/lib/"
	find "$SYSROOT/usr/lib/aarch64-linux-gnu" -maxdepth 1 -name '*.so*' -exec cp -a {} "$r/usr/lib/aarch64-linux-gnu/" \;
	cp "$OUT/lperf" "$r/usr/local/bin/lperf"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$r/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
	cat >"$r/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tmpfs tmpfs /tmp
# The loopback interface, up as on any machine (-net none gives no other): 127.0.0.1 answers.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
# Debian's kernels default to 3 (no perf at all unprivileged); 2 is upstream's and the host's.
echo 2 >/proc/sys/kernel/perf_event_paranoid
export PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root TERM=dumb LANG=C.UTF-8
[ -d /opt/python/bin ] && export PATH=$PATH:/opt/python/bin
cd /work
echo "@@LPERF-VM-BEGIN@@"
sh /work/.vmcmd </dev/null
rc=$?
echo "@@LPERF-VM-EXIT=$rc@@"
sync
poweroff -f
INIT
	chmod 755 "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet) >"$base.tmp"
	mv "$base.tmp" "$base"
	rm -rf "$r"
fi
initrd_parts="$base"
if [ "$python" = 1 ]; then
	"$ROOT/scripts/arm64-python.sh" "$VM/python.cpio" >&2
	initrd_parts="$initrd_parts $VM/python.cpio"
fi

# The run's own archive: the added files and the command, appended to the base image (the kernel
# unpacks concatenated cpio archives in order).
run=$(mktemp -d "$VM/run.XXXXXX")
trap 'rm -rf "$run"' EXIT INT TERM
mkdir -p "$run/root/work"
echo "$adds" | while IFS= read -r f; do
	if [ -n "$f" ]; then cp -a "$f" "$run/root/work/"; fi
done
quote() { printf "'%s' " "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
	for a in "$@"; do quote "$a"; done
	echo
} >"$run/root/work/.vmcmd"
(cd "$run/root" && find . | cpio -o -H newc --quiet) >"$run/run.cpio"
cat $initrd_parts "$run/run.cpio" >"$run/initrd"

# -icount shift=0: one instruction per virtual nanosecond, so counts do not depend on the host.
# pauth-impdef=on keeps pointer authentication but with QEMU's cheap hash instead of QARMA, which
# makes booting Debian's kernel (built with PAC) three times faster.
set +e
timeout "$ARM64_VM_TIMEOUT" qemu-system-aarch64 -M virt -cpu "${ARM64_VM_CPU:-max,pauth-impdef=on}" -smp 2 -m "$ARM64_VM_MEM" \
	-nographic -net none -icount shift=0 -no-reboot \
	-kernel "$VM/Image" -initrd "$run/initrd" \
	-append "console=ttyAMA0 quiet loglevel=1 panic=-1 rdinit=/init" </dev/null >"$run/console" 2>&1
qrc=$?
set -e
tr -d '\r' <"$run/console" | awk '
	/^@@LPERF-VM-EXIT=[0-9]+@@/ { done = 1; exit }
	on { print }
	/@@LPERF-VM-BEGIN@@/ { on = 1 }'
rc=$(tr -d '\r' <"$run/console" | sed -n 's/^@@LPERF-VM-EXIT=\([0-9]*\)@@.*/\1/p' | tail -n1)
if [ -z "$rc" ]; then
	echo "arm64-vm: the guest did not finish (qemu status $qrc); its console:" >&2
	tr -d '\r' <"$run/console" | tail -n 30 >&2
	exit 125
fi
exit "$rc"
