# Windows (MinGW-w64) build settings, included by CMakeLists.txt before any target when WIN32.
# See docs/windows.md.  The POSIX sources compile unchanged: core/win32/posix.h is forced into
# every file and core/win32/include supplies dlfcn.h and the sys/ headers Windows lacks.
if(NOT MINGW)
  message(FATAL_ERROR "hostdnn's Windows build needs MinGW-w64 (cmake/mingw-w64-x86_64.cmake)")
endif()
set(HD_WIN32_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/core/win32)
# Windows 7 and later: GetCurrentProcessorNumber, K32EnumProcessModules.
# MinGW's own printf family: C99 formats (%zu, %lld) instead of msvcrt's.
add_compile_definitions(_WIN32_WINNT=0x0601 WIN32_LEAN_AND_MEAN __USE_MINGW_ANSI_STDIO=1)
include_directories(BEFORE ${HD_WIN32_DIR}/include)
add_compile_options(-include ${HD_WIN32_DIR}/posix.h)
# GCC checks format(printf) attributes against msvcrt's printf on this target, which rejects
# C99's %zu that MinGW's printf (above) prints; the Linux build checks the formats.
add_compile_options(-Wno-format)
# MinGW's headers hide POSIX names (strdup, fileno, ...) from strict C11.  GNU C would fuse
# a*b+c into one FMA where strict C11 does not: keep the Linux build's rounding.
set(CMAKE_C_EXTENSIONS ON)
add_compile_options(-ffp-contract=off)
# DLLs and programs that need nothing beyond Windows' own DLLs: libgcc and winpthreads inside.
add_link_options(-static -static-libgcc)
set(CMAKE_SHARED_LIBRARY_PREFIX "")
set(CMAKE_IMPORT_LIBRARY_PREFIX "")
set(CMAKE_STATIC_LIBRARY_PREFIX "lib")
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)

# Called at the end of CMakeLists.txt: NVIDIA's DLL names and the .def export lists.
function(hd_windows_dlls)
  foreach(lib ${HD_LIBS})
    # ops_infer also exports the private hd_ interface the other five import (gen_private.py).
    set(def ${HD_GEN}/exports_${lib}.def)
    if(lib STREQUAL "ops_infer")
      set(def ${HD_GEN}/exports_ops_infer_all.def)
    endif()
    set_target_properties(cudnn_${lib} PROPERTIES OUTPUT_NAME cudnn_${lib}64_8
      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
      LINK_DEPENDS ${def})
    target_link_options(cudnn_${lib} PRIVATE ${def} -Wl,--no-undefined)
  endforeach()
  set_target_properties(cudnn PROPERTIES OUTPUT_NAME cudnn64_8
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
    LINK_DEPENDS ${HD_GEN}/exports_cudnn.def)
  target_link_options(cudnn PRIVATE ${HD_GEN}/exports_cudnn.def -Wl,--no-undefined)
  hd_windows_api_dll(hostdnn hostdnn "hostdnn[A-Za-z0-9_]*")
endfunction()

# The host CUDA runtime and cuBLAS (called from src/cudart and src/cublas, which own the
# targets): their version scripts export "cuda*", "cublas*", "cublasLt*"; the .def lists what
# the target's own objects define under such a name, written just before linking.
function(hd_windows_api_dll t dll pattern)
  set(def ${CMAKE_BINARY_DIR}/gen/exports_${t}.def)
  add_custom_command(TARGET ${t} PRE_LINK
    COMMAND ${CMAKE_SOURCE_DIR}/tools/windows/def_from_objects.sh ${CMAKE_NM} "${pattern}" ${dll}.dll ${def}
            ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${t}.dir
    VERBATIM)
  set_target_properties(${t} PROPERTIES OUTPUT_NAME ${dll}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  target_link_options(${t} PRIVATE ${def} -Wl,--no-undefined)
endfunction()

# The test programs for `make check-windows` (tools/windows/check.sh runs them under Wine):
# tests/unit/test_*.c as tests/CMakeLists.txt builds them, less those tests/windows-skip.tsv
# lists.  PE links resolve left to right, so the reference code comes before the libraries.
function(hd_windows_tests)
  file(STRINGS ${CMAKE_SOURCE_DIR}/tests/windows-skip.tsv rows REGEX "^test_")
  set(skip "")
  foreach(r ${rows})
    string(REGEX REPLACE "\t.*" "" n "${r}")
    list(APPEND skip ${n})
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/windows-skip.tsv)
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
  file(GLOB ref CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/ref/*.c)
  add_library(hd_test_ref STATIC ${ref})
  target_include_directories(hd_test_ref PUBLIC ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/tests)
  target_compile_options(hd_test_ref PRIVATE ${HD_WARN})
  foreach(t ${tests})
    get_filename_component(n ${t} NAME_WE)
    if(n IN_LIST skip)
      continue()
    endif()
    add_executable(${n} ${t})
    target_include_directories(${n} PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/tests
                               ${CMAKE_SOURCE_DIR}/tests/windows/include)
    target_compile_options(${n} PRIVATE ${HD_WARN})
    target_compile_definitions(${n} PRIVATE HD_WIN32_TRACK_ALIGNED)   # see core/win32/posix.h
    target_link_libraries(${n} PRIVATE hd_test_ref)
    if(n MATCHES "^test_(gemm|kernel|core_)")
      target_include_directories(${n} PRIVATE ${CMAKE_SOURCE_DIR}/src)
      target_link_libraries(${n} PRIVATE cudnn_ops_infer_static)
    endif()
    if(n MATCHES "^test_cudart")
      target_link_libraries(${n} PRIVATE cudart)
    elseif(n MATCHES "^test_(cublas|concurrency)")
      target_link_libraries(${n} PRIVATE cublas cublasLt cudart)
    endif()
    target_link_libraries(${n} PRIVATE cudnn hostdnn Threads::Threads)
    set_target_properties(${n} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/bin)
    add_dependencies(${n} hd_generate)
  endforeach()
endfunction()
