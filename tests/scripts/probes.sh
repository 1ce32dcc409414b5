#!/usr/bin/env bash
# The checks people run after installing cuDNN, exactly as they run them.
. "$(dirname "$0")/../shlib.sh"
export LD_LIBRARY_PATH=$HD_BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if sanitized; then
  skip "ctypes probe (python is not built with the sanitizers)"
else
  out=$(python3 -c "import ctypes; l=ctypes.CDLL('libcudnn.so.8'); l.cudnnGetVersion.restype=ctypes.c_size_t; print(l.cudnnGetVersion())" 2>&1)
  check "ctypes probe prints 8100 (got: $out)" test "$out" = "8100"
  out=$(python3 -c "import ctypes; l=ctypes.CDLL('libcudnn.so.8'); l.cudnnGetErrorString.restype=ctypes.c_char_p; print(l.cudnnGetErrorString(3).decode())" 2>&1)
  check "ctypes cudnnGetErrorString(3) (got: $out)" test "$out" = "CUDNN_STATUS_BAD_PARAM"
  out=$(python3 -c "import ctypes; l=ctypes.CDLL('libcudnn_ops_infer.so.8'); l.cudnnGetVersion.restype=ctypes.c_size_t; print(l.cudnnGetVersion())" 2>&1)
  check "ctypes probe of libcudnn_ops_infer.so.8 (got: $out)" test "$out" = "8100"
fi
finish
