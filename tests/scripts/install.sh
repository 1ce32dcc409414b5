#!/usr/bin/env bash
# make install's layout, and programs built against the installed tree the ways users build
# them: pkg-config (shared and --static), CMake find_package(CUDNN) with the exported targets
# (front library, a sub-library, the static archives), the static archive by hand, and
# NVIDIA's own cuDNN headers (when present) linked to our libraries.
. "$(dirname "$0")/../shlib.sh"
if sanitized; then skip "install checks run in the normal pass"; finish; exit; fi
p=$(mktemp -d)
trap 'rm -rf "$p"' EXIT
check "cmake --install" cmake --install "$HD_BUILD" --prefix "$p/prefix"
P=$p/prefix
# GNUInstallDirs' library directory of this build (lib, lib64 or lib/<multiarch>)
L=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$HD_BUILD/CMakeCache.txt")
L=$P/${L:-lib}
for h in cudnn.h cudnn_version.h cudnn_ops_infer.h cudnn_ops_train.h cudnn_cnn_infer.h cudnn_cnn_train.h \
         cudnn_adv_infer.h cudnn_adv_train.h cudnn_backend.h hostdnn.h; do
  check "include/$h installed" test -f "$P/include/$h"
done
for l in cudnn cudnn_ops_infer cudnn_ops_train cudnn_cnn_infer cudnn_cnn_train cudnn_adv_infer cudnn_adv_train; do
  check "lib/lib$l.so.8.1.0" test -f "$L/lib$l.so.8.1.0"
  check "lib/lib$l.so.8 -> lib$l.so.8.1.0" test "$(readlink "$L/lib$l.so.8")" = "lib$l.so.8.1.0"
  check "lib/lib$l.so" test -L "$L/lib$l.so"
done
for a in cudnn_static cudnn_ops_infer_static cudnn_ops_train_static cudnn_cnn_infer_static cudnn_cnn_train_static \
         cudnn_adv_infer_static cudnn_adv_train_static; do
  check "lib/lib$a.a" test -f "$L/lib$a.a"
done
check "lib/pkgconfig/cudnn.pc" test -f "$L/pkgconfig/cudnn.pc"
for f in CUDNNConfig.cmake CUDNNConfigVersion.cmake CUDNNTargets.cmake; do
  check "lib/cmake/CUDNN/$f" test -f "$L/cmake/CUDNN/$f"
done

cat > "$p/probe.c" <<'C'
#include <cudnn.h>
#include <stdio.h>
int main(void)
{
    cudnnHandle_t h;
    cudnnTensorDescriptor_t t;
    int n, c, hh, w, ns, cs, hs, ws;
    cudnnDataType_t dt;
    if (cudnnCreate(&h) != CUDNN_STATUS_SUCCESS) return 1;
    if (cudnnCreateTensorDescriptor(&t) != CUDNN_STATUS_SUCCESS) return 2;
    if (cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5) != CUDNN_STATUS_SUCCESS) return 3;
    if (cudnnGetTensor4dDescriptor(t, &dt, &n, &c, &hh, &w, &ns, &cs, &hs, &ws) != CUDNN_STATUS_SUCCESS) return 4;
    if (n != 2 || ns != 60 || dt != CUDNN_DATA_FLOAT) return 5;
    cudnnDestroyTensorDescriptor(t);
    cudnnDestroy(h);
    printf("%zu %s\n", cudnnGetVersion(), cudnnGetErrorString(CUDNN_STATUS_SUCCESS));
    return 0;
}
C
if command -v pkg-config >/dev/null; then
  flags=$(PKG_CONFIG_PATH=$L/pkgconfig pkg-config --cflags --libs cudnn)
  check "build with pkg-config ($flags)" gcc -std=c11 "$p/probe.c" -o "$p/probe_pc" $flags
  check "run pkg-config build" bash -c "[ \"\$(LD_LIBRARY_PATH=$L '$p/probe_pc')\" = '8100 CUDNN_STATUS_SUCCESS' ]"
  # --static adds Libs.private: what libcudnn_static.a needs from the system
  sflags=$(PKG_CONFIG_PATH=$L/pkgconfig pkg-config --static --libs cudnn)
  check "pkg-config --static --libs has -lpthread -lm -ldl ($sflags)" \
    bash -c "for l in -lpthread -lm -ldl; do case ' $sflags ' in *\" \$l \"*) ;; *) exit 1;; esac; done"
  priv=$(echo " $sflags " | sed 's/ -lcudnn / /; s/ -L[^ ]* / /g')
  check "link libcudnn_static.a with pkg-config --static ($priv)" gcc -std=c11 \
    $(PKG_CONFIG_PATH=$L/pkgconfig pkg-config --cflags cudnn) "$p/probe.c" "$L/libcudnn_static.a" $priv -o "$p/probe_pcs"
  check "run it (no shared cuDNN needed)" bash -c "[ \"\$(env -u LD_LIBRARY_PATH '$p/probe_pcs')\" = '8100 CUDNN_STATUS_SUCCESS' ]"
