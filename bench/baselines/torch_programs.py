"""The PyTorch program of every nkl operator (../../../shared/spec/operators.md), one
function per op, plus the inputs each one takes.

Each entry of PROGRAMS maps an op name to (inputs, program):
  inputs(p, dt) -> {name: (shape, dtype, kind)}   the named input tensors (names as in the
                   C adapters; nkl bench passes its own tensors under these names, and the
                   runner generates the rest, seeded); kind: "normal", "uniform", "zeros",
                   "ones", "int", "rstd"...
  program(t, p) -> {name: tensor}                   the outputs, named as in the C adapters.
`p` holds the descriptor's parameters (ints, floats, bools, lists, names), `dt` the torch
dtype of dtype=. The same function is run eagerly ("PyTorch eager") and through
torch.compile ("torch.compile", Inductor). Statistics are f32; math in f32 for half types.
"""
import math

import torch
import torch.nn.functional as F

F32 = torch.float32


def _mn(p):
    x = p["x"]
    n = x[-1]
    return math.prod(x[:-1]), n


# ---- row norms ------------------------------------------------------------------------

def _in_rownorm(extra=()):
    def inputs(p, dt):
        x = tuple(p["x"])
        n = x[-1]
        d = {"x": (x, dt, "normal")}
        if p.get("affine", True):
            d["weight"] = ((n,), dt, "normal")
            if "bias" in extra:
                d["bias"] = ((n,), dt, "normal")
        if "residual" in extra:
            d["residual"] = (x, dt, "normal")
        return d
    return inputs


def rmsnorm(t, p):
    x = t["x"]
    return {"y": F.rms_norm(x, (x.shape[-1],), t.get("weight"), p.get("eps", 1e-6))}


def gemma_rmsnorm(t, p):
    x = t["x"].float()
    y = F.rms_norm(x, (x.shape[-1],), None, p.get("eps", 1e-6)) * (1.0 + t["weight"].float())
    return {"y": y.to(t["x"].dtype)}


def layernorm(t, p):
    x = t["x"]
    return {"y": F.layer_norm(x, (x.shape[-1],), t.get("weight"), t.get("bias"), p.get("eps", 1e-5))}


def ada_layernorm(t, p):
    x = t["x"]
    y = t["scale"].float() * F.layer_norm(x.float(), (x.shape[-1],), eps=p.get("eps", 1e-5)) + t["shift"].float()
    return {"y": y.to(x.dtype)}


def fused_add_rmsnorm(t, p):
    r = t["x"] + t["residual"]
    return {"y": F.rms_norm(r, (r.shape[-1],), t.get("weight"), p.get("eps", 1e-6)), "residual_out": r}


def fused_add_layernorm(t, p):
    r = t["x"] + t["residual"]
    return {"y": F.layer_norm(r, (r.shape[-1],), t.get("weight"), t.get("bias"), p.get("eps", 1e-5)),
            "residual_out": r}


def qknorm(t, p):
    eps = p.get("eps", 1e-6)
    q, k = t["q"], t["k"]
    return {"q_out": F.rms_norm(q, (q.shape[-1],), t["q_weight"], eps),
            "k_out": F.rms_norm(k, (k.shape[-1],), t["k_weight"], eps)}


def group_rmsnorm(t, p):
    x = t["x"].float()
    rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + p.get("eps", 1e-6))
    return {"y": (x * rstd * t["weight"].float()).to(t["x"].dtype), "rstd": rstd.squeeze(-1)}


