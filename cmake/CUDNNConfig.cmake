# CMake package for hostdnn's cuDNN 8.1:  find_package(CUDNN)  ->  target CUDNN::cudnn
get_filename_component(_hd_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(CUDNN_INCLUDE_DIRS "${_hd_prefix}/include")
set(CUDNN_LIBRARIES "${_hd_prefix}/lib/libcudnn.so")
set(CUDNN_VERSION 8.1.0)
if(NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn SHARED IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES
    IMPORTED_LOCATION "${_hd_prefix}/lib/libcudnn.so.8"
    IMPORTED_SONAME "libcudnn.so.8"
    INTERFACE_INCLUDE_DIRECTORIES "${_hd_prefix}/include")
endif()
set(CUDNN_FOUND TRUE)
unset(_hd_prefix)
