"""Worker process of nkl bench for the PyTorch candidates (bench/baselines/torch_worker.c).

Reads one JSON request per line on stdin, answers one JSON line on stdout. Runs the
programs of torch_programs.py eagerly and through torch.compile (Inductor, CPU) with the
protocol of tools/nkl/timing.c: the same warm-up count, timed samples with the last-level
cache evicted before each (a 4x-LLC buffer read, one byte per 64-byte line), calls
under 20 us batched, calls over 100 ms get a bounded run (nkl decides the sample count: timing.h), and the thread
count nkl uses (torch.set_num_threads). Inputs are the files nkl wrote (memory-mapped);
inputs nkl did not provide (ops without a C-side case) are generated here, seeded.
Compilation is untimed and cached on disk (TORCHINDUCTOR_CACHE_DIR).
"""
import json
import math
import os
import sys
import time
import traceback

_out = sys.stdout
sys.stdout = sys.stderr  # stray prints from libraries must not corrupt the protocol

BATCH_BELOW_MS, BATCH_TARGET_MS, SLOW_MS = 0.020, 0.5, 100.0
COLD_PROBES = 3  # evicted calls deciding the batch length in cold mode (timing.c)
MAX_INPUT_GB = float(os.environ.get("NKL_TORCH_MAX_GB", "4"))


def reply(obj):
    _out.write(json.dumps(obj) + "\n")
    _out.flush()


def parse_descriptor(s):
    toks = s.split()
    p = {}
    for t in toks[1:]:
        k, _, v = t.partition("=")
        if v.startswith("["):
            p[k] = [int(x) if x.lstrip("-").isdigit() else float(x) for x in v[1:-1].split(",") if x]
        elif v in ("true", "false"):
            p[k] = v == "true"
        else:
            try:
                p[k] = int(v)
            except ValueError:
                try:
                    p[k] = float(v)
                except ValueError:
                    p[k] = v
    return toks[0], p


class State:
    torch = None
    evict = None
    evict_sink = 0
    wake = None
    row = None


def now_ms():
    return time.perf_counter() * 1e3


def dtypes(torch):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
            "fp8e4m3": torch.float8_e4m3fn, "i8": torch.int8, "i32": torch.int32}


def load_tensor(torch, np, spec):
    dt = dtypes(torch)[spec["dtype"]]
    shape = [int(x) for x in spec["shape"]]
    raw = {torch.float32: np.float32, torch.float16: np.float16, torch.bfloat16: np.uint16,
           torch.float8_e4m3fn: np.uint8, torch.int8: np.int8, torch.int32: np.int32}[dt]
    a = np.memmap(spec["path"], dtype=raw, mode="c", shape=tuple(shape) if shape else (1,))
    src = torch.from_numpy(a)
    if dt in (torch.bfloat16, torch.float8_e4m3fn):
        src = src.view(dt)
    # A copy in memory PyTorch allocates: with THP_MEM_ALLOC_ENABLE (set before the import)
    # tensors of 2 MiB or more sit on huge pages, as nkl's and oneDNN's buffers do (see
    # case_alloc in tools/nkl/adapter.c); the file mapping would be 4 KiB pages.
    t = torch.empty(src.shape, dtype=dt)
    t.copy_(src)
    del src, a
    return t.reshape(shape)


def generate(torch, name, shape, dt, kind, seed, have):
    g = torch.Generator().manual_seed(seed)
    if kind == "normal":
        return torch.randn(shape, generator=g, dtype=torch.float32).to(dt)
    if kind == "normal0.1":
        return (0.1 * torch.randn(shape, generator=g)).to(dt)
    if kind == "uniform0.5-1.5":
        return (0.5 + torch.rand(shape, generator=g)).to(dt)
    if kind == "zeros":
        return torch.zeros(shape, dtype=dt)
    if kind == "ones":
        return torch.ones(shape, dtype=dt)
    if kind == "unit":
        v = torch.randn(shape, generator=g)
        return (v / v.norm()).to(dt)
    if kind.startswith("const:"):
        return torch.full(shape, int(kind[6:]), dtype=dt)
    src = have[kind.split(":")[1]].float()
    if kind.startswith("rowmean"):
        return src.reshape(-1, src.shape[-1]).mean(-1).to(dt)
    if kind.startswith("rowrstd_ln"):
        return torch.rsqrt(src.reshape(-1, src.shape[-1]).var(-1, unbiased=False) + 1e-5).to(dt)
    if kind.startswith("rowrstd_rms"):
        return torch.rsqrt(src.reshape(-1, src.shape[-1]).pow(2).mean(-1) + 1e-6).to(dt)
    if kind.startswith("chan"):
        x = src.transpose(0, 1).reshape(src.shape[1], -1)
        return (x.mean(-1) if "mean" in kind else torch.rsqrt(x.var(-1, unbiased=False) + 1e-5)).to(dt)
    if kind.startswith("group"):
        gcount = int(kind.split(":")[2])
        x = src.reshape(src.shape[0], gcount, -1)
        return (x.mean(-1) if "mean" in kind else torch.rsqrt(x.var(-1, unbiased=False) + 1e-5)).to(dt)
    raise ValueError("unknown input kind " + kind)


