/*
 * hostdnn.h -- hostdnn's own extras, beyond the cuDNN 8.1 interface.
 *
 * Link with -lhostdnn.  Nothing here is needed to run cuDNN programs; it tells you which
 * hostdnn you run and how it executes on this CPU.
 */
#ifndef HOSTDNN_H_
#define HOSTDNN_H_

#if defined(__cplusplus)
extern "C" {
#endif

#define HOSTDNN_VERSION_MAJOR 0
#define HOSTDNN_VERSION_MINOR 1
#define HOSTDNN_VERSION_PATCH 0

/* hostdnn's own version, major*10000 + minor*100 + patch. */
int hostdnnGetVersion(void);

/* "hostdnn 0.1.0 (cuDNN 8.1.0 API)". */
const char *hostdnnGetVersionString(void);

/* Vector instruction set the kernels use: "scalar", "avx2" or "avx512" (after the
 * HOSTDNN_MAX_ISA cap), and the best the CPU itself supports. */
const char *hostdnnGetIsa(void);
const char *hostdnnGetHardwareIsa(void);

/* The CPU's brand string, e.g. "AMD EPYC 9R45". */
const char *hostdnnGetCpuName(void);

/* Threads a new cudnnHandle_t uses: HOSTDNN_NUM_THREADS or the number of cores. */
int hostdnnGetNumThreads(void);

#if defined(__cplusplus)
}
#endif

#endif /* HOSTDNN_H_ */