else
  skip "pkg-config not installed"
fi

# The CMake package: the front library, a sub-library linked directly, the all-in-one
# archive and a sub-library's archive (which brings those it depends on), and the version
# rule (8.x only).
mkdir -p "$p/cm"
cp "$p/probe.c" "$p/cm/probe.c"
cat > "$p/cm/train.c" <<'C'
#include <cudnn.h>
#include <stdio.h>
int main(void)
{
    cudnnStatus_t s = cudnnCnnTrainVersionCheck();
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnCnnInferVersionCheck();
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnOpsTrainVersionCheck();
    cudnnConvolutionDescriptor_t c;
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnCreateConvolutionDescriptor(&c);
    printf("%s\n", cudnnGetErrorString(s));
    return s != CUDNN_STATUS_SUCCESS;
}
C
cat > "$p/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(probe C)
find_package(CUDNN 8.1 REQUIRED)
add_executable(probe probe.c)
target_link_libraries(probe PRIVATE CUDNN::cudnn)
add_executable(probe_sub probe.c)
target_link_libraries(probe_sub PRIVATE CUDNN::cudnn_ops_infer)
add_executable(probe_static probe.c)
target_link_libraries(probe_static PRIVATE CUDNN::cudnn_static)
add_executable(train_static train.c)
target_link_libraries(train_static PRIVATE CUDNN::cudnn_cnn_train_static)
file(WRITE ${CMAKE_BINARY_DIR}/found.txt "${CUDNN_VERSION} ${CUDNN_LIBRARIES}\n")
foreach(t cudnn cudnn_ops_infer cudnn_ops_train cudnn_cnn_infer cudnn_cnn_train cudnn_adv_infer cudnn_adv_train
          cudnn_static cudnn_ops_infer_static cudnn_adv_train_static hostdnn)
  if(TARGET CUDNN::${t})
    file(APPEND ${CMAKE_BINARY_DIR}/found.txt "CUDNN::${t}\n")
  endif()
