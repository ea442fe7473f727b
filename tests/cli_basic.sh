#!/usr/bin/env bash
# The nkl command end to end: catalog size, check on the implemented row norms under every
# ISA cap this CPU has, SKIP (never PASS) for unimplemented ops, exit 2 on bad input, the
# NKL_CPU_TUNING values.
# Usage: cli_basic.sh path/to/nkl source_dir
set -u
NKL=$1
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
expect() { # name, expected exit status, command...
  local name=$1 want=$2
  shift 2
  out=$("$@" 2>&1)
  local got=$?
  if [ "$got" = "$want" ]; then ok "$name"; else bad "$name (exit $got, want $want): $(echo "$out" | tail -2)"; fi
}

n=$("$NKL" list --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d), len({r["op"] for r in d}), all(set(r)>={"op","id","family","dtype","label","descriptor"} for r in d))')
[ "$n" = "414 45 True" ] && ok "list --json: 414 workloads, 45 ops, all keys" || bad "list --json gave '$n'"

cpu_isa=$("$NKL" info | sed -n 's/^isa: cpu \([a-z0-9]*\),.*/\1/p')
for isa in scalar avx2 avx512 avx512bf16; do
  for op in RMSNormFwd LayerNormFwd; do
    last=$(NKL_MAX_ISA=$isa "$NKL" check --op $op | tail -1)
    [ "$last" = "9 passed, 0 failed, 0 skipped" ] && ok "check $op NKL_MAX_ISA=$isa" || bad "check $op NKL_MAX_ISA=$isa: $last"
  done
  [ "$isa" = "$cpu_isa" ] && break
done
kern=$(NKL_MAX_ISA=scalar NKL_VERBOSE=1 "$NKL" check --op RMSNormFwd --id W7 2>&1 | grep -c '__scalar')
[ "$kern" -ge 1 ] && ok "NKL_MAX_ISA=scalar runs the scalar kernel" || bad "scalar kernel not used"

last=$("$NKL" check --family conv | tail -1)
[ "$last" = "0 passed, 0 failed, 208 skipped" ] && ok "unimplemented ops are SKIP" || bad "conv family: $last"
"$NKL" check --family conv | grep -q '^PASS' && bad "an unimplemented op PASSed" || ok "no PASS without an implementation"

expect "garbage descriptor exits 2" 2 "$NKL" check --desc "garbage [[["
expect "unknown op exits 2" 2 "$NKL" check --op NoSuchOp
expect "unknown key exits 2" 2 "$NKL" check --desc "RMSNormFwd dtype=f32 x=[3,5] typo=1"
# --id: Op:W8 and Op/W8 select one workload; a selection that matches nothing says why
n=$("$NKL" list --id RMSNormFwd/W2 | wc -l)
[ "$n" = 1 ] && ok "--id Op/W2 selects one workload" || bad "--id RMSNormFwd/W2 listed $n"
expect_msg() { # name, message fragment, command...
  local name=$1 want=$2
  shift 2
  out=$("$@" 2>&1)
  local got=$?
  if [ "$got" = 2 ] && echo "$out" | grep -qF -- "$want"; then ok "$name"; else bad "$name (exit $got): $out"; fi
}
expect_msg "unknown id named with the id syntax" "no workload RMSNormFwd:W99 (ids are W1, W2" \
  "$NKL" list --id RMSNormFwd:W99
expect_msg "--op and --id naming different ops" "--op RMSNormFwd and --id LayerNormFwd:W1 name different ops" \
  "$NKL" check --op RMSNormFwd --id LayerNormFwd:W1
expect_msg "op outside --family" "op RMSNormFwd is in family norm, not pool" \
  "$NKL" bench --op RMSNormFwd --family pool --baselines none
expect "bad dtype exits 2" 2 "$NKL" check --desc "RMSNormFwd dtype=f64 x=[3,5]"
expect "unknown option exits 2" 2 "$NKL" bench --frobnicate
expect "unknown command exits 2" 2 "$NKL" frobnicate
expect "desc check passes" 0 "$NKL" check --desc "LayerNormFwd dtype=bf16 x=[3,4,17] eps=1e-3"
msg=$("$NKL" check --desc "garbage [[[" 2>&1 | wc -l)
[ "$msg" = "1" ] && ok "bad descriptor: one-line message" || bad "bad descriptor printed $msg lines"
for c in list check bench info; do expect "$c --help" 0 "$NKL" $c --help; done
# NKL_CPU_TUNING: each known value taken silently and the backward checked under it (zen1: dx
# stored normally; intel/other: streamed once the call exceeds the LLC share, here forced by
# NKL_STREAM_MIN_BYTES); an unknown value is named on stderr and ignored.
for t in intel zen1 other; do
  out=$(NKL_CPU_TUNING=$t NKL_STREAM_MIN_BYTES=1 "$NKL" check --op RMSNormBwd --id W9 2>&1)
  if echo "$out" | grep -q "ignoring NKL_CPU_TUNING"; then
    bad "NKL_CPU_TUNING=$t warned"
  else
    [ "$(echo "$out" | tail -1)" = "1 passed, 0 failed, 0 skipped" ] && ok "RMSNormBwd W9 under NKL_CPU_TUNING=$t" ||
      bad "RMSNormBwd W9 under NKL_CPU_TUNING=$t: $(echo "$out" | tail -1)"
  fi
done
NKL_CPU_TUNING=bogus "$NKL" check --op RMSNormBwd --id W7 2>&1 | grep -q "ignoring NKL_CPU_TUNING=bogus (use intel|zen1|other)" &&
  ok "unknown NKL_CPU_TUNING named" || bad "unknown NKL_CPU_TUNING not reported"
out=$("$NKL" bench --desc "RMSNormFwd dtype=bf16 x=[4,4096]" --samples 4 --warmup 2 --json /tmp/nkl_cli_bench.$$.json)
python3 -c "import json; d=json.load(open('/tmp/nkl_cli_bench.$$.json')); r=d['rows'][0]; assert r['ours']['median_ms']>0 and len(r['ours']['samples_ms'])==4" \
  && ok "bench --json writes samples" || bad "bench --json: $out"
rm -f /tmp/nkl_cli_bench.$$.json
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
