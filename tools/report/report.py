#!/usr/bin/env python3
"""nkl report: turns the results JSON of `nkl bench --json` into DIR/index.html (one
self-contained page), DIR/report.md and DIR/results.json. Standard library only.

Usage: report.py RESULTS.json -o DIR
The page: summary (rows green / par / red per family, geometric-mean and worst ratio, rows
at the ceiling, anomalies), a roofline chart (SVG), one table per operator in catalog order
with a legend expanding each workload id, then the machine, versions and the methodology
with the run's settings. Schema of the JSON: docs/report.md.
"""
import argparse
import html
import json
import math
import os
import shutil
import sys

FAMILY_ORDER = ["norm", "conv", "pool", "topk"]
FAMILY_NAME = {"norm": "Normalization", "conv": "Convolution", "pool": "Pooling", "topk": "Top-k"}
FAMILY_COLOR = {"norm": "#1f77b4", "conv": "#d62728", "pool": "#2ca02c", "topk": "#9467bd"}


def ratio_class(r):
    if r is None:
        return "na"
    return "red" if r < 0.95 else ("green" if r >= 1.05 else "par")


def fmt_ms(v):
    if v is None:
        return "—"
    return "%.4f" % v if v < 10 else "%.2f" % v


def fmt_pct(v):
    return "—" if v is None else "%.0f%%" % (100 * v)


def fmt_sol_row(r):
    """The SOL against the triads taken next to the row (nkl bench's row triad), or ''."""
    bw, sr = r.get("row_triad_gbps"), r.get("sol_row")
    if sr is None or not bw:
        return ""
    return "row triad %.0f GB/s: %.0f%%" % (sum(bw) / len(bw), 100 * sr)


def fmt_tp(row):
    g, b = row.get("gflops"), row.get("gbps")
    if g is None:
        return "—"
    return "%.1f GFLOP/s · %.1f GB/s" % (g, b)


def fmt_err(check):
    if not check or check.get("max_err") is None:
        return (check or {}).get("status", "—")
    return "%s %.2g" % (check.get("status"), check["max_err"])


def legend_params(desc):
    toks = desc.split()[1:]
    return " ".join(t for t in toks if not t.startswith("label="))


def summarize(rows):
    fam = {}
    ratios = []
    worst = None
    at_ceiling, anomalies = 0, []
    row_rated, row_ceiling = 0, 0
    for r in rows:
        f = fam.setdefault(r["family"], {"green": 0, "par": 0, "red": 0, "na": 0, "rows": 0})
        f["rows"] += 1
        rc = ratio_class(r.get("ratio"))
        f[rc] += 1
        if r.get("ratio"):
            ratios.append(r["ratio"])
            if worst is None or r["ratio"] < worst[0]:
                worst = (r["ratio"], r)
        sol = r.get("sol")
        if sol is not None and sol >= 0.8:
            at_ceiling += 1
        if sol is not None and r.get("sol_row") is not None:
            row_rated += 1
            row_ceiling += r["sol_row"] >= 0.8
        if sol is not None and sol > 1.05:
            anomalies.append(r)
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else None
    return fam, geo, worst, (at_ceiling, row_ceiling, row_rated), anomalies


def ceiling_text(c):
    at, row, rated = c
    return "%d" % at + (" (against the triad next to each row: %d of %d)" % (row, rated) if rated else "")


