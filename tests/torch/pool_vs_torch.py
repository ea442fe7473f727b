#!/usr/bin/env python3
"""nkl's pools against PyTorch itself on random parameters (not part of `make test`: it needs
the PyTorch of `make report`'s .venv). Run: `make torch-check` or
    .venv/bin/python tests/torch/pool_vs_torch.py [--seed S] [--cases N] [--lib build/libnkl.so]

Each case draws a pool (max/avg 1-d, 2-d, 3-d; adaptive max/avg 2-d), a small N x C x spatial
input (1..13 per spatial dimension), kernel 1-5, stride 1-4, padding 0..k/2, dilation 1-3
(max), ceil_mode, count_include_pad, divisor_override (avg 2-d/3-d), a dtype (f32, f16,
bf16) and, for max pools, a few NaN, +-inf and signed zeros. It checks:
  - the output size: nkl_pool_output_size accepts exactly the shapes torch accepts (except
    the avg_pool3d inputs smaller than the kernel in some dimension, which torch rejects
    whatever the padding and nkl computes by the same window rules; counted, not failed);
  - the values: max pools exactly (NaN where torch has NaN), averages within the rounding
    of a sum of the window's values in a different order (f32: 2e-6 relative plus 2e-6 per
    tap over the divisor; f16/bf16: one unit of the output type).
Cases torch has no CPU kernel for (avg_pool3d in f16/bf16) are counted and skipped.
Prints one line per disagreement and a summary; exit status 1 on any disagreement."""
import ctypes as C
import random
import sys

import numpy as np
import torch
import torch.nn.functional as F

from nkl_ctypes import BF16, F16, F32, setup, tensor


class PoolParams(C.Structure):
    _fields_ = [("kernel_size", C.c_int64 * 3), ("stride", C.c_int64 * 3),
                ("padding", C.c_int64 * 3), ("dilation", C.c_int64 * 3), ("ceil_mode", C.c_int),
                ("count_include_pad", C.c_int), ("divisor_override", C.c_int64)]


DTYPES = {"f32": (F32, torch.float32), "f16": (F16, torch.float16),
          "bf16": (BF16, torch.bfloat16)}
RTOL = {"f32": 2e-6, "f16": 2 ** -10, "bf16": 2 ** -7}


def storage(x):
    """A torch tensor's values as a numpy array nkl reads (16-bit types as raw int16)."""
    return (x.numpy() if x.dtype == torch.float32 else x.view(torch.int16).numpy()).copy()


def values(y, tdt):
    return y if tdt == torch.float32 else torch.from_numpy(y).view(tdt).float().numpy()


