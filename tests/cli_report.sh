#!/usr/bin/env bash
# nkl calibrate, the results JSON of nkl bench, nkl report, and the report page in headless
# Chromium (loads with no console errors, one table per op; screenshot taken). Needs no
# torch venv and no network: the PyTorch candidates are checked for a recorded reason only
# when .venv is absent. No timing thresholds anywhere.
# Usage: cli_report.sh path/to/nkl source_dir
set -u
NKL=$1
SRC=$2
T=$(mktemp -d /tmp/nkl_report_test.XXXXXX)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
skipped=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
skip() { skipped=$((skipped + 1)); echo "skip $1"; }
PY=python3
command -v python3 >/dev/null || PY=/usr/bin/python3

# calibrate: JSON with every figure the report needs (values only checked to be positive).
if "$NKL" calibrate --json "$T/cal.json" >"$T/cal.out" 2>&1; then
  $PY - "$T/cal.json" <<'PYEOF' && ok "calibrate writes bandwidth, peaks, cpu" || bad "calibrate JSON incomplete"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["memory"]["bandwidth_gbps"] > 0 and d["peaks"]["f32_gflops"] > 0
assert d["cpu"]["model"] and d["cpu"]["cores"] >= 1 and d["cpu"]["caches"]["llc_bytes"] > 0
PYEOF
else
  bad "calibrate exited non-zero: $(tail -2 "$T/cal.out")"
fi

# bench: a small LayerNorm row with every candidate; schema of docs/report.md. f32 rows for
# the oneDNN checks: Debian's oneDNN 2.6 has no bf16/f16 primitives on CPUs without AVX-512.
"$NKL" bench --desc "LayerNormFwd dtype=f32 x=[64,1024] label=test" --samples 4 --warmup 2 \
  --calibration "$T/cal.json" --json "$T/r.json" >"$T/bench.out" 2>"$T/bench.err"
rc=$?
[ "$rc" = 0 ] && ok "bench with baselines exits 0" || bad "bench exit $rc: $(tail -3 "$T/bench.err")"
$PY - "$T/r.json" <<'PYEOF' && ok "results JSON has the row schema" || bad "results JSON schema"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("settings", "versions", "calibration", "rows"):
    assert k in d, k
r = d["rows"][0]
for k in ("op", "id", "dtype", "label", "descriptor", "flops", "bytes", "ours", "candidates", "baseline",
          "ratio", "gflops", "gbps", "sol", "bound", "correctness"):
    assert k in r, k
assert r["ours"]["median_ms"] > 0 and len(r["ours"]["samples_ms"]) == 4
names = {c["name"]: c for c in r["candidates"]}
for n in ("onednn", "onednn_any", "xnnpack_nhwc", "torch_eager", "torch_compile"):
    assert n in names, n
assert names["xnnpack_nhwc"]["status"] in ("unsupported", "unavailable"), names["xnnpack_nhwc"]
for c in r["candidates"]:
    assert c["status"] in ("ok", "unsupported", "unavailable", "error", "mismatch"), c
    assert c["status"] == "ok" or c["reason"], c
    if c["status"] == "ok":
        assert c["median_ms"] > 0 and c["check"]["status"] in ("pass", "not checked"), c
assert r["bound"] in ("mem", "comp", "lat")
# the triads taken just before and after the row's timed calls (cold run, calibration given)
assert len(r["row_triad_gbps"]) == 2 and min(r["row_triad_gbps"]) > 0, r.get("row_triad_gbps")
assert (r["sol"] is None) == (r.get("sol_row") is None), (r["sol"], r.get("sol_row"))
PYEOF
"$NKL" bench --desc "RMSNormFwd dtype=f32 x=[256,4096] label=test" --samples 2 --warmup 1 --baselines none \
  --calibration "$T/cal.json" --json "$T/rt.json" >"$T/rt.out" 2>/dev/null
"$NKL" bench --desc "RMSNormFwd dtype=f32 x=[256,4096] label=test" --samples 2 --warmup 1 --baselines none \
  --calibration "$T/cal.json" --no-row-triad --json "$T/nrt.json" >/dev/null 2>&1
