# The two commands of the README, and a few more. CMake does the building;
# this file only sequences set-up, build and runs.
#   make demo   install missing packages, build, discover this machine, generate
#               a mesh for it and run the example that prints its placement
#   make test   the same set-up, then the whole test suite through ctest
#   make bench  benchmarks, printed as ratios against a baseline of the same run
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build demo test bench clean

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

clean:
	rm -rf $(BUILD)
