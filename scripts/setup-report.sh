#!/usr/bin/env bash
# Installs what `make report` needs beyond the build dependencies (scripts/setup-deps.sh),
# only what is missing:
#   - Debian: python3-venv, chromium (headless screenshot test of the report page);
#   - a project-local virtual environment .venv (Debian's /usr/bin/python3) with a pinned
#     PyTorch from PyPI for the "PyTorch eager" and "torch.compile" candidates, and numpy.
# PyPI has no CPU-only PyTorch wheel for Linux x86_64 (the CPU builds live on PyTorch's own
# index, which is not reachable here), so the default wheel is installed with its CUDA
# dependencies (~3 GB download, once). If PyPI is unreachable, Debian's python3-torch 1.13
# is used instead (eager only; the torch.compile tier is then reported as unavailable).
set -euo pipefail
cd "$(dirname "$0")/.."
TORCH_VERSION=${NKL_TORCH_VERSION:-2.15.0}
NUMPY_VERSION=${NKL_NUMPY_VERSION:-2.4.6}
VENV=${NKL_VENV:-.venv}
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

apt_missing=()
for p in python3-venv python3-pip chromium g++; do
  dpkg -s "$p" >/dev/null 2>&1 || apt_missing+=("$p")
done
if [ ${#apt_missing[@]} -gt 0 ]; then
  echo "setup-report: apt-get install ${apt_missing[*]}" >&2
  $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >&2 || \
    echo "setup-report: warning: could not install ${apt_missing[*]}" >&2
fi

if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import torch, numpy, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" 2>/dev/null; then
  echo "setup-report: $VENV has torch $TORCH_VERSION" >&2
  exit 0
fi
[ -x "$VENV/bin/python" ] || /usr/bin/python3 -m venv "$VENV"
echo "setup-report: installing torch==$TORCH_VERSION numpy==$NUMPY_VERSION into $VENV (first time: large download)" >&2
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check "torch==$TORCH_VERSION" "numpy==$NUMPY_VERSION" >&2; then
  echo "setup-report: PyPI install failed; falling back to Debian's python3-torch (eager only)" >&2
  $SUDO apt-get install -y -qq --no-install-recommends python3-torch python3-numpy >&2 || true
  rm -rf "$VENV"
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi
"$VENV/bin/python" -c "import torch; print('setup-report: torch', torch.__version__)" >&2
