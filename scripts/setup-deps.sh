#!/usr/bin/env bash
# Installs what building and testing nkl needs on Debian 12 (bookworm), only what is
# missing. Run as root (or with sudo available). Pinned to bookworm's versions:
#   cmake 3.25, gcc 12, libcjson-dev 1.7.15, python3 3.11, libdnnl-dev 2.6.3 (oneDNN, the
#   in-process baseline of nkl bench; optional for the build), libxnnpack-dev
#   0.0~git20220216 and libpthreadpool-dev 0.0~git20210507 (XNNPACK's channels-last pools,
#   another in-process baseline; optional too).
set -euo pipefail
if ! command -v dpkg >/dev/null 2>&1; then
  echo "setup-deps: not a Debian system; install cmake, a C11 compiler with OpenMP, pkg-config,"
  echo "  cJSON (libcjson) and python3 yourself (oneDNN and XNNPACK are optional)."
  exit 0
fi
PKGS=(build-essential cmake pkg-config libcjson-dev python3 libdnnl-dev libxnnpack-dev libpthreadpool-dev)
missing=()
for p in "${PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup-deps: all build dependencies present"
fi
