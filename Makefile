# Thin driver around CMake: `make` builds build/ (library, tests, build/nkl), `make test`
# runs every test through ctest, `make asan` builds and tests build-asan/ with ASan+UBSan.
BUILD ?= build
MAKEFLAGS += --no-print-directory
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all test asan format clean

all: $(BUILD)/Makefile
	@cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/Makefile: CMakeLists.txt
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

test: all
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DNKL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo"

format:
	@clang-format -i $$(git ls-files '*.c' '*.h' '*.inc')

clean:
	rm -rf build build-asan
