# Cross build for aarch64 (make ARCH=arm64): included by the Makefile. The compiler is Debian's
# gcc-aarch64-linux-gnu; the libraries come from an arm64 sysroot unpacked from Debian's packages
# by scripts/arm64-sysroot.sh (the host's installed set is not touched). Output: build/arm64.
CROSS_COMPILE ?= aarch64-linux-gnu-
CC      := $(CROSS_COMPILE)gcc
AR      := $(CROSS_COMPILE)ar
BUILD   := build/arm64
SYSROOT ?= $(abspath build/arm64/sysroot)
SYSLIB  := $(SYSROOT)/usr/lib/aarch64-linux-gnu

# The sysroot is made before anything is compiled (a no-op when it is current).
_ := $(shell scripts/arm64-sysroot.sh $(SYSROOT) >&2)

PKG_ENV    := PKG_CONFIG_SYSROOT_DIR=$(SYSROOT) PKG_CONFIG_LIBDIR=$(SYSLIB)/pkgconfig
PKG_CFLAGS := -I$(SYSROOT)/usr/include $(shell $(PKG_ENV) pkg-config --cflags $(PKGS))
# Both library directories: Debian's libncursesw.so is a linker script naming libncursesw.so.6,
# which bookworm installs in /lib (ld looks for a script's inputs in the -L directories only).
PKG_LIBS   := -L$(SYSLIB) -L$(SYSROOT)/lib/aarch64-linux-gnu \
              -Wl,-rpath-link,$(SYSLIB) -Wl,-rpath-link,$(SYSROOT)/lib/aarch64-linux-gnu \
              $(shell $(PKG_ENV) pkg-config --libs $(LINK_PKGS))
DL_LIBS    := $(shell $(PKG_ENV) pkg-config --libs capstone) -lpfm
CAPSTONE_SO = $(SYSLIB)/libcapstone.so
PFM_SO      = $(SYSLIB)/libpfm.so
# Frame pointers everywhere, so that lperf's own frame-pointer call graphs can be checked.
CFLAGS  ?= -O2 -g
CFLAGS  += -fno-omit-frame-pointer
