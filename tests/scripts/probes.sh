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
  # The run-time controls of hostdnn's CPU back end, read through libhostdnn.
  q() { python3 -c "import ctypes; l=ctypes.CDLL('libhostdnn.so.0'); l.$1.restype=ctypes.$2; v=l.$1(); print(v.decode() if isinstance(v, bytes) else v)"; }
  hw=$(q hostdnnGetHardwareIsa c_char_p)
  check "HOSTDNN_MAX_ISA=scalar caps the kernels" test "$(HOSTDNN_MAX_ISA=scalar q hostdnnGetIsa c_char_p)" = scalar
  check "no cap: the hardware's ISA ($hw)" test "$(q hostdnnGetIsa c_char_p)" = "$hw"
  check "a cap above the hardware changes nothing" test "$(HOSTDNN_MAX_ISA=avx512 q hostdnnGetIsa c_char_p)" = "$hw"
  check "HOSTDNN_NUM_THREADS=3" test "$(HOSTDNN_NUM_THREADS=3 q hostdnnGetNumThreads c_int)" = 3
  check "default threads = cores" test "$(q hostdnnGetNumThreads c_int)" = "$(nproc)"
  check "version string" bash -c "q() { :; }; python3 -c \"import ctypes; l=ctypes.CDLL('libhostdnn.so.0'); l.hostdnnGetVersionString.restype=ctypes.c_char_p; s=l.hostdnnGetVersionString().decode(); assert 'cuDNN 8.1.0' in s, s\""
fi
finish
