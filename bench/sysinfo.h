/* Facts about the machine and the checkout that every JSON line carries. */
#ifndef BENCH_SYSINFO_H
#define BENCH_SYSINFO_H

#ifdef __cplusplus
extern "C" {
#endif

/* `git describe --always --dirty` of the source tree when CMake configured
 * it, or "unknown". */
const char *bench_git(void);

/* The first "model name" of /proc/cpuinfo, or "unknown". */
const char *bench_cpu(void);

#ifdef __cplusplus
}
#endif

#endif
