# The two commands of the README, and a few more. CMake does the building;
# this file only sequences set-up, build and runs.
#   make demo   install missing packages, build, discover this machine, generate
#               a mesh for it and run the example that prints its placement
#   make test   the same set-up, then the whole test suite through ctest, then the
#               suite again built with AddressSanitizer and UBSan (build-asan/)
#   make bench  benchmarks, printed as ratios against a baseline of the same run
BUILD ?= build
ASAN_BUILD ?= build-asan
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build demo test test-sanitize coverage bench clean

all: build

deps:
	@./scripts/setup-deps.sh

build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@echo "== what hwloc sees on this machine"
	$(BUILD)/gen/meshgen inventory
	@echo "== the mesh spec"
	$(BUILD)/gen/meshgen validate configs/examples/local.yaml
	$(BUILD)/gen/meshgen show --color=never configs/examples/local.yaml
	@echo "== the example, compiled against the generated tables"
	$(BUILD)/examples/placement/placement

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	$(MAKE) test-sanitize

# The whole suite under ASan + UBSan (the examples discover this machine live,
# where hwloc's PCI plugin leaks; they are covered by the normal build).
# tests/lsan.supp names the leaks that are hwloc's own.
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMESHGEN_SANITIZE=ON \
		-DMESHGEN_BUILD_EXAMPLES=OFF $(CMAKE_FLAGS)
	$(SANITIZER_ENV) cmake --build $(ASAN_BUILD) -j $(JOBS)
	$(SANITIZER_ENV) ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# Line coverage of gen/ and runtime/ over the whole suite (gcovr).
COV_BUILD ?= build-cov
coverage: deps
	cmake -S . -B $(COV_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMESHGEN_COVERAGE=ON $(CMAKE_FLAGS)
	cmake --build $(COV_BUILD) -j $(JOBS)
	ctest --test-dir $(COV_BUILD) -j $(JOBS) -E valgrind
	gcovr -r . --object-directory $(COV_BUILD) --filter 'gen/' --filter 'runtime/' \
		--exclude-unreachable-branches --print-summary --txt $(COV_BUILD)/coverage.txt \
		--html-details $(COV_BUILD)/coverage.html
	@echo "per-file report: $(COV_BUILD)/coverage.txt"

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(COV_BUILD)
