/*
 * driver_types.h -- hostdnn's host-only stand-in for CUDA's basic runtime types.
 *
 * Only what cuDNN programs name is here.  The stream and event handles keep CUDA's struct
 * tags so C++ name mangling matches code compiled against the real toolkit.
 */
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__

/* A queue of work.  In hostdnn work runs on the calling thread, in call order. */
typedef struct CUstream_st *cudaStream_t;

/* A point in a stream's timeline, used for timing and ordering. */
typedef struct CUevent_st *cudaEvent_t;

#endif /* __DRIVER_TYPES_H__ */