$PY - "$T/rt.json" "$T/nrt.json" "$T/rt.out" <<'PYEOF' && ok "row triad: SOL against it printed and in the JSON; --no-row-triad skips it" || bad "row triad"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert r["bound"] == "mem" and r["sol"] > 0 and r["sol_row"] > 0, r
bw = sum(r["row_triad_gbps"]) / 2
# the same SOL formula with the row's triad in place of the calibration's bandwidth
assert abs(r["sol_row"] - r["bytes"] / (bw * 1e6) / r["ours"]["median_ms"]) < 1e-9 * r["sol_row"] + 1e-12
assert "row triad" in open(sys.argv[3]).read()
n = json.load(open(sys.argv[2]))["rows"][0]
assert "row_triad_gbps" not in n and "sol_row" not in n and n["sol"] > 0, n
PYEOF
if grep -q 'onednn_missing\|without oneDNN' "$T/r.json"; then
  skip "oneDNN not built in: no oneDNN timing checked"
else
  $PY -c "import json,sys; r=json.load(open('$T/r.json'))['rows'][0]; c=[c for c in r['candidates'] if c['name']=='onednn'][0]; sys.exit(not (c['status']=='ok' and c['check']['status']=='pass'))" \
    && ok "oneDNN layer norm runs and passes the oracle check" || bad "oneDNN LN candidate"
fi

# A row nkl does not implement still gets its baselines, with reasons where they cannot run:
# oneDNN's ceil-mode average pooling counts the overhang, so it must be refused.
"$NKL" bench --desc "AvgPool2dFwd dtype=bf16 N=1 C=2 H_in=6 W_in=6 kernel_size=[3,3] stride=[2,2] padding=[0,0] ceil_mode=true count_include_pad=true" \
  --baselines onednn --samples 2 --warmup 1 --json "$T/pool.json" >/dev/null 2>&1
$PY - "$T/pool.json" <<'PYEOF' && ok "unsupported oneDNN semantics recorded with the reason" || bad "ceil-mode avg pool row"
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
assert r["ours"]["status"] in ("ok", "not implemented") and r["ratio"] is None  # no valid baseline: no ratio
c = {c["name"]: c for c in r["candidates"]}["onednn"]
assert c["status"] in ("unsupported", "unavailable") and c["reason"], c
assert c["status"] == "unavailable" or "ceil_mode" in c["reason"], c
PYEOF

# A pooling row oneDNN supports runs through our adapter's tensors and passes the oracle
# (the adapter and the baselines must agree on the tensor names x and y).
if ! grep -q 'onednn_missing\|without oneDNN' "$T/r.json"; then
  "$NKL" bench --desc "MaxPool2dFwd dtype=f32 N=2 C=3 H_in=9 W_in=11 kernel_size=[3,3] stride=[2,2] padding=[1,1] dilation=[1,1] ceil_mode=false" \
    --baselines onednn --samples 2 --warmup 1 --json "$T/mp.json" >/dev/null 2>&1
  $PY -c "import json,sys; r=json.load(open('$T/mp.json'))['rows'][0]; c=[c for c in r['candidates'] if c['name']=='onednn'][0]; sys.exit(not (c['status']=='ok' and c['check']['status']=='pass'))" \
    && ok "oneDNN max pooling runs and passes the oracle check" || bad "oneDNN max pooling candidate"
fi

# XNNPACK: its NHWC max pooling (f16, ceil_mode as extra bottom/right padding, dilation)
# runs on the adapter's tensors, transposed, and passes the oracle; a 3-d pool is refused
# with the reason. Skipped when nkl was built without it.
if grep -q 'without XNNPACK' "$T/r.json"; then
  skip "XNNPACK not built in: no XNNPACK candidate checked"