def _quant(y):
    scale = y.abs().amax(-1, keepdim=True).clamp_min(1e-12) / 448.0
    q = (y / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
    return {"q": q, "scale": scale.squeeze(-1)}


def rmsnorm_quant(t, p):
    x = t["x"].float()
    return _quant(F.rms_norm(x, (x.shape[-1],), None, p.get("eps", 1e-6)) * t["weight"].float())


def layernorm_quant(t, p):
    x = t["x"].float()
    y = F.layer_norm(x, (x.shape[-1],), t["weight"].float(), t["bias"].float(), p.get("eps", 1e-5))
    return _quant(y)


def rmsnorm_bwd(t, p):
    x, dy, w, rstd = t["x"].float(), t["dy"].float(), t["weight"].float(), t["rstd"].unsqueeze(-1)
    z = x * rstd
    g = dy * w
    dx = rstd * (g - z * (g * z).mean(-1, keepdim=True))
    dw = (dy * z).reshape(-1, x.shape[-1]).sum(0)
    return {"dx": dx.to(t["x"].dtype), "dw": dw.to(t["x"].dtype)}


def layernorm_bwd(t, p):
    x = t["x"]
    n = x.shape[-1]
    # PyTorch's CPU kernel takes the saved statistics in x's dtype (as its autograd does).
    mean = t["mean"].reshape(*x.shape[:-1], 1).to(x.dtype)
    rstd = t["rstd"].reshape(*x.shape[:-1], 1).to(x.dtype)
    dx, dw, db = torch.ops.aten.native_layer_norm_backward(
        t["dy"], x, [n], mean, rstd, t["weight"], t["bias"], [True, True, True])
    return {"dx": dx, "dw": dw, "db": db}


def _in_rownorm_bwd(with_mean):
    def inputs(p, dt):
        x = tuple(p["x"])
        m, n = math.prod(x[:-1]), x[-1]
        d = {"x": (x, dt, "normal"), "dy": (x, dt, "normal"), "weight": ((n,), dt, "normal")}
        if with_mean:
            d["bias"] = ((n,), dt, "normal")
            d["mean"] = ((m,), F32, "rowmean:x")
            d["rstd"] = ((m,), F32, "rowrstd_ln:x")
        else:
            d["rstd"] = ((m,), F32, "rowrstd_rms:x")
        return d
    return inputs


def weight_norm(t, p):
    v = t["v"].float()
    norm = v.pow(2).sum(-1).sqrt()
    out = v * (t["g"].float() / norm).unsqueeze(-1)
    return {"out": out.to(t["v"].dtype), "norm": norm}


def spectral_norm(t, p):
    w = t["weight"].float()
    eps = 1e-12
    v = F.normalize(w.t() @ t["u"], dim=0, eps=eps)
    wv = w @ v
    u = F.normalize(wv, dim=0, eps=eps)
    return {"sigma": torch.dot(u, wv).reshape(()), "u_out": u, "v_out": v}


def _vector_norm(order):
    def prog(t, p):
        x = t["x"]
        dim = p.get("dim")
        return {"y": torch.linalg.vector_norm(x, order, dim=dim, dtype=F32).to(x.dtype)}
    return prog


# ---- batch / group / instance norm ---------------------------------------------------

def _in_bn(kind):
    def inputs(p, dt):
        x = tuple(p["x"])
        c = x[1]
        d = {"x": (x, dt, "normal")}
        if kind == "bwd":
            d["dy"] = (x, dt, "normal")
            d["weight"] = ((c,), F32, "normal")
            d["mean"] = ((c,), F32, "chanmean:x")
            d["rstd"] = ((c,), F32, "chanrstd:x")
            return d
        d["weight"] = ((c,), F32, "normal")
        d["bias"] = ((c,), F32, "normal")
        if kind == "train":
            d["running_mean"] = ((c,), F32, "zeros")
            d["running_var"] = ((c,), F32, "ones")
        else:
            d["running_mean"] = ((c,), F32, "normal0.1")
            d["running_var"] = ((c,), F32, "uniform0.5-1.5")
        return d
    return inputs


def batchnorm_train(t, p):
    x = t["x"]
    y = F.batch_norm(x, t["running_mean"], t["running_var"], t["weight"], t["bias"], True, 0.1,
                     p.get("eps", 1e-5))
    return {"y": y}


def batchnorm_infer(t, p):
    x = t["x"]
    y = F.batch_norm(x, t["running_mean"], t["running_var"], t["weight"], t["bias"], False, 0.1,
                     p.get("eps", 1e-5))
    return {"y": y}


def batchnorm_bwd(t, p):
    dx, dw, db = torch.ops.aten.native_batch_norm_backward(
        t["dy"], t["x"], t["weight"], None, None, t["mean"], t["rstd"], True, p.get("eps", 1e-5),
        [True, True, True])
    return {"dx": dx, "dw": dw, "db": db}


def _in_gn(bwd, instance=False):
    def inputs(p, dt):
        x = tuple(p["x"])
        c = x[1]
        d = {"x": (x, dt, "normal")}
        if bwd:
            d["dy"] = (x, dt, "normal")
        if "weight" in p:
            d["weight"] = ((c,), dt, "normal")
            d["bias"] = ((c,), dt, "normal")
        if "running_mean" in p:
            d["running_mean"] = ((c,), F32, "normal0.1")
            d["running_var"] = ((c,), F32, "uniform0.5-1.5")
        if bwd and "running_mean" not in p:
            g = c if instance else p["num_groups"]
            d["mean"] = ((x[0], g), F32, "groupmean:x:%d" % g)
            d["rstd"] = ((x[0], g), F32, "grouprstd:x:%d" % g)
        return d
    return inputs


def groupnorm(t, p):
    x = t["x"]
    return {"y": F.group_norm(x, p["num_groups"], t.get("weight"), t.get("bias"), p.get("eps", 1e-5))}


def _gn_bwd(t, g):
    x = t["x"]
    n, c = x.shape[0], x.shape[1]
    hw = x[0, 0].numel()
    w = t.get("weight")
    if w is None:
        w = torch.ones(c, dtype=x.dtype)
    # PyTorch keeps the saved statistics in x's dtype (what its own autograd passes here).
    dx, dw, db = torch.ops.aten.native_group_norm_backward(
        t["dy"], x, t["mean"].to(x.dtype), t["rstd"].to(x.dtype), w, n, c, hw, g, [True, True, True])
    return {"dx": dx, "dw": dw, "db": db}


def groupnorm_bwd(t, p):
    return _gn_bwd(t, p["num_groups"])


def instancenorm(t, p):
    x = t["x"]
    running = "running_mean" in t
    y = F.instance_norm(x, t.get("running_mean"), t.get("running_var"), t.get("weight"), t.get("bias"),
                        use_input_stats=not running, momentum=0.1, eps=p.get("eps", 1e-5))
    return {"y": y}


def instancenorm_bwd(t, p):
    x = t["x"]
    if "running_var" in t:
        shape = (1, -1) + (1,) * (x.dim() - 2)
        rstd = torch.rsqrt(t["running_var"] + p.get("eps", 1e-5)).reshape(shape)
        w = t["weight"].float().reshape(shape) if "weight" in t else 1.0
        return {"dx": (t["dy"].float() * w * rstd).to(x.dtype)}
    return _gn_bwd(t, x.shape[1])


# ---- convolution ---------------------------------------------------------------------

def _conv_geom(p, nd):
    def lst(k, default):
        v = p.get(k, default)
        return list(v) if isinstance(v, list) else [v] * nd
    ks = [p["kW"]] if nd == 1 else ([p["kH"], p["kW"]] if nd == 2 else [p["kD"], p["kH"], p["kW"]])
    return ks, lst("stride", 1), lst("padding", 0), lst("dilation", 1), p.get("groups", 1)


def _in_conv(nd, kind="fwd"):
    def inputs(p, dt):
        ks, s, pad, dil, g = _conv_geom(p, nd)
        n, cin, cout = p["N"], p["C_in"], p["C_out"]
        if kind == "transpose":
            osp = [p["out_H"], p["out_W"]]
            d = {"x": ((n, cout) + tuple(osp), dt, "normal"),
                 "weight": ((cout, cin // g) + tuple(ks), dt, "normal")}
            if p.get("bias", 0):
                d["bias"] = ((cin,), dt, "normal")
            return d
        sp = [p["L_in"]] if nd == 1 else ([p["H"], p["W"]] if nd == 2 else [p["D"], p["H"], p["W"]])
        if p.get("_causal"):
            pad = [0]
        osp = [(sp[i] + 2 * pad[i] - dil[i] * (ks[i] - 1) - 1) // s[i] + 1 for i in range(nd)]
        if p.get("_causal"):
            osp = [(sp[0] - 1) // s[0] + 1]
        wshape = (cout, cin // g) + tuple(ks)
        if kind == "dgrad":
            return {"dy": ((n, cout) + tuple(osp), dt, "normal"), "weight": (wshape, dt, "normal")}
        if kind == "wgrad":
            return {"x": ((n, cin) + tuple(sp), dt, "normal"), "dy": ((n, cout) + tuple(osp), dt, "normal")}
        d = {"x": ((n, cin) + tuple(sp), dt, "normal"), "weight": (wshape, dt, "normal")}
        if p.get("bias", 0):
            d["bias"] = ((cout,), dt, "normal")
        return d
    return inputs


def _conv(nd):
    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]

    def prog(t, p):
        _, s, pad, dil, g = _conv_geom(p, nd)
        return {"y": fn(t["x"], t["weight"], t.get("bias"), s, pad, dil, g)}
    return prog


def conv2d_bias_relu(t, p):
    return {"y": torch.relu(_conv(2)(t, p)["y"])}


def conv1d_causal(t, p):
    ks, s, _, dil, g = _conv_geom(p, 1)
    x = F.pad(t["x"], (dil[0] * (ks[0] - 1), 0))
    return {"y": F.conv1d(x, t["weight"], t.get("bias"), s, 0, dil, g)}


def conv2d_fp8(t, p):
    _, s, pad, dil, g = _conv_geom(p, 2)
    y = F.conv2d(t["x"].float(), t["weight"].float(), None, s, pad, dil, g)
    return {"y": y.to(torch.float16)}


def conv2d_dgrad(t, p):
    _, s, pad, dil, g = _conv_geom(p, 2)
    n, cin, h, w = p["N"], p["C_in"], p["H"], p["W"]
    dx = torch.nn.grad.conv2d_input((n, cin, h, w), t["weight"], t["dy"], s, pad, dil, g)
    return {"dx": dx}


def conv2d_wgrad(t, p):
    ks, s, pad, dil, g = _conv_geom(p, 2)
    wshape = (p["C_out"], p["C_in"] // g) + tuple(ks)
    return {"dw": torch.nn.grad.conv2d_weight(t["x"], wshape, t["dy"], s, pad, dil, g)}


def conv2d_transpose(t, p):
    _, s, pad, dil, g = _conv_geom(p, 2)
    # output_padding 0 (chosen): the descriptor does not name the donor's input size.
    return {"y": F.conv_transpose2d(t["x"], t["weight"], t.get("bias"), s, pad, 0, g, dil)}


# ---- pooling -------------------------------------------------------------------------

def _in_pool(nd):
    def inputs(p, dt):
        sp = [p["L_in"]] if nd == 1 else ([p["H_in"], p["W_in"]] if nd == 2 else [p["D_in"], p["H_in"], p["W_in"]])
        return {"x": ((p["N"], p["C"]) + tuple(sp), dt, "normal")}
    return inputs


def _avgpool(nd):
    fn = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[nd]

    def prog(t, p):
        k = p["kernel_size"]
        return {"y": fn(t["x"], k, p.get("stride", k), p.get("padding", 0), p.get("ceil_mode", False),
                        p.get("count_include_pad", True))}
    return prog


def _maxpool(nd):
    fn = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[nd]

    def prog(t, p):
        k = p["kernel_size"]
        return {"y": fn(t["x"], k, p.get("stride", k), p.get("padding", 0), p.get("dilation", 1),
                        p.get("ceil_mode", False))}
    return prog


def adaptive_avg(t, p):
    return {"y": F.adaptive_avg_pool2d(t["x"], p["output_size"])}


def adaptive_max(t, p):
    return {"y": F.adaptive_max_pool2d(t["x"], p["output_size"])}


# ---- top-k ---------------------------------------------------------------------------

def _in_topk(p, dt):
    b, s, skv, g = p["batch"], p["seq_len"], p["seq_len_kv"], p["kv_group"]
    return {"index_score": ((b, s, skv, g), F32, "normal"), "starts": ((b, s), torch.int32, "zeros"),
            "ends": ((b, s), torch.int32, "const:%d" % skv)}


def topk_selector(t, p):
    sc = t["index_score"]
    skv = sc.shape[2]
    pos = torch.arange(skv, dtype=torch.int32)
    inside = (pos >= t["starts"][..., None]) & (pos < t["ends"][..., None])  # [B,S,Skv]
    s = sc.masked_fill(~inside[..., None], float("-inf")).transpose(2, 3)  # [B,S,G,Skv]
    k = min(p["topk"], skv)
    val, idx = torch.topk(s, k, dim=-1, largest=True, sorted=True)
    idx = torch.where(val == float("-inf"), torch.full_like(idx, -1), idx).to(torch.int32)
    if k < p["topk"]:
        idx = F.pad(idx, (0, p["topk"] - k), value=-1)
    return {"indices": idx}


def _in_simple(names_shapes):
    def inputs(p, dt):
        return names_shapes(p, dt)
    return inputs


PROGRAMS = {
    "RMSNormFwd": (_in_rownorm(), rmsnorm),
    "GemmaRMSNormFwd": (_in_rownorm(), gemma_rmsnorm),
    "LayerNormFwd": (_in_rownorm(("bias",)), layernorm),
    "AdaLayerNormFwd": (lambda p, dt: {"x": (tuple(p["x"]), dt, "normal"), "scale": (tuple(p["x"]), dt, "normal"),
                                       "shift": (tuple(p["x"]), dt, "normal")}, ada_layernorm),
    "FusedAddRMSNormFwd": (_in_rownorm(("residual",)), fused_add_rmsnorm),
    "FusedAddLayerNormFwd": (_in_rownorm(("bias", "residual")), fused_add_layernorm),
    "QKNormFwd": (lambda p, dt: {"q": (tuple(p["x"]), dt, "normal"), "k": (tuple(p["x"]), dt, "normal"),
                                 "q_weight": ((p["x"][-1],), dt, "normal"), "k_weight": ((p["x"][-1],), dt, "normal")},
                  qknorm),
    "GroupRMSNormFwd": (lambda p, dt: {"x": (tuple(p["x"]), dt, "normal"), "weight": (tuple(p["x"]), dt, "normal")},
                        group_rmsnorm),
    "RMSNormQuantFwd": (_in_rownorm(), rmsnorm_quant),
    "LayerNormQuantFwd": (_in_rownorm(("bias",)), layernorm_quant),
    "RMSNormBwd": (_in_rownorm_bwd(False), rmsnorm_bwd),
    "LayerNormBwd": (_in_rownorm_bwd(True), layernorm_bwd),
    "WeightNormFwd": (lambda p, dt: {"v": (tuple(p["x"]), dt, "normal"), "g": ((_mn(p)[0],), dt, "normal")},
                      weight_norm),
    "SpectralNormPowerIterFwd": (lambda p, dt: {"weight": (tuple(p["x"]), dt, "normal"),
                                                "u": ((p["x"][0],), F32, "unit"), "v": ((p["x"][-1],), F32, "unit")},
                                 spectral_norm),
    "L1NormFwd": (lambda p, dt: {"x": (tuple(p["x"]), dt, "normal")}, _vector_norm(1)),
    "L2NormFwd": (lambda p, dt: {"x": (tuple(p["x"]), dt, "normal")}, _vector_norm(2)),
    "BatchNormFwd": (_in_bn("train"), batchnorm_train),
    "BatchNormInferenceFwd": (_in_bn("infer"), batchnorm_infer),
    "BatchNormBwd": (_in_bn("bwd"), batchnorm_bwd),
    "GroupNormFwd": (_in_gn(False), groupnorm),
    "GroupNormBwd": (_in_gn(True), groupnorm_bwd),
    "InstanceNormFwd": (_in_gn(False, True), instancenorm),
    "InstanceNormBwd": (_in_gn(True, True), instancenorm_bwd),
    "Conv2dFwd": (_in_conv(2), _conv(2)),
    "PointwiseConv2d": (_in_conv(2), _conv(2)),
    "DepthwiseConv2d": (_in_conv(2), _conv(2)),
    "GroupedConv2d": (_in_conv(2), _conv(2)),
    "DilatedConv2d": (_in_conv(2), _conv(2)),
    "Conv2dBiasRelu": (_in_conv(2), conv2d_bias_relu),
    "Conv1dFwd": (_in_conv(1), _conv(1)),
    "Conv1dCausal": (lambda p, dt: _in_conv(1)(dict(p, _causal=True), dt), conv1d_causal),
    "Conv3dFwd": (_in_conv(3), _conv(3)),
    "Conv2dFp8Fwd": (_in_conv(2), conv2d_fp8),
    "Conv2dDgrad": (_in_conv(2, "dgrad"), conv2d_dgrad),
    "Conv2dWgrad": (_in_conv(2, "wgrad"), conv2d_wgrad),
    "Conv2dTranspose": (_in_conv(2, "transpose"), conv2d_transpose),
    "AvgPool1dFwd": (_in_pool(1), _avgpool(1)),
    "AvgPool2dFwd": (_in_pool(2), _avgpool(2)),
    "AvgPool3dFwd": (_in_pool(3), _avgpool(3)),
    "MaxPool1dFwd": (_in_pool(1), _maxpool(1)),
    "MaxPool2dFwd": (_in_pool(2), _maxpool(2)),
    "MaxPool3dFwd": (_in_pool(3), _maxpool(3)),
    "AdaptiveAvgPool2dFwd": (_in_pool(2), adaptive_avg),
    "AdaptiveMaxPool2dFwd": (_in_pool(2), adaptive_max),
    "TopkSelectorFwd": (_in_topk, topk_selector),
}
