#!/bin/sh
# Installs, with apt-get, whatever lperf needs to build and test that is missing.
# Idempotent: when everything is present it only checks and exits.
set -e
PKGS="gcc make pkg-config libelf-dev libdw-dev libpfm4-dev libcapstone-dev zlib1g-dev
libcmocka-dev libjson-c-dev linux-source-6.12 python3 python3-jsonschema python3-pytest python3-pytest-timeout linux-perf libiberty-dev libzstd-dev libdeflate-dev libtraceevent-dev
libbpf-dev bpftool clang gdb libncurses-dev tmux prometheus
libsnappy-dev libprotobuf-c-dev protobuf-c-compiler libcurl4-openssl-dev victoria-metrics prometheus-node-exporter
gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm cpio chromium golang-go libxml2-utils austin procps"
# The picture tests' readers: headless Chromium, xmllint (libxml2-utils: t74, t98), go tool pprof,
# and npm for pprof-format and speedscope (installed by tests/e2e/t75-pictures.sh into
# build/node). Debian's npm unless a
# Node.js with npm is already here. Prometheus: t85 scrapes lperf stat --prometheus (started on
# loopback by the test; the package's own service is not used); stat --remote-write pushes to it
# and to VictoriaMetrics (t99), --textfile feeds node_exporter's textfile collector (protobuf-c,
# snappy and curl build the pushes). Austin (Debian's 1.0.1): t64 compares the Python call chains
# it samples with lperf's.
# procps: pgrep, with which tests find the workload a recorder started (t97, t116).
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"
# `make fuzz` (install-deps.sh fuzz): clang and its libFuzzer runtime.
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
# Arm's per-CPU PMU data for `wperf man`, out of trixie-backports' newest linux-source (else the
# linux-source-6.12 above), into build/arm-data (a no-op when current; `make` does it too).
armdata() { "$(dirname "$0")/arm-data.sh"; }
[ -z "$missing" ] && { armdata; exit 0; }
echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq -o DPkg::Lock::Timeout=300
$SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends $missing >/dev/null
armdata
