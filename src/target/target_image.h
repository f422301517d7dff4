/* What wperf's --pe_file / --image_name mean on Linux: the process running that executable
 * (found through /proc/PID/exe), and where its image was loaded (for wperf's "base address of
 * 'NAME': 0x..., runtime delta: 0x..." line). */
#ifndef LPERF_TARGET_TARGET_IMAGE_H
#define LPERF_TARGET_TARGET_IMAGE_H

#include <stdint.h>
#include <sys/types.h>

/* The process whose executable is pe_file (same file; a name without '/' is looked up on PATH),
 * or failing that whose executable's base name is image_name, pe_file's base name or the name
 * of a link target on the way from pe_file (python3 -> python3.11), or that was started by
 * that name (its comm or argv[0]: a pyenv shim's interpreter).
 * Among several, the one that last ran on core (when core >= 0), then the newest. 0 with *pid
 * set, or -1 with err_set(). */
int target_find_image(const char *pe_file, const char *image_name, int core, pid_t *pid);
/* The load address of the executable of pid and its ELF entry point: *base = runtime entry
 * point (load bias + e_entry), *delta = load bias (runtime address - link-time address). -1
 * with err_set() when /proc/PID/maps or the ELF file cannot be read. */
int target_image_base(pid_t pid, uint64_t *base, uint64_t *delta);

#endif
