#!/usr/bin/env bash
# The steps of `make report` after the setup and the build: calibrate, bench the whole
# catalog with every candidate, write report/. Usage: make-report.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
start=$(date +%s)
echo "== make report: calibrate ($BUILD/calibration.json) ==" >&2
"$BUILD/nkl" calibrate --json "$BUILD/calibration.json"
echo "== make report: nkl bench, whole catalog, every candidate (results: $BUILD/results.json, log: $BUILD/report.log) ==" >&2
set +e
"$BUILD/nkl" bench --calibration "$BUILD/calibration.json" --json "$BUILD/results.json" ${NKL_BENCH_ARGS:-} >"$BUILD/report.log"
rc=$?
set -e
[ -s "$BUILD/results.json" ] || { echo "make report: nkl bench wrote no results (exit $rc)" >&2; exit 1; }
[ "$rc" = 0 ] || echo "make report: nkl bench exit $rc (some workload failed; see $BUILD/report.log)" >&2
NKL_PYTHON=${NKL_PYTHON:-python3} "$BUILD/nkl" report "$BUILD/results.json" -o report
echo "== make report: done in $(( $(date +%s) - start )) s: report/index.html ==" >&2
