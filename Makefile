# Thin driver around CMake: `make` builds build/ (library, tests, build/nkl), `make test`
# runs every test through ctest, `make asan` builds and tests build-asan/ with ASan+UBSan.
BUILD ?= build
MAKEFLAGS += --no-print-directory
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all test asan format format-check clean report torch-check

all: $(BUILD)/Makefile
	@cmake --build $(BUILD) -j $(JOBS)

# Configuring installs the build dependencies first when they are missing (Debian).
$(BUILD)/Makefile: CMakeLists.txt
	@bash scripts/setup-deps.sh
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

test: all
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan CMAKE_FLAGS="-DNKL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo"

# The main job: installs what is missing (apt packages, the .venv with PyTorch), builds,
# calibrates, benchmarks the whole catalog against every baseline and writes report/.
# Progress on stderr; the full log in build/report.log. docs/report.md explains the page.
report:
	@bash scripts/setup-deps.sh
	@bash scripts/setup-report.sh
	@$(MAKE) --no-print-directory all
	@bash scripts/make-report.sh $(BUILD)

# nkl's pools and top-k against PyTorch itself on random parameters, dtypes and special
# values (tests/torch/*_vs_torch.py; under a minute). Needs the .venv with PyTorch that
# `make report` (scripts/setup-report.sh) installs, so it is not part of `make test`.
torch-check: all
	@bash scripts/setup-report.sh
	@for s in 1 2 3; do .venv/bin/python tests/torch/pool_vs_torch.py --seed $$s --lib $(BUILD)/libnkl.so || exit 1; done
	@.venv/bin/python tests/torch/topk_vs_torch.py --lib $(BUILD)/libnkl.so

# The style is .clang-format (written for Debian's clang-format 14; other versions may
# differ in details, so this is not part of `make test`).
format:
	@clang-format -i $$(git ls-files '*.c' '*.h' '*.inc')

format-check:
	@clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h' '*.inc') && echo "clang-format: clean"

clean:
	rm -rf build build-asan