def main():
    args, lib = setup(__doc__, 2000)
    rng = random.Random(args.seed)
    runs = bad = under_kernel = no_kernel = 0
    for case in range(args.cases):
        nd = rng.choice([1, 2, 3])
        kind = rng.choice(["max", "avg", "amax", "aavg"] if nd == 2 else ["max", "avg"])
        dt = rng.choice(list(DTYPES))
        ndt, tdt = DTYPES[dt]
        shp = [rng.randint(1, 3), rng.randint(1, 4)] + [rng.randint(1, 13) for _ in range(nd)]
        x = np.random.RandomState(args.seed * 100003 + case).randn(*shp).astype(np.float32)
        if kind in ("max", "amax") and rng.random() < 0.3:
            flat = x.reshape(-1)
            for _ in range(rng.randint(1, 3)):
                flat[rng.randrange(flat.size)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0])
        xt = torch.from_numpy(x).to(tdt)
        xs = storage(xt)
        if kind in ("amax", "aavg"):
            osz = [rng.randint(1, shp[2] + 2), rng.randint(1, shp[3] + 2)]
            desc = f"{dt} {kind}2d {shp} output_size={osz}"
            fn = F.adaptive_max_pool2d if kind == "amax" else F.adaptive_avg_pool2d
            ref = fn(xt, osz)
            ref = (ref[0] if isinstance(ref, tuple) else ref).float().numpy()
            y = np.zeros(ref.shape, xs.dtype)
            f = lib.nkl_adaptive_maxpool2d_fwd if kind == "amax" else lib.nkl_adaptive_avgpool2d_fwd
            st = f(C.byref(tensor(xs, ndt)), C.byref(tensor(y, ndt)))
            taps, div = shp[2] * shp[3], 1
        else:
            k = [rng.randint(1, 5) for _ in range(nd)]
            s = [rng.randint(1, 4) for _ in range(nd)]
            p = [rng.randint(0, kk // 2) for kk in k]
            d = [rng.randint(1, 3) if kind == "max" else 1 for _ in range(nd)]
            cm, cip = rng.random() < 0.5, rng.random() < 0.5
            dov = rng.choice([0, 0, 0, rng.randint(1, 11)]) if kind == "avg" and nd > 1 else 0
            desc = (f"{dt} {kind}{nd}d {shp} k={k} s={s} p={p} d={d} ceil={int(cm)} "
                    f"cip={int(cip)} div={dov}")
            try:
                if kind == "max":
                    fn = [None, F.max_pool1d, F.max_pool2d, F.max_pool3d][nd]
                    ref = fn(xt, k, s, p, d, ceil_mode=cm).float().numpy()
                else:
                    fn = [None, F.avg_pool1d, F.avg_pool2d, F.avg_pool3d][nd]
                    kw = dict(ceil_mode=cm, count_include_pad=cip)
                    if nd > 1:
                        kw["divisor_override"] = dov or None
                    ref = fn(xt, k, s, p, **kw).float().numpy()
            except RuntimeError as e:
                if "not implemented" in str(e):
                    no_kernel += 1
                    continue
                ref = None
            out, ok = [], True
            for i in range(nd):
                o = C.c_int64()
                if lib.nkl_pool_output_size(C.c_int64(shp[2 + i]), C.c_int64(k[i]), C.c_int64(s[i]),
                                            C.c_int64(p[i]), C.c_int64(d[i]), C.c_int(int(cm)),
                                            C.byref(o)):
                    ok = False
                    break
                out.append(o.value)
            if ref is None or not ok:
                if ref is None and ok and kind == "avg" and nd == 3 and any(
                        shp[2 + i] < k[i] for i in range(3)):
                    under_kernel += 1
                elif (ref is None) != (not ok):
                    print(f"VALIDITY {desc}: torch {'rejects' if ref is None else 'accepts'}, "
                          f"nkl {'accepts ' + str(out) if ok else 'rejects'}")
                    bad += 1
                continue
            if list(ref.shape[2:]) != out:
                print(f"SHAPE {desc}: torch {list(ref.shape[2:])}, nkl {out}")
                bad += 1
                continue
            prm = PoolParams(ceil_mode=int(cm), count_include_pad=int(cip), divisor_override=dov)
            for i in range(nd):
                prm.kernel_size[i], prm.stride[i] = k[i], s[i]
                prm.padding[i], prm.dilation[i] = p[i], d[i]
            y = np.zeros(ref.shape, xs.dtype)
            f = getattr(lib, f"nkl_{kind}pool{nd}d_fwd")
            st = f(C.byref(tensor(xs, ndt)), C.byref(prm), C.byref(tensor(y, ndt)))
            taps, div = int(np.prod(k)), (dov or 1)
        if st != 0:
            print(f"REFUSED {desc}: {lib.nkl_last_error().decode()}")
            bad += 1
            continue
        runs += 1
        got = values(y, tdt)
        if kind in ("max", "amax"):
            agree = (np.isnan(ref) & np.isnan(got)) | (ref == got)
        else:
            agree = (np.isnan(ref) & np.isnan(got)) | np.isclose(
                got, ref, rtol=RTOL[dt], atol=2e-6 * taps / div)
        if not agree.all():
            i = tuple(np.argwhere(~agree)[0])
            print(f"VALUE {desc}: at {i} nkl {got[i]!r} torch {ref[i]!r} "
                  f"({int((~agree).sum())} of {agree.size})")
            bad += 1
    print(f"pool_vs_torch: seed {args.seed}, torch {torch.__version__}: {runs} cases compared, "
          f"{bad} disagreements; skipped: {under_kernel} avg_pool3d inputs under the kernel "
          f"(torch rejects them), {no_kernel} with no torch CPU kernel")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