def evict():
    b = State.evict
    if b is not None:
        # Read one byte per 64-byte line (no writes: dirty lines left behind would be written
        # back during the next timed call). int() forces the reduction to run.
        State.evict_sink = int(b[::64].sum())
    # Wake torch's intra-op threads after the single-threaded eviction (as timing.c does for
    # nkl's): a small parallel reduction.
    if State.wake is not None:
        State.wake.sum()


def do_hello(req):
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", req["cache_dir"])
    # PyTorch's CPU allocator puts tensors of 2 MiB or more on transparent huge pages with
    # this set (read by c10 when it allocates): the page size nkl's buffers have.
    os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    try:
        import numpy as np
        import torch
    except Exception as e:  # noqa: BLE001
        return {"error": "cannot import torch/numpy: %s" % e}
    State.torch, State.np = torch, np
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_programs  # noqa: F401
    State.programs = torch_programs.PROGRAMS
    n = max(int(req["llc_bytes"]) * 4, 64 << 20)
    State.evict = np.ones(n, dtype=np.uint8)
    State.wake = torch.ones(1 << 16)  # 256 KiB, above the parallel grain size
    compile_ok = hasattr(torch, "compile") and int(torch.__version__.split(".")[0]) >= 2
    if compile_ok:
        # Every workload compiles the same lambda's code object with new shapes/dtypes; past
        # Dynamo's default limit (8) it would silently fall back to eager for later rows.
        for knob in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit"):
            if hasattr(torch._dynamo.config, knob):
                setattr(torch._dynamo.config, knob, 100000)
    return {"torch": torch.__version__, "compile": compile_ok}


def tier_fn(torch, prog, tensors, p, tier):
    def call():
        out = prog(tensors, p)
        return out
    if tier == "eager":
        return call
    return torch.compile(lambda t: prog(t, p), dynamic=False)


def do_setup(req):
    torch = State.torch
    op, p = parse_descriptor(req["descriptor"])
    torch.set_num_threads(int(req["threads"]))
    res = {"tiers": {}}
    if op not in State.programs:
        for t in ("eager", "compile"):
            res["tiers"][t] = {"status": "unsupported", "reason": "no PyTorch program for %s" % op}
        return res
    inputs_fn, prog = State.programs[op]
    dt = dtypes(torch)[p.get("dtype", "f32")]
    specs = inputs_fn(p, dt)
    total = sum(math.prod(s) * torch.empty((), dtype=d).element_size() for s, d, _ in specs.values())
    if total > MAX_INPUT_GB * 2**30:
        why = "inputs of %.1f GiB exceed the runner's budget of %g GiB (NKL_TORCH_MAX_GB)" % (total / 2**30, MAX_INPUT_GB)
        for t in ("eager", "compile"):
            res["tiers"][t] = {"status": "unavailable", "reason": why}
        return res
    given = {s["name"]: s for s in req["tensors"] if not s["output"]}
    tensors, generated = {}, []
    for i, (name, (shape, d, kind)) in enumerate(specs.items()):
        if name in given:
            tensors[name] = load_tensor(torch, State.np, given[name])
        else:
            tensors[name] = generate(torch, name, tuple(shape), d, kind, 1000 + i, tensors)
            generated.append(name)
    # Inputs the C case has that the program does not know are ignored (e.g. stats outputs).
    State.row = {"op": op, "p": p, "tensors": tensors, "prog": prog, "fns": {}, "outputs": {
        s["name"]: s for s in req["tensors"] if s["output"]}}
    note = "inputs generated by the runner (no C-side case): " + ", ".join(generated) if generated and given else (
        "inputs generated by the runner (no C-side case)" if generated else "nkl's inputs")
    for tier in ("eager", "compile"):
        if tier == "compile" and not req.get("compile", True):
            res["tiers"][tier] = {"status": "unavailable", "reason": "torch.compile needs PyTorch 2.x (Debian's 1.13 fallback)"}
            continue
        t0 = now_ms()
        try:
            with torch.no_grad():
                fn = tier_fn(torch, prog, tensors, p, tier)
                out = fn() if tier == "eager" else fn(tensors)  # compilation happens here (untimed)
            State.row["fns"][tier] = fn
            label = ("eager, " if tier == "eager" else "Inductor, dynamic=False, ") + note
            res["tiers"][tier] = {"status": "ok", "setup_ms": now_ms() - t0, "label": label[:95]}
        except Exception as e:  # noqa: BLE001
            msg = str(e).strip().splitlines()
            msg = msg[0] if msg else type(e).__name__
            kind = "unsupported" if isinstance(e, (NotImplementedError, RuntimeError, TypeError)) else "error"
            res["tiers"][tier] = {"status": kind, "reason": ("%s: %s" % (type(e).__name__, msg))[:230]}
    return res


