# Cross-compiling hostdnn for 64-bit Windows with Debian's MinGW-w64 (gcc-mingw-w64-x86-64):
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# `make windows-package` and `make check-windows` use it (docs/windows.md).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(HD_MINGW_PREFIX x86_64-w64-mingw32 CACHE STRING "Prefix of the MinGW-w64 tools")
set(CMAKE_C_COMPILER ${HD_MINGW_PREFIX}-gcc)
set(CMAKE_CXX_COMPILER ${HD_MINGW_PREFIX}-g++)
set(CMAKE_RC_COMPILER ${HD_MINGW_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${HD_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
