#!/usr/bin/env python3
"""nkl's top-k selector against torch.topk on random rows (part of `make torch-check`, not of
`make test`: it needs the PyTorch of `make report`'s .venv). Run:
    .venv/bin/python tests/torch/topk_vs_torch.py [--seed S] [--cases N] [--lib build/libnkl.so]

Each case is a [1, S, n, 1] score tensor (S 1-6 rows, n from 1 to 5000, k from 1 to n, full
windows): normal scores, scores rounded to halves (many ties), or normal scores with NaN,
+-inf and signed zeros. The scores nkl selects must be torch.topk's values in the same order
(NaN ranks above +inf in both; -0 equals +0), and equal scores must come in ascending index
order (nkl's tie rule; torch's index order for ties is unspecified, so only values are
compared with it). Prints one line per disagreeing row and a summary; exit status 1 if any."""
import ctypes as C
import random
import sys

import numpy as np
import torch

from nkl_ctypes import F32, I32, setup, tensor


def main():
    args, lib = setup(__doc__, 400)
    lib.nkl_topk_selector_fwd.argtypes = [C.c_void_p, C.c_void_p, C.c_void_p, C.c_int64,
                                          C.c_void_p]
    rng = random.Random(args.seed)
    rows = bad = 0
    for case in range(args.cases):
        S, n = rng.randint(1, 6), rng.choice([1, 7, 16, 33, 100, 1000, 5000])
        k = rng.randint(1, n)
        x = np.random.RandomState(args.seed * 100003 + case).randn(1, S, n, 1).astype(np.float32)
        fill = rng.choice(["normal", "ties", "specials"])
        if fill == "ties":
            x = np.round(x * 2) / 2
        elif fill == "specials":
            flat = x.reshape(-1)
            for _ in range(rng.randint(1, 20)):
                flat[rng.randrange(flat.size)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0])
        starts = np.zeros((1, S), np.int32)
        ends = np.full((1, S), n, np.int32)
        out = np.zeros((1, S, 1, k), np.int32)
        st = lib.nkl_topk_selector_fwd(C.byref(tensor(x, F32)), C.byref(tensor(starts, I32)),
                                       C.byref(tensor(ends, I32)), k, C.byref(tensor(out, I32)))
        if st != 0:
            print(f"REFUSED S={S} n={n} k={k}: {lib.nkl_last_error().decode()}")
            bad += 1
            continue
        ref = torch.topk(torch.from_numpy(x[0, :, :, 0]), k, dim=1, sorted=True).values.numpy()
        for s in range(S):
            idx = out[0, s, 0]
            got = x[0, s, idx, 0]
            same = (np.isnan(got) & np.isnan(ref[s])) | (got == ref[s])
            tie = (got[:-1] == got[1:]) | (np.isnan(got[:-1]) & np.isnan(got[1:]))
            rows += 1
            if not same.all() or (tie & (idx[:-1] > idx[1:])).any():
                bad += 1
                print(f"ROW {fill} n={n} k={k} row {s}: nkl {got[:6]} torch {ref[s][:6]}")
    print(f"topk_vs_torch: seed {args.seed}, torch {torch.__version__}: {rows} rows compared, "
          f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
