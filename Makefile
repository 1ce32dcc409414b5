# hostdnn -- thin wrapper around CMake.
#   make            build everything (build/)
#   make check      build, run every test, then again under ASan+UBSan (build-asan/)
#   make check-quick  build, then the fast tests through CTest (ctest -L quick)
#   make check-tsan   the threading tests under ThreadSanitizer (build-tsan/)
#   make fuzz       the libFuzzer harnesses with clang (build-fuzz/), each run FUZZ_RUNS times
#   make demo       build and run the demo program
#   make install PREFIX=/opt/hostdnn
#   make bench      benchmark driver, memory-bound ops and RNNs vs oneDNN, attention, fused graphs (docs/performance.md)
#   make bench-compare  convolution and ops: hostdnn vs oneDNN 2.6 vs PyTorch
#   make bench-real     every convolution of five real networks, both layouts, vs oneDNN and PyTorch
#   make windows-package  MinGW-w64 cross build -> build-win/hostdnn-<version>-windows-x64.zip
#   make check-windows    that zip's checks and the test programs under Wine (docs/windows.md)
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE ?= cmake
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# make fuzz: executions per harness, and a cap in seconds on each harness's run
FUZZ_RUNS ?= 10000000
FUZZ_SECONDS ?= 3600
# Developer and CI builds: warnings are errors; tests, examples (make demo) and benchmarks
# (make bench) are built.  A plain cmake build has none of -Werror by default.
DEV_OPTS ?= -DHOSTDNN_WERROR=ON -DBUILD_TESTING=ON -DHOSTDNN_BUILD_EXAMPLES=ON -DHOSTDNN_BUILD_BENCH=ON

WIN_BUILD ?= build-win

.PHONY: all build check check-fast check-quick check-asan check-tsan fuzz demo install bench bench-compare bench-real bench-ops clean headers coverage \
	windows-build windows-package check-windows

all: build

build:
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(DEV_OPTS) >/dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

check-fast: build
	@tests/run_all.sh $(BUILD)

check-quick: build
	@cd $(BUILD) && ctest -L quick -j $(JOBS) --output-on-failure

check-asan:
	@$(CMAKE) -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DHOSTDNN_SANITIZE=ON $(DEV_OPTS) >/dev/null
	@$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/run_all.sh $(ASAN_BUILD) --sanitized

# ThreadSanitizer over the programs that run hostdnn from several threads (tests/tsan.sh).  Only
# the libraries and those programs are built, at -O1: the pass stays a few minutes in CI.
check-tsan:
	@$(CMAKE) -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE=-O1 -DHOSTDNN_TSAN=ON \
		-DHOSTDNN_WERROR=ON -DBUILD_TESTING=ON -DHOSTDNN_BUILD_EXAMPLES=OFF -DHOSTDNN_BUILD_BENCH=OFF >/dev/null
	@tests/tsan.sh $(TSAN_BUILD) "$(CMAKE)" $(JOBS)

# libFuzzer harnesses (tests/fuzz, docs/reliability.md): clang builds the static archive with
# coverage, ASan and UBSan, then each harness runs FUZZ_RUNS inputs (at most FUZZ_SECONDS) from
# its corpus in tests/fuzz/corpus; new inputs land in $(FUZZ_BUILD)/corpus-<name>.
fuzz:
	@$(CMAKE) -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
		-DCMAKE_BUILD_TYPE=Release -DHOSTDNN_FUZZ=ON -DBUILD_TESTING=OFF -DHOSTDNN_BUILD_EXAMPLES=OFF \
		-DHOSTDNN_BUILD_BENCH=OFF >/dev/null
	@$(CMAKE) --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_desc fuzz_compute
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_RUNS) $(FUZZ_SECONDS)

# Both passes run even when the first fails; the last line sums them up.
check: build
	@tests/check.sh $(BUILD) $(ASAN_BUILD) "$(CMAKE)" $(JOBS) "$(DEV_OPTS)"

demo: build
	@$(BUILD)/examples/demo
	@echo
	@$(BUILD)/examples/train_cnn

install: build
	@$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

# hostdnn-bench's short suite (peak, STREAM, GEMM), then the memory-bound primitives side by
# side with oneDNN 2.6 (rewrites that section of docs/performance.md), then multi-head
# attention (NVIDIA's multiHeadAttention sample's size: 8 heads, batch 16, 64 steps, 512 wide),
# RNNs beside oneDNN's (bench/compare_rnn.sh: LSTM/GRU inference and training steps) and the
# backend's fused graphs beside the legacy calls they replace.
# Last, whole ResNet-50 and MobileNet-v2 training steps beside PyTorch's (bench/compare_train.sh, minutes).
bench: build
	@$(BUILD)/tools/hostdnn-bench
	@bench/compare_ops.sh $(BUILD)
	@$(BUILD)/bench/hostdnn_attn
	@bench/compare_rnn.sh $(BUILD)
	@$(BUILD)/bench/hostdnn_fused
	@bench/compare_train.sh $(BUILD)

# hostdnn, oneDNN 2.6 and PyTorch side by side; rewrites docs/performance.md's convolution section.
bench-compare: build
	@bench/compare.sh $(BUILD) $(SHAPES)
	@bench/compare_ops.sh $(BUILD)

# Every distinct convolution of ResNet-50, VGG-16, MobileNet-v2, AlexNet and DeepLab-v3, at
# batch 16 and 1, three passes, NCHW and NHWC: hours on two cores, so FILTER=<regex on the shape
# string> or LIMIT=<first N> pick a part (bench/compare.sh).
REAL_SHAPES = bench/shapes/resnet50.txt bench/shapes/vgg16.txt bench/shapes/mobilenet_v2.txt \
	bench/shapes/alexnet.txt bench/shapes/deeplab_v3.txt
bench-real: build
	@bench/compare.sh $(BUILD) $(REAL_SHAPES)

# The memory-bound primitives alone (relu, add, batch norm, pooling, softmax, transform) vs
# oneDNN and STREAM; rewrites docs/performance.md's ops section.
bench-ops: build
	@bench/compare_ops.sh $(BUILD)

headers:
	python3 tools/gen/gen_headers.py

coverage: build
	@tools/gen/coverage.sh $(BUILD)

# Windows: cross-compiled with MinGW-w64, tested under Wine (docs/windows.md).
windows-build:
	@$(CMAKE) -S . -B $(WIN_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake \
		-DCMAKE_BUILD_TYPE=Release >/dev/null
	@$(CMAKE) --build $(WIN_BUILD) -j $(JOBS)

windows-package: windows-build
	@tools/windows/package.sh $(WIN_BUILD) $(WIN_BUILD)

check-windows: windows-package
	@tools/windows/check.sh $(WIN_BUILD) $$(ls -t $(WIN_BUILD)/hostdnn-*-windows-x64.zip | head -n 1)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD) $(WIN_BUILD)
