# The two commands of the README, and a few more. CMake does the building;
# this file only sequences set-up, build and runs.
#   make demo   install missing packages (scripts/setup-deps.sh: Debian's, then
#               the pinned ajv of tools/npm), build the generator, the runtime and
#               the example only, discover this machine, generate a mesh for it and
#               run the example that prints its placement
#   make test   the same set-up, then the whole test suite through ctest, each test
#               once; ctest reports every test as it ends
#   make test-memory  the memory checkers CI runs after `make test`: the command-line
#               cases under valgrind (in shards), the suite again built with
#               AddressSanitizer and UBSan (build-asan/), and a short run of each
#               fuzz target (build-fuzz/); `make test-all` is both
#   make bench  benchmarks, printed as ratios against a baseline of the same run
#   make fuzz   each libFuzzer target for FUZZ_SECONDS (fuzz/README.md); make
#               fuzz-smoke runs only their short ctest runs
BUILD ?= build
ASAN_BUILD ?= build-asan
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps configure build demo test test-memory test-all test-valgrind test-sanitize \
	coverage bench fuzz-build fuzz fuzz-smoke clean

all: build

# Debian packages when missing, and tools/npm/node_modules (npm ci) when it
# is missing or was installed from another package-lock.json.
deps:
	@./scripts/setup-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# Only what the demo runs: the generator, the runtime, the example and the
# tables it is compiled against (not the tests, benchmarks or MPI examples),
# in the same build tree, so that a later `make test` builds only the rest.
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target meshgen placement
	@echo "== what hwloc sees on this machine"
	$(BUILD)/gen/meshgen inventory
	@echo "== the mesh spec"
	$(BUILD)/gen/meshgen validate configs/examples/local.yaml
	$(BUILD)/gen/meshgen show --color=never configs/examples/local.yaml
	@echo "== the example, compiled against the generated tables"
	$(BUILD)/examples/placement/placement

# Every test once. The re-runs under memory checkers (valgrind, ASan and
# UBSan, libFuzzer) cost twice as much again; CI runs them (.ci/run).
test: build
	@echo "== the test suite (ctest, $(JOBS) at a time)"
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE valgrind
	@echo "== passed; CI also runs make test-memory (valgrind, ASan and UBSan, fuzz smoke)"

test-memory: test-valgrind
	@echo "== the test suite under AddressSanitizer and UBSan ($(ASAN_BUILD)/)"
	$(MAKE) --no-print-directory test-sanitize
	@echo "== a short run of each libFuzzer target ($(FUZZ_BUILD)/)"
	$(MAKE) --no-print-directory fuzz-smoke

test-all: test
	$(MAKE) --no-print-directory test-memory

# The command-line cases under valgrind, in shards ctest runs in parallel.
test-valgrind: build
	@echo "== the command-line cases under valgrind (ctest -L valgrind, $(JOBS) at a time)"
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L valgrind

# The whole suite under ASan + UBSan (the examples discover this machine live,
# where hwloc's PCI plugin leaks; they are covered by the normal build).
# tests/lsan.supp names the leaks that are hwloc's own.
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

test-sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMESHGEN_SANITIZE=ON \
		-DMESHGEN_BUILD_EXAMPLES=OFF -DMESHGEN_BUILD_BENCH=OFF $(CMAKE_FLAGS)
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

# Benchmarks (bench/README.md): generator runs, runtime lookups and table
# sizes, each printed as a ratio against a baseline measured in the same run,
# ending with a PASS/FAIL line per target. They report; they never gate.
bench: build
	/usr/bin/python3 bench/run_bench.py --build $(BUILD)

# libFuzzer targets (fuzz/README.md), built with clang in build-fuzz/. `fuzz`
# runs each for FUZZ_SECONDS, one at a time, new inputs going to
# build-fuzz/corpus/<target> (not the repository) and crashes to
# build-fuzz/artifacts/; it prints the executions each reached and fails if
# any target crashed. `fuzz-smoke` runs the short ctest runs only.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600

# Only the fuzz targets (fuzz/targets.txt, written at configure time) and
# what they link: not the uninstrumented generator beside them.
fuzz-build: deps
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_COMPILER=clang -DMESHGEN_FUZZ=ON -DMESHGEN_BUILD_TESTS=OFF \
		-DMESHGEN_BUILD_EXAMPLES=OFF -DMESHGEN_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $$(cut -d' ' -f1 $(FUZZ_BUILD)/fuzz/targets.txt)

fuzz-smoke: fuzz-build
	ctest --test-dir $(FUZZ_BUILD) --output-on-failure -L fuzz -j $(JOBS)

fuzz: fuzz-build
	@failed=; \
	while read -r t dict; do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/artifacts; \
	  echo "== $$t for $(FUZZ_SECONDS) s (log: $(FUZZ_BUILD)/$$t.log)"; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  $(FUZZ_BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=25 \
	    -print_final_stats=1 -dict=$$dict -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t- \
	    $(FUZZ_BUILD)/corpus/$$t fuzz/corpus/$$t fuzz/regressions/$$t \
	    </dev/null >$(FUZZ_BUILD)/$$t.log 2>&1 || { failed="$$failed $$t"; tail -n 60 $(FUZZ_BUILD)/$$t.log; }; \
	  awk '/^#[0-9]+/ {last = substr($$1, 2)} /number_of_executed_units/ {n = $$2} \
	       /average_exec_per_sec/ {r = $$2} \
	       END {printf "%s: %s executions, %s exec/s\n", t, n ? n : last, r ? r : "?"}' \
	      t=$$t $(FUZZ_BUILD)/$$t.log; \
	done < $(FUZZ_BUILD)/fuzz/targets.txt; \
	if [ -n "$$failed" ]; then echo "fuzz: crashed:$$failed (inputs in $(FUZZ_BUILD)/artifacts/)"; exit 1; fi

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(COV_BUILD) $(FUZZ_BUILD)
