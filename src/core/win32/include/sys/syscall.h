/* core/win32/include/sys/syscall.h -- Windows build: syscall(SYS_gettid) is defined in
 * core/win32/posix.h (the calling thread's id). */
