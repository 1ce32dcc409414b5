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

/* The convolution solver named by a record of the cuDNN logging callback: pass the record's
 * cudnnDebug_t pointer.  A dispatch record (info level: CUDNN_LOGINFO_DBG=1, or a callback
 * whose mask has CUDNN_SEV_INFO_EN) carries the solver that ran; this returns 1 and sets
 * *solverId (docs/solvers.md), *direction (0 forward, 1 backward data, 2 backward filter)
 * and *algo (the cuDNN algorithm enum of that direction), any of which may be NULL.  Any other
 * record, or NULL: 0.  The facts are read from the record's reserved fields, not its text. */
int hostdnnDebugGetConvSolver(const void *dbg, int *solverId, int *direction, int *algo);

#if defined(__cplusplus)
}
#endif

#endif /* HOSTDNN_H_ */