else
  "$NKL" bench --desc "MaxPool2dFwd dtype=f16 N=2 C=5 H_in=11 W_in=13 kernel_size=[3,3] stride=[2,2] padding=[1,1] dilation=[1,2] ceil_mode=true" \
    --baselines xnnpack --samples 2 --warmup 1 --json "$T/xmp.json" >/dev/null 2>&1
  $PY -c "import json,sys; r=json.load(open('$T/xmp.json'))['rows'][0]; c=[c for c in r['candidates'] if c['name']=='xnnpack_nhwc'][0]; sys.exit(not (c['status']=='ok' and c['check']['status']=='pass'))" \
    && ok "XNNPACK max pooling runs and passes the oracle check" || bad "XNNPACK max pooling candidate"
  "$NKL" bench --desc "MaxPool3dFwd dtype=f16 N=1 C=2 D_in=4 H_in=6 W_in=6 kernel_size=[2,2,2] stride=[2,2,2] padding=[0,0,0] dilation=[1,1,1] ceil_mode=false" \
    --baselines xnnpack --samples 2 --warmup 1 --json "$T/x3.json" >/dev/null 2>&1
  $PY -c "import json,sys; r=json.load(open('$T/x3.json'))['rows'][0]; c=[c for c in r['candidates'] if c['name']=='xnnpack_nhwc'][0]; sys.exit(not (c['status']=='unsupported' and '3-d' in c['reason']))" \
    && ok "XNNPACK refuses a 3-d pool with the reason" || bad "XNNPACK 3-d pool row"
fi

# report: files, one table per op, self-contained.
"$NKL" report "$T/r.json" -o "$T/out" >/dev/null 2>"$T/rep.err" && ok "report exits 0" || bad "report: $(cat "$T/rep.err")"
for f in index.html report.md results.json; do
  [ -s "$T/out/$f" ] && ok "report wrote $f" || bad "report did not write $f"
done
grep -q '<script src=\|<link rel="stylesheet"\|<img src="http' "$T/out/index.html" && bad "index.html loads external resources" || ok "index.html is self-contained"
grep -q '<svg' "$T/out/index.html" && ok "roofline SVG present" || bad "no roofline SVG"
expect_usage() { "$@" >/dev/null 2>&1; [ $? = 2 ] && ok "usage error exits 2: $*" || bad "usage error did not exit 2: $*"; }
expect_usage "$NKL" report
expect_usage "$NKL" report "$T/missing.json" -o "$T/x"

# A multi-op results file (synthetic rows for 3 ops) gives 3 tables.
$PY - "$T/r.json" "$T/multi.json" <<'PYEOF'
import copy, json, sys
d = json.load(open(sys.argv[1]))
r0 = d["rows"][0]
rows = []
for op, fam in (("LayerNormFwd", "norm"), ("Conv2dFwd", "conv"), ("MaxPool2dFwd", "pool")):
    for i in (1, 2):
        r = copy.deepcopy(r0); r["op"] = op; r["family"] = fam; r["id"] = "W%d" % i
        rows.append(r)
d["rows"] = rows
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$NKL" report "$T/multi.json" -o "$T/multi" >/dev/null 2>&1
n=$(grep -c '<table><tr><th>workload' "$T/multi/index.html")
[ "$n" = 3 ] && ok "one table per op (3)" || bad "expected 3 op tables, got $n"

# Headless Chromium: no console errors, 3 tables, a screenshot.
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
  skip "chromium not installed (scripts/setup-report.sh installs it): page not rendered"
else
  log=$(timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --screenshot="$T/shot.png" --window-size=1280,2000 "file://$T/multi/index.html" 2>&1)
  [ -s "$T/shot.png" ] && ok "chromium screenshot of the report" || bad "no screenshot: $(echo "$log" | tail -2)"
  echo "$log" | grep -q 'CONSOLE' && bad "console messages: $(echo "$log" | grep CONSOLE | head -2)" || ok "no console errors"
  dom=$(timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --dump-dom "file://$T/multi/index.html" 2>/dev/null)
  nt=$(echo "$dom" | grep -o '<table><tbody><tr><th>workload' | wc -l)
  [ "$nt" = 3 ] && ok "rendered DOM has the 3 op tables" || bad "rendered DOM has $nt op tables"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
