"""The pieces of nkl's C API the tests/torch/ scripts call through ctypes: the library, and
nkl_tensor (include/nkl.h) over a contiguous numpy array."""
import argparse
import ctypes as C
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LIB = os.path.join(ROOT, "build", "libnkl.so")
F32, F16, BF16, I32 = 0, 1, 2, 5  # nkl_dtype


class Tensor(C.Structure):
    _fields_ = [("dtype", C.c_int), ("rank", C.c_int), ("shape", C.c_int64 * 8),
                ("strides", C.c_int64 * 8), ("data", C.c_void_p)]


def tensor(a, dtype):
    """An nkl_tensor over the contiguous numpy array a (which must outlive it)."""
    t = Tensor(dtype=dtype, rank=a.ndim)
    step = 1
    for i in range(a.ndim - 1, -1, -1):
        t.shape[i], t.strides[i] = a.shape[i], step
        step *= a.shape[i]
    t.data = a.ctypes.data
    return t


def load(path):
    lib = C.CDLL(path)
    lib.nkl_last_error.restype = C.c_char_p
    return lib


def setup(doc, cases):
    """The command line every script takes (--seed, --cases, --lib), and the library."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=cases)
    ap.add_argument("--lib", default=DEFAULT_LIB)
    args = ap.parse_args()
    return args, load(args.lib)