def roofline_svg(rows, cal):
    w, h, ml, mb, mt, mr = 760, 420, 70, 50, 20, 150
    pts = [(r["flops"] / r["bytes"], r["gflops"], r) for r in rows
           if r.get("gflops") and r.get("bytes") and r.get("flops")]
    bw = (cal or {}).get("memory", {}).get("bandwidth_gbps")
    peaks = (cal or {}).get("peaks", {})
    p32, pbf = peaks.get("f32_gflops"), peaks.get("bf16_gflops")
    xs = [p[0] for p in pts] + [0.01, 1000]
    ys = [p[1] for p in pts] + [0.01] + [v for v in (p32, pbf) if v]
    x0, x1 = math.log10(max(min(xs), 1e-3)), math.log10(max(xs))
    y0, y1 = math.log10(max(min(ys), 1e-3)), math.log10(max(ys) * 2)
    x0, x1, y0, y1 = math.floor(x0), math.ceil(x1), math.floor(y0), math.ceil(y1)

    def X(v):
        return ml + (math.log10(v) - x0) / (x1 - x0) * (w - ml - mr)

    def Y(v):
        return h - mb - (math.log10(v) - y0) / (y1 - y0) * (h - mb - mt)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
           'aria-label="roofline" class="roofline">' % (w, h)]
    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="#fff" stroke="#999"/>' % (
        ml, mt, w - ml - mr, h - mb - mt))
    for e in range(x0, x1 + 1):
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (X(10**e), mt, X(10**e), h - mb))
        out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">1e%d</text>' % (X(10**e), h - mb + 15, e))
    for e in range(y0, y1 + 1):
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (ml, Y(10**e), w - mr, Y(10**e)))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">1e%d</text>' % (ml - 5, Y(10**e) + 4, e))
    out.append('<text x="%d" y="%d" font-size="12" text-anchor="middle">arithmetic intensity (flop/byte)</text>' % (
        (ml + w - mr) / 2, h - 12))
    out.append('<text x="15" y="%d" font-size="12" transform="rotate(-90 15 %d)" text-anchor="middle">GFLOP/s (ours)</text>' % (
        (mt + h - mb) / 2, (mt + h - mb) / 2))
    if bw:
        for peak, name, dash in ((p32, "f32 peak", ""), (pbf, "bf16 peak", "4,3")):
            if not peak:
                continue
            knee = peak / bw
            a, b = 10**x0, 10**x1
            pts_line = [(a, a * bw), (knee, peak), (b, peak)] if knee > a else [(a, peak), (b, peak)]
            d = " ".join("%.1f,%.1f" % (X(px), Y(min(py, 10**y1))) for px, py in pts_line if py >= 10**y0)
            out.append('<polyline points="%s" fill="none" stroke="#333" stroke-width="1.5" stroke-dasharray="%s"/>' % (d, dash))
            out.append('<text x="%.1f" y="%.1f" font-size="11">%s %.0f GFLOP/s</text>' % (w - mr + 4, Y(peak) + 4, name, peak))
        out.append('<text x="%d" y="%d" font-size="11">DRAM %.1f GB/s</text>' % (ml + 5, mt + 14, bw))
    for ai, g, r in pts:
        out.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s" fill-opacity="0.75"><title>%s %s %s: %.2f GFLOP/s, AI %.3g</title></circle>' % (
            X(ai), Y(max(g, 10**y0)), FAMILY_COLOR.get(r["family"], "#555"), html.escape(r["op"]), r["id"], r["dtype"], g, ai))
    for i, f in enumerate(FAMILY_ORDER):
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>' % (
            w - mr + 10, h - mb - 80 + 16 * i, FAMILY_COLOR[f], w - mr + 18, h - mb - 76 + 16 * i, FAMILY_NAME[f]))
    out.append("</svg>")
    return "\n".join(out)


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:19px;margin-top:32px;border-bottom:1px solid #ccc}h3{font-size:16px;margin-top:24px}
table{border-collapse:collapse;font-size:12.5px;margin:6px 0 16px}th,td{border:1px solid #ddd;padding:3px 6px;vertical-align:top}
th{background:#f4f4f4;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
.green{background:#d7f5d7}.red{background:#f9d6d6}.par{}.na{color:#888}
.base{font-weight:bold}.cand{white-space:nowrap}.why{color:#777;font-size:11px}
.legend{font-size:12px;color:#444;margin:4px 0}.legend code{font-size:11px}
code{background:#f6f6f6;padding:0 3px}.flag{color:#b00;font-weight:bold}.small{font-size:12px;color:#555}
"""


def cand_cell(r):
    parts = []
    base = (r.get("baseline") or {}).get("name")
    for c in r.get("candidates", []):
        name = html.escape(c["name"])
        tier = html.escape(c["tier"])
        if c["status"] == "ok" and c.get("median_ms") is not None:
            cls = "cand base" if c["name"] == base else "cand"
            mark = " ★baseline" if c["name"] == base else ""
            extra = []
            if c.get("batch", 1) > 1:
                extra.append("batch %d" % c["batch"])
            if c.get("reduced"):
                extra.append("reduced")
            chk = (c.get("check") or {}).get("status", "")
            parts.append('<div class="%s" title="%s">%s · %s · %s ms%s <span class="why">[%s%s]</span></div>' % (
                cls, html.escape(c.get("label", "")), name, tier, fmt_ms(c["median_ms"]), mark, html.escape(chk),
                ("; " + ", ".join(extra)) if extra else ""))
        else:
            parts.append('<div class="cand">%s · %s · <span class="why">%s: %s</span></div>' % (
                name, tier, html.escape(c["status"]), html.escape(c.get("reason", ""))))
    return "".join(parts) or "—"


def ours_cell(r):
    o = r.get("ours") or {}
    if o.get("median_ms") is None:
        return '<span class="na">%s</span>' % html.escape(o.get("reason") or o.get("status", "—"))
    extra = []
    if o.get("batch", 1) > 1:
        extra.append("batch %d" % o["batch"])
    if o.get("reduced"):
        extra.append("reduced")
    return "%s%s" % (fmt_ms(o["median_ms"]), (' <span class="why">(%s)</span>' % ", ".join(extra)) if extra else "")


def write_html(doc, rows, path):
    cal = doc.get("calibration") or {}
    st = doc.get("settings", {})
    fam, geo, worst, at_ceiling, anomalies = summarize(rows)
    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    h = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>nkl report</title>',
         "<style>%s</style></head><body>" % CSS]
    h.append("<h1>nkl vs the best available baseline — %d workloads, %d operators</h1>" % (len(rows), len(ops)))
    h.append('<p class="small">Ratio = baseline median / our median under the same protocol: '
             '<span class="green">&nbsp;green&nbsp;</span> ≥ 1.05 (nkl faster), plain 0.95–1.05, '
             '<span class="red">&nbsp;red&nbsp;</span> &lt; 0.95 (nkl slower), — where either side did not run or an output '
             'disagreed with the oracle. Times in ms. Run of %s.</p>' % html.escape(doc.get("date", "?")))
    h.append("<h2>Summary</h2><table><tr><th>family</th><th>rows</th><th>green</th><th>par</th><th>red</th><th>not rated</th></tr>")
    for f in FAMILY_ORDER:
        if f in fam:
            c = fam[f]
            h.append('<tr><td>%s</td><td class="num">%d</td><td class="num green">%d</td><td class="num">%d</td>'
                     '<td class="num red">%d</td><td class="num">%d</td></tr>' % (FAMILY_NAME[f], c["rows"], c["green"], c["par"], c["red"], c["na"]))
    h.append("</table>")
    h.append("<p>Geometric-mean ratio: <b>%s</b> over %d rated rows; worst row: <b>%s</b>%s. Rows at the ceiling (SOL ≥ 80%%): %s. "
             "Rows above 105%% SOL (flagged as anomalies): %d%s.</p>" % (
                 "%.2f×" % geo if geo else "—", sum(1 for r in rows if r.get("ratio")),
                 "%.2f×" % worst[0] if worst else "—",
                 " (%s %s)" % (html.escape(worst[1]["op"]), worst[1]["id"]) if worst else "",
                 ceiling_text(at_ceiling), len(anomalies),
                 (" — " + ", ".join("%s %s" % (html.escape(a["op"]), a["id"]) for a in anomalies)) if anomalies else ""))
    h.append("<h2>Roofline</h2>")
    h.append(roofline_svg(rows, cal))
    h.append('<p class="small">One point per workload (our throughput), coloured by family; roofs from the calibration: '
             'DRAM bandwidth × intensity, capped by the f32 FMA and bf16 dot-product peaks.</p>')
    cur_family = None
    for op in ops:
        orows = [r for r in rows if r["op"] == op]
        if orows[0]["family"] != cur_family:
            cur_family = orows[0]["family"]
            h.append("<h2>%s</h2>" % FAMILY_NAME.get(cur_family, cur_family))
        h.append('<h3 id="%s">%s</h3>' % (html.escape(op), html.escape(op)))
        h.append('<div class="legend">')
        for r in orows:
            h.append("<div><b>%s</b>: <code>%s</code> — %s</div>" % (r["id"], html.escape(legend_params(r["descriptor"])), html.escape(r["label"])))
        h.append("</div>")
        h.append("<table><tr><th>workload</th><th>ratio<br><span class=why>baseline/ours</span></th><th>ours ms</th>"
                 "<th>candidates (name · tier · ms)</th><th>throughput</th><th>SOL</th><th>bound</th>"
                 "<th>accuracy vs f64 oracle<br><span class=why>ours / baseline</span></th><th>rerun</th></tr>")
        for r in orows:
            ratio = r.get("ratio")
            rc = ratio_class(ratio)
            sol = r.get("sol")
            flag = ' <span class="flag" title="above 105%% of the speed of light: a wrong count or a warm cache">!</span>' if sol and sol > 1.05 else ""
            corr = r.get("correctness", {})
            h.append('<tr><td>%s <span class=why>%s</span></td><td class="num %s">%s</td><td class="num">%s</td><td>%s</td>'
                     '<td class="num">%s</td><td class="num">%s%s</td><td>%s</td><td>%s / %s</td><td><code>%s</code></td></tr>' % (
                         r["id"], html.escape(r["dtype"]), rc, "%.2f×" % ratio if ratio else "—", ours_cell(r), cand_cell(r),
                         fmt_tp(r), fmt_pct(sol), flag + (" <br><span class=why>%s</span>" % fmt_sol_row(r) if fmt_sol_row(r) else ""), r.get("bound", "—"), html.escape(fmt_err(corr.get("ours"))),
                         html.escape(fmt_err(corr.get("baseline"))), html.escape(r.get("rerun", ""))))
        h.append("</table>")
    # machine, versions, methodology
    cpu = cal.get("cpu", {})
    h.append("<h2>Machine and calibration</h2><table>")
    for k, v in (("CPU", cpu.get("model")), ("ISA flags", " ".join(cpu.get("isa_flags", []))),
                 ("cores / threads used", "%s / %s" % (cpu.get("cores"), st.get("threads"))),
                 ("caches", ", ".join("%s %s KiB" % (k2.replace("_bytes", ""), int(v2) // 1024) for k2, v2 in cpu.get("caches", {}).items() if v2 and v2 > 0)),
                 ("clock (dependent add chain)", "%.2f GHz" % cpu["clock_ghz"] if cpu.get("clock_ghz") else "—"),
                 ("DRAM bandwidth (STREAM triad plateau)", "%.1f GB/s" % cal["memory"]["bandwidth_gbps"] if cal.get("memory") else "—"),
                 ("f32 FMA peak", "%.1f GFLOP/s" % cal["peaks"]["f32_gflops"] if cal.get("peaks") else "—"),
                 ("bf16 dot peak (vdpbf16ps)", "%.1f GFLOP/s" % cal["peaks"]["bf16_gflops"] if (cal.get("peaks") or {}).get("bf16_gflops") else "—"),
                 ("int8 dot peak (vpdpbusd)", "%.1f GOP/s" % cal["peaks"]["int8_gops"] if (cal.get("peaks") or {}).get("int8_gops") else "—"),
                 ("calibrated", cal.get("date", "—")),
                 ("DRAM triad at the start / end of this run",
                  "%.1f / %.1f GB/s" % (doc["bandwidth_check"]["start_gbps"], doc["bandwidth_check"]["end_gbps"])
                  if doc.get("bandwidth_check") else "—")):
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (k, html.escape(str(v))))
    h.append("</table><h3>Versions</h3><table>")
    for k, v in doc.get("versions", {}).items():
        h.append("<tr><th>%s</th><td>%s</td></tr>" % (html.escape(k), html.escape(str(v))))
    h.append("</table>")
    h.append("<h2>How these numbers were obtained</h2><ul>")
    for li in (
        "Same process for nkl and oneDNN; PyTorch in a worker process on the same input bytes (files nkl wrote, memory-mapped), under the identical protocol.",
        "Per implementation: untimed setup (primitive creation, reorders, compilation; recorded as setup_ms), %d warm-up calls, %d timed calls; median reported, plus min, p90 and cv in the JSON." % (st.get("warmup", 10), st.get("samples", 30)),
        ("Cache: %s. " % st.get("cache", "cold")) + ("Before every timed call the last-level cache is evicted by streaming a %d MiB buffer (4× the %d MiB LLC, at least 64 MiB)." % (st.get("evict_bytes", 0) // 2**20, st.get("llc_bytes", 0) // 2**20) if st.get("cache") == "cold" else "No eviction (--warm)."),
        "Order A B C … then … C B A, samples of both passes pooled.",
        "Threads: %s for every implementation (nkl, oneDNN via OpenMP, torch.set_num_threads)." % st.get("threads"),
        "Calls under %.0f µs are timed in batches (marked 'batch N'); calls over %.0f ms get 2 warm-up calls (1 over 1 s) and about 5 s of samples, 2 to 10 (marked 'reduced'), to keep the whole catalog within an hour." % (1000 * st.get("batch_below_ms", 0.02), st.get("slow_call_ms", 1000)),
        "Baseline = the fastest candidate whose output agrees with the f64 oracle within the tests' tolerance; a candidate whose output disagrees is marked 'mismatch' and not rated. Where the op has no oracle adapter yet, candidates are cross-checked against PyTorch eager on the same inputs ('agrees' / 'disagrees', max error relative to the largest reference value within 8 roundoff units of the output dtype + 1e-4), or marked 'not checked'.",
        "SOL = max(bytes / DRAM bandwidth, flops / compute peak) / our time; norms, pools and top-k use the f32 peak, bf16 convs the bf16 peak. Bound mem / comp by the larger term; lat where that time < 3 µs and ours < 20 µs (not rated). SOL > 105% is flagged.",
        "Whole run: %.0f s." % st.get("elapsed_s", 0),
    ):
        h.append("<li>%s</li>" % html.escape(li))
    h.append("</ul></body></html>")
    with open(path, "w") as f:
        f.write("\n".join(h))


def write_md(doc, rows, path):
    fam, geo, worst, at_ceiling, anomalies = summarize(rows)
    out = ["# nkl report", "", "Ratio = baseline / ours (≥ 1.05 green: nkl faster; < 0.95 red). Times in ms.", "",
           "| family | rows | green | par | red | not rated |", "|---|---|---|---|---|---|"]
    for f in FAMILY_ORDER:
        if f in fam:
            c = fam[f]
            out.append("| %s | %d | %d | %d | %d | %d |" % (FAMILY_NAME[f], c["rows"], c["green"], c["par"], c["red"], c["na"]))
    out += ["", "Geometric-mean ratio %s; worst %s; rows at the ceiling %s; anomalies (> 105%% SOL) %d." % (
        "%.2fx" % geo if geo else "-", "%.2fx" % worst[0] if worst else "-", ceiling_text(at_ceiling), len(anomalies)), ""]
    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    for op in ops:
        out += ["## " + op, ""]
        for r in rows:
            if r["op"] == op:
                out.append("- **%s**: `%s` (%s)" % (r["id"], legend_params(r["descriptor"]), r["label"]))
        out += ["", "| workload | ratio | ours ms | candidates | SOL | bound | rerun |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            if r["op"] != op:
                continue
            base = (r.get("baseline") or {}).get("name")
            cands = "; ".join(
                ("%s%s %s ms" % ("**" if c["name"] == base else "", c["name"], fmt_ms(c.get("median_ms"))) + ("**" if c["name"] == base else ""))
                if c["status"] == "ok" else "%s: %s" % (c["name"], c["status"]) for c in r.get("candidates", []))
            o = r.get("ours") or {}
            out.append("| %s %s | %s | %s | %s | %s | %s | `%s` |" % (
                r["id"], r["dtype"], "%.2fx" % r["ratio"] if r.get("ratio") else "-",
                fmt_ms(o.get("median_ms")) if o.get("median_ms") else o.get("status", "-"), cands.replace("|", "/"),
                fmt_pct(r.get("sol")) + (" (%s)" % fmt_sol_row(r) if fmt_sol_row(r) else ""), r.get("bound", "-"),
                r.get("rerun", "")))
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def catalog_order():
    """(op, id) -> position in the catalog (bench/workloads/<family>.txt, family order)."""
    here = os.path.dirname(os.path.abspath(__file__))
    d = os.environ.get("NKL_CATALOG_DIR") or os.path.join(here, "..", "..", "bench", "workloads")
    order = {}
    for fam in FAMILY_ORDER:
        try:
            with open(os.path.join(d, fam + ".txt")) as f:
                for line in f:
                    t = line.split()
                    if len(t) >= 2 and not line.startswith("#"):
                        order.setdefault((t[1], t[0]), len(order))
        except OSError:
            pass
    return order


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results JSON of nkl bench (several are merged)")
    ap.add_argument("-o", "--out", default="report")
    a = ap.parse_args()
    doc, rows = None, []
    for path in a.results:
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError) as e:
            print("nkl report: cannot read %s: %s" % (path, e), file=sys.stderr)
            return 2
        if not isinstance(d, dict) or not isinstance(d.get("rows"), list):
            print("nkl report: %s is not a results file of nkl bench --json" % path, file=sys.stderr)
            return 2
        doc = doc or d
        rows += d["rows"]
    order = catalog_order()
    # Catalog order (ops grouped, ids in catalog order); rows unknown to the catalog last.
    first = {}
    for r in rows:
        first.setdefault(r["op"], order.get((r["op"], r["id"]), len(order) + len(first)))
    rows.sort(key=lambda r: (first[r["op"]], order.get((r["op"], r["id"]), 1 << 30)))
    doc["rows"] = rows
    os.makedirs(a.out, exist_ok=True)
    write_html(doc, rows, os.path.join(a.out, "index.html"))
    write_md(doc, rows, os.path.join(a.out, "report.md"))
    dst = os.path.join(a.out, "results.json")
    if len(a.results) == 1:
        if os.path.abspath(dst) != os.path.abspath(a.results[0]):
            shutil.copyfile(a.results[0], dst)
    else:
        with open(dst, "w") as f:
            json.dump(doc, f, indent=1)
    ops = len({r["op"] for r in rows})
    print("nkl report: %d rows, %d tables -> %s/index.html, report.md, results.json" % (len(rows), ops, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
