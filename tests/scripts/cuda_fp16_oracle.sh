#!/usr/bin/env bash
# hostdnn's cuda_fp16.h / cuda_bf16.h conversions against the host code of an installed CUDA
# toolkit's headers (CUDA_INC, default /usr/local/cuda/include; skipped when absent): the
# same program is built against each and must print the same results for every half and
# bfloat16 value and ~1.05 million float bit patterns (all exponents, both signs, NaN,
# infinities, ties).  Prints "N passed, N failed".
set -u
. "$(dirname "$0")/../shlib.sh"
root=$HD_ROOT
cuda=${CUDA_INC:-/usr/local/cuda/include}
if [ ! -f "$cuda/cuda_fp16.h" ] || ! command -v g++ >/dev/null; then
  skip "no CUDA toolkit headers at $cuda (or no g++)"
  finish
  exit
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "work: $work"
cat >"$work/conv.cpp" <<'CPP'
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <cstring>

static unsigned h2u(__half h) { __half_raw r = h; return r.x; }
static unsigned b2u(__nv_bfloat16 h) { __nv_bfloat16_raw r = h; return r.x; }
static unsigned f2u(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }

int main()
{
    // 1. every half and bfloat16 value to float (NaN payloads: only "is NaN" must agree)
    unsigned long long hsum = 0, bsum = 0;
    for (unsigned b = 0; b < 0x10000; b++) {
        __half_raw r; r.x = (unsigned short)b;
        float f = __half2float(__half(r));
        hsum = hsum * 1000003u + (f != f ? 1u : f2u(f));
        __nv_bfloat16_raw q; q.x = (unsigned short)b;
        float g = __bfloat162float(__nv_bfloat16(q));
        bsum = bsum * 1000003u + (g != g ? 1u : f2u(g));
    }
    std::printf("half->float %llx\nbf16->float %llx\n", hsum, bsum);
    // 2. float bit patterns to half (rn, rz) and bfloat16 (rn); NaN results compared as "NaN"
    unsigned long long rn = 0, rz = 0, bf = 0;
    for (unsigned long long u = 0; u < 0x100000000ull; u += 4093) {
        for (unsigned d = 0; d < 2; d++) {
            unsigned bits = (unsigned)u + d * 0x1000u;   // also hit exact ties
            float f; std::memcpy(&f, &bits, 4);
            unsigned a = h2u(__float2half_rn(f)), b = h2u(__float2half_rz(f)), c = b2u(__float2bfloat16(f));
            if (f != f) a = b = c = 1;
            rn = rn * 1000003u + a; rz = rz * 1000003u + b; bf = bf * 1000003u + c;
        }
    }
    std::printf("float->half rn %llx\nfloat->half rz %llx\nfloat->bf16 rn %llx\n", rn, rz, bf);
    // 3. a few named values, printed for a readable diff
    const float v[] = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 2.98023223876953125e-08f,
                       5.9604644775390625e-08f, 6.1e-05f, 1.00048828125f, 1.00146484375f, 3.14159f, -1e30f};
    for (float x : v)
        std::printf("%.9g -> half %04x rz %04x bf16 %04x\n", x, h2u(__float2half(x)), h2u(__float2half_rz(x)),
                    b2u(__float2bfloat16(x)));
    return 0;
}
CPP
for side in ours theirs; do
  inc=$root/include; [ $side = theirs ] && inc=$cuda
  if ! g++ -std=c++14 -O1 -w -I"$inc" "$work/conv.cpp" -o "$work/conv_$side" 2>"$work/err"; then
    head -n 5 "$work/err"; bad "does not compile against $side headers"; continue
  fi
  "$work/conv_$side" >"$work/out_$side"
done
if [ -s "$work/out_ours" ] && [ -s "$work/out_theirs" ]; then
  while IFS= read -r line <&3 && IFS= read -r other <&4; do
    if [ "$line" = "$other" ]; then ok; else bad "ours: $line / toolkit: $other"; fi
  done 3<"$work/out_ours" 4<"$work/out_theirs"
fi
finish