def call_tier(tier):
    fn = State.row["fns"][tier]
    if tier == "eager":
        return fn()
    return fn(State.row["tensors"])


def do_warmup(req):
    torch = State.torch
    tier = req["tier"]
    est = []
    reduced = False
    with torch.no_grad():
        for _ in range(int(req["warmup"])):
            t0 = now_ms()
            call_tier(tier)
            est.append(now_ms() - t0)
            if est[0] > SLOW_MS and (len(est) >= 2 or est[0] > 1000.0):
                reduced = True
                break
    State.row["reduced_" + tier] = reduced
    typical = sorted(est)[len(est) // 2] if est else 1.0
    # As timing.c: in cold mode the batching decision follows evicted calls, the kind of
    # call that is timed, not the hot warm-up calls.
    probe = typical
    if not req.get("warm") and not reduced and typical < 1.0:
        cold = []
        with torch.no_grad():
            for _ in range(COLD_PROBES):
                evict()
                t0 = now_ms()
                call_tier(tier)
                cold.append(now_ms() - t0)
        probe = sorted(cold)[len(cold) // 2]
    batch = 1
    if probe < BATCH_BELOW_MS:
        batch = min(10000, int(math.ceil(BATCH_TARGET_MS / max(probe, 1e-5))))
    return {"batch": batch, "warmup": len(est), "reduced": reduced, "typical_ms": typical}


def do_samples(req):
    torch = State.torch
    tier, batch = req["tier"], int(req["batch"])
    ms = []
    out = None
    with torch.no_grad():
        for _ in range(int(req["count"])):
            if not req.get("warm"):
                evict()
            t0 = now_ms()
            for _ in range(batch):
                out = call_tier(tier)
            ms.append((now_ms() - t0) / batch)
    if out is not None:
        State.row.setdefault("last_out", {})[tier] = out  # what "output" returns: no extra call
    return {"ms": ms}


def do_output(req):
    torch = State.torch
    tier = req["tier"]
    out = State.row.get("last_out", {}).get(tier)
    if out is None:
        with torch.no_grad():
            out = call_tier(tier)
    written, missing = {}, []
    for name, spec in State.row["outputs"].items():
        if name not in out:
            missing.append(name)
            continue
        t = out[name].contiguous()
        want = dtypes(torch)[spec["dtype"]]
        if t.dtype != want:
            t = t.to(want)
        if list(t.shape) != [int(x) for x in spec["shape"]] and t.numel() != math.prod(int(x) for x in spec["shape"]):
            missing.append(name + " (shape %s)" % list(t.shape))
            continue
        path = spec["path"] + "." + tier
        raw = t.view(torch.uint16) if t.dtype == torch.bfloat16 else (
            t.view(torch.uint8) if t.dtype == torch.float8_e4m3fn else t)
        raw.numpy().tofile(path)
        written[name] = path
    return {"outputs": written, "missing": ", ".join(missing)}


def main():
    handlers = {"hello": do_hello, "setup": do_setup, "warmup": do_warmup, "samples": do_samples,
                "output": do_output}
    for line in sys.stdin:
        req = json.loads(line)
        cmd = req.get("cmd")
        if cmd == "quit":
            reply({"ok": True})
            return
        if cmd == "release":
            State.row = None
            reply({"ok": True})
            continue
        try:
            reply(handlers[cmd](req))
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            reply({"error": "%s: %s" % (type(e).__name__, e)})


if __name__ == "__main__":
    main()
