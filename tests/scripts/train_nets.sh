#!/usr/bin/env bash
# Whole training steps through the cuDNN API (examples/train_net, examples/net/): small versions
# of ResNet-50 and MobileNet-v2 (width 0.25, 1-2 blocks per stage, 32x32 images, 4 classes) in
# both layouts must
#   - learn the synthetic set: the mean loss of the last 3 of 20 steps (SGD, rate 0.02) below
#     half the chance level ln(4)/2 (the first steps start near ln 4 = 1.39);
#   - give every parameter tensor's gradient within 3% of a central finite difference of the
#     loss (train_net --gradcheck), with tanh activations (--smooth): at 4 images per batch
#     ReLU's kinks put finite differences of the ReLU nets off by up to 20%, with tanh they
#     agree to well under 1%;
#   - give the same losses of 3 steps, bit for bit, with 1 and 3 threads.
# Prints "N passed, N failed".
set -u
. "$(dirname "$0")/../shlib.sh"
exe=$HD_BUILD/examples/train_net
if [ ! -x "$exe" ]; then
  skip "examples not built ($exe missing)"
  finish
  exit
fi
small="--batch 8 --image 32 --width 0.25 --blocks 1 --classes 4 --samples 32"

for net in resnet50 mobilenet_v2; do
  for layout in nchw nhwc; do
    out=$("$exe" --net "$net" --layout "$layout" $small --steps 19 --lr 0.02 2>&1)
    if [ $? -ne 0 ]; then
      bad "$net $layout training run failed: $(printf '%s\n' "$out" | tail -n 3)"
    else
      verdict=$(printf '%s\n' "$out" | awk '/^step/ { l[n++] = $4 }
        END { last = (l[n-1] + l[n-2] + l[n-3]) / 3; printf "%s first %.4f last3 %.4f", (n == 20 && last < log(4) / 2) ? "ok" : "bad", l[0], last }')
      case $verdict in
        ok*) ok ;;
        *) bad "$net $layout: the loss does not fall enough ($verdict)" ;;
      esac
    fi

    # ResNet's first block of every stage sums a projection; MobileNet-v2 needs 2 blocks per
    # stage for its identity residuals
    blocks=1
    [ "$net" = mobilenet_v2 ] && blocks=2
    out=$("$exe" --net "$net" --layout "$layout" --batch 4 --image 32 --width 0.25 --blocks $blocks --classes 4 \
          --gradcheck --smooth 2>&1)
    rc=$?
    if add_counts "$(printf '%s\n' "$out" | sed -n 's/^gradcheck: //p')" && [ $rc -eq 0 ]; then :; else
      [ $rc -ne 0 ] && printf '%s\n' "$out" | grep FAIL | head -n 5 >&2
      bad "$net $layout gradcheck (exit $rc)"
    fi

    a=$(HOSTDNN_NUM_THREADS=1 "$exe" --net "$net" --layout "$layout" $small --steps 2 2>&1 | awk '/^step/ {print $4}')
    b=$(HOSTDNN_NUM_THREADS=3 "$exe" --net "$net" --layout "$layout" $small --steps 2 2>&1 | awk '/^step/ {print $4}')
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "$net $layout: losses differ between 1 and 3 threads: $a / $b"; fi
  done
done
finish
