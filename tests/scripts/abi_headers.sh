#!/usr/bin/env bash
# The public headers: ABI facts (check.py at level 8.1), freshness against the generator,
# and clean compilation as C99, C11 and C++11 with gcc and clang, alone and beside a real
# CUDA toolkit's headers.
. "$(dirname "$0")/../shlib.sh"
cd "$HD_ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -f "$HD_SHARED/api/check.py" ]; then
  check "check.py --compile include --level 8.1" python3 "$HD_SHARED/api/check.py" --compile include --level 8.1 --cuda-include include
else
  skip "../shared/api/check.py not found"
fi

# The committed headers are exactly what the generator writes.
python3 tools/gen/gen_headers.py "$tmp/gen" >/dev/null
for f in "$tmp"/gen/*.h; do
  check "include/$(basename "$f") is up to date (run make headers)" cmp -s "$f" "include/$(basename "$f")"
done

# No 8.2-only names leak into the 8.1 headers.
for n in cudnnSetActivationDescriptorSwishBeta cudnnGetActivationDescriptorSwishBeta CUDNN_ACTIVATION_SWISH \
         CUDNN_TYPE_BEHAVIOR_NOTE cudnnBackendBehaviorNote_t; do
  check "$n is not declared (8.2-only)" bash -c "! grep -q '\\b$n\\b' include/cudnn*.h"
done

printf '#include <cudnn.h>\n#include <hostdnn.h>\nint main(void){ return CUDNN_VERSION == 8100 ? 0 : 1; }\n' > "$tmp/h.c"
cp "$tmp/h.c" "$tmp/h.cpp"
for cc in gcc clang; do
  command -v $cc >/dev/null || { skip "$cc not installed"; continue; }
  for std in c99 c11; do
    check "$cc -std=$std -pedantic" $cc -std=$std -Wall -Wextra -pedantic -Werror -Iinclude -c "$tmp/h.c" -o "$tmp/h.o"
  done
done
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || { skip "$cxx not installed"; continue; }
  check "$cxx -std=c++11 -pedantic" $cxx -std=c++11 -Wall -Wextra -pedantic -Werror -Iinclude -c "$tmp/h.cpp" -o "$tmp/h.o"
done
# Beside NVIDIA's CUDA headers (their cuda_runtime.h is found first): ours must still compile.
if [ -f /usr/local/cuda/include/cuda_runtime.h ]; then
  mkdir -p "$tmp/inc" && cp include/cudnn*.h "$tmp/inc/"
  printf '#include <cudnn.h>\nint main(void){ return CUDNN_VERSION == 8100 ? 0 : 1; }\n' > "$tmp/t.c"
  check "cudnn.h with the CUDA toolkit's runtime headers" gcc -std=c11 -Wall -Wextra -Werror -I"$tmp/inc" \
    -I/usr/local/cuda/include -c "$tmp/t.c" -o "$tmp/h.o"
else
  skip "no CUDA toolkit headers"
fi
finish