endforeach()
CM
check "CMake find_package(CUDNN) configure" cmake -S "$p/cm" -B "$p/cm/b" -DCMAKE_PREFIX_PATH="$P"
check "CMake build" cmake --build "$p/cm/b"
check "CUDNN_VERSION and CUDNN_LIBRARIES" grep -qx "8.1.0 CUDNN::cudnn" "$p/cm/b/found.txt"
check "all eleven imported targets" test "$(grep -c '^CUDNN::' "$p/cm/b/found.txt")" = 11
want='8100 CUDNN_STATUS_SUCCESS'
check "run CMake build (CUDNN::cudnn)" env LD_LIBRARY_PATH="$L" bash -c "[ \"\$('$p/cm/b/probe')\" = '$want' ]"
check "run CUDNN::cudnn_ops_infer build" env LD_LIBRARY_PATH="$L" bash -c "[ \"\$('$p/cm/b/probe_sub')\" = '$want' ]"
check "CUDNN::cudnn_ops_infer build needs no libcudnn.so.8" bash -c "! readelf -d '$p/cm/b/probe_sub' | grep -q 'NEEDED.*\[libcudnn.so'"
check "run CUDNN::cudnn_static build" bash -c "[ \"\$(env -u LD_LIBRARY_PATH '$p/cm/b/probe_static')\" = '$want' ]"
check "CUDNN::cudnn_static build has no cuDNN DT_NEEDED" bash -c "! readelf -d '$p/cm/b/probe_static' | grep -q 'NEEDED.*libcudnn'"
check "run CUDNN::cudnn_cnn_train_static build" bash -c "[ \"\$(env -u LD_LIBRARY_PATH '$p/cm/b/train_static')\" = CUDNN_STATUS_SUCCESS ]"
mkdir -p "$p/cm9"
printf 'cmake_minimum_required(VERSION 3.18)\nproject(p9 NONE)\nfind_package(CUDNN 9 REQUIRED)\n' > "$p/cm9/CMakeLists.txt"
check "find_package(CUDNN 9) refuses cuDNN 8.1" bash -c "! cmake -S '$p/cm9' -B '$p/cm9/b' -DCMAKE_PREFIX_PATH='$P'"

check "link libcudnn_static.a" gcc -std=c11 -I"$P/include" "$p/probe.c" "$L/libcudnn_static.a" -pthread -lm -ldl -o "$p/probe_static"
check "run static build" bash -c "[ \"\$('$p/probe_static')\" = '8100 CUDNN_STATUS_SUCCESS' ]"
# Every sub-library's version check and a convolution from the one static archive (the
# checks reach ops_infer through a helper that must be in the archive too).
cat > "$p/static_all.c" <<'C'
#include <cudnn.h>
#include <stdio.h>
int main(void)
{
    cudnnStatus_t s = cudnnOpsInferVersionCheck();
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnOpsTrainVersionCheck();
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnCnnInferVersionCheck();
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnCnnTrainVersionCheck();
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnAdvInferVersionCheck();
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnAdvTrainVersionCheck();
    cudnnConvolutionDescriptor_t c;
    if (s == CUDNN_STATUS_SUCCESS) s = cudnnCreateConvolutionDescriptor(&c);
    printf("%s\n", cudnnGetErrorString(s));
    return s != CUDNN_STATUS_SUCCESS;
}
C
check "link every sub-library from libcudnn_static.a" gcc -std=c11 -I"$P/include" "$p/static_all.c" "$L/libcudnn_static.a" -pthread -lm -ldl -o "$p/static_all"
check "run it" bash -c "[ \"\$('$p/static_all')\" = 'CUDNN_STATUS_SUCCESS' ]"

# Only the shim on the link line: the sub-libraries are found next to it at run time, with
# no LD_LIBRARY_PATH, through the rpath alone.
check "link with -lcudnn and an rpath" gcc -std=c11 -I"$P/include" "$p/probe.c" -L"$L" -lcudnn -Wl,-rpath,"$L" -o "$p/probe_rpath"
check "run with rpath only" bash -c "[ \"\$(env -u LD_LIBRARY_PATH '$p/probe_rpath')\" = '8100 CUDNN_STATUS_SUCCESS' ]"

# A program compiled against NVIDIA's cuDNN 9 headers runs on our libraries for what both
# releases share (SUCCESS is 0 in both; the tensor calls keep their prototypes).
if [ -f /usr/local/cuda/include/cudnn.h ]; then
  check "compile against NVIDIA cuDNN 9 headers" gcc -std=c11 -I/usr/local/cuda/include "$p/probe.c" -L"$L" -lcudnn -Wl,-rpath,"$L" -o "$p/probe_v9"
  check "run the cuDNN 9-header build on hostdnn" bash -c "[ \"\$('$p/probe_v9')\" = '8100 CUDNN_STATUS_SUCCESS' ]"
else
  skip "no NVIDIA cuDNN headers on this machine"
fi
finish
