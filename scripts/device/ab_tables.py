#!/usr/bin/env python3
"""Before/after ratio tables from a benchmark's outputs of an interleaved A/B run.

scripts/device/remeasure.sh runs each benchmark of two builds in rounds (before, after, before,
after) and calls this with the files of each round; this prints a Markdown table of after/before
time ratios per row, each cell "mean (round 1, round 2, ...)": the ratio of the rounds' mean
times, then each round's own ratio (rounds agreeing is what tells a change from noise).

  ab_tables.py BENCH --before F1 F2 ... --after F1 F2 ...   (one file per round, same count)

BENCH is one of transforms1d, transforms2d, blocked_dct8, electrostatics (Markdown tables, read
by column name, so the two versions' extra or missing columns do not matter) or ispd (bench_ispd
--json). Only the Python standard library is used (the GPU machine has no extra packages).
"""
import argparse
import json
import math
import re
import sys

KEY_COLUMNS = {"precision", "N", "batch", "size", "type", "transform", "design"}
SLOW = 1.03  # a cell slower than this in both rounds is listed under the table


def number(cell):
    """The first token of a cell that reads as a number ("123.4 (1.05x)" -> 123.4, "R2C 35.0" -> 35.0)."""
    for token in cell.replace(",", "").split():
        try:
            return float(token)
        except ValueError:
            continue
    return None


def markdown_rows(path):
    """Every row of every Markdown table in the file: (key, {column: cell text})."""
    rows = []
    lines = open(path, encoding="utf-8").read().splitlines()
    header = None
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if i + 1 < len(lines) and re.match(r"^\|\s*:?-{3}", lines[i + 1]):
            header = cells
            continue
        if header is None or set("".join(cells)) <= set("-: "):
            continue
        row = dict(zip(header, cells))
        key = tuple((c, row[c]) for c in header if c in KEY_COLUMNS)
        rows.append((key, row))
    return rows


def ispd_rows(path):
    """bench_ispd --json: one row per design (evaluate and stage medians, filler count)."""
    rows = []
    for d in json.load(open(path, encoding="utf-8"))["designs"]:
        row = {"fillers": str(d["filler_cells"]), "evaluate": str(d["evaluate_ms"]["median"])}
        for stage, ms in d.get("stage_median_ms", {}).items():
            if stage not in ("total", "repetitions"):
                row[stage] = str(ms)
        rows.append(((("design", d["design"]),), row))
    return rows


def merged(rows):
    """Rows with the same key (a design in two tables of one file) become one row."""
    out = {}
    for key, row in rows:
        out.setdefault(key, {}).update(row)
    return out


def ratio_cell(before, after, inverse):
    """before, after: each round's number of one cell. inverse: the numbers are rates (GB/s)."""
    if None in before or None in after:
        return None, "-"
    if inverse:
        before, after = [1 / v for v in before], [1 / v for v in after]
    rounds = [a / b for a, b in zip(after, before)]
    mean = sum(after) / sum(before)
    return (mean, rounds), "%.2f (%s)" % (mean, ", ".join("%.2f" % r for r in rounds))


# Per benchmark: the value columns to compare, in order, as (column name, label, inverse).
def columns_for(bench, header_union):
    if bench == "transforms1d":
        cols = ["cuFFT R2C (N)", "N-point", "mirrored 2N", "padded 2N", "4N", "cuFFT 2D R2C", "row-column Dct2"]
        return [(c, c, False) for c in cols if c in header_union]
    if bench == "transforms2d":
        methods = [c for c in header_union if c.endswith("(us, / cuFFT)")]
        cols = [("fused (us)", "Auto", False), ("cuFFT alone (us)", "cuFFT", False)]
        cols += [(m, m.replace(" (us, / cuFFT)", ""), False) for m in methods]
        cols += [("row-column (us)", "row-column", False)]
        return cols
    if bench == "blocked_dct8":
        return [("blocked GB/s", "blocked 8x8", True), ("copy GB/s", "D2D copy", True),
                ("whole-image Plan2D (ms)", "whole-image Plan2D", False)]
    if bench == "electrostatics":
        cols = ["evaluate ms", "host wall ms", "no graph ms", "rasterize + density passes", "forward FFT", "spectral",
                "inverse FFT (Ex, Ey)", "gather + finalize"]
        return [(c, c, False) for c in cols if c in header_union]
    if bench == "ispd":
        cols = ["evaluate", "rasterize", "forward_fft", "spectral", "inverse_fft", "gather"]
        return [(c, c, False) for c in cols if c in header_union]
    raise SystemExit("unknown benchmark " + bench)


def print_table(bench, key_names, keys, before, after, all_means, slow):
    header_union = []
    for t in before + after:
        for k in keys:
            header_union += [c for c in t[k] if c not in header_union]
    in_both = [c for c in header_union if any(c in t[k] for t in before for k in keys)
               and any(c in t[k] for t in after for k in keys)]
    cols = columns_for(bench, in_both)
    extra = []  # what differs between the builds besides time
    if bench == "transforms2d":
        extra = [("Auto runs", "Auto runs before -> after")]
    if bench in ("ispd", "electrostatics"):
        extra = [("fillers", "fillers before -> after")]
    print("| " + " | ".join(list(key_names) + [e[1] for e in extra] + [c[1] for c in cols]) + " |")
    print("| " + " | ".join(["---"] * (len(key_names) + len(extra)) + ["---:"] * len(cols)) + " |")
    for k in keys:
        cells = [v for _, v in k]
        for col, _ in extra:
            b, f = before[0][k].get(col, "?"), after[0][k].get(col, "?")
            cells.append(b if b == f else "%s -> %s" % (b, f))
        for col, label, inverse in cols:
            value, text = ratio_cell([number(t[k].get(col, "")) for t in before], [number(t[k].get(col, "")) for t in after], inverse)
            cells.append(text)
            if value:
                all_means.append(value[0])
                if min(value[1]) > SLOW:
                    slow.append("%s %s: %s" % (" ".join(v for _, v in k), label, text))
        print("| " + " | ".join(cells) + " |")
    print()


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


FIELDS = ("auto", "cufft", "methods", "relative")


def transforms2d_by_size(keys, before, after):
    """bench_transforms2d per size and type, geometric means over the four transforms: Auto, the
    cuFFT call timed beside it (the same code in both builds: what moved the process, not the
    library), every explicit method and row-column, and those again divided by the cuFFT ratio."""
    keys = [k for k in keys if all(number(t[k].get(c, "")) for t in before + after
                                   for c in ("cuFFT alone (us)", "fused (us)"))]
    if not keys:
        return
    methods = [c for c in after[0][keys[0]] if c.endswith("(us, / cuFFT)")] + ["row-column (us)"]
    rounds = len(before)
    groups = {}
    for k in keys:
        g = groups.setdefault(k[:2], {"runs": [], **{f: [[] for _ in range(rounds)] for f in FIELDS}})
        runs = (before[0][k].get("Auto runs", "?"), after[0][k].get("Auto runs", "?"))
        if runs not in g["runs"]:
            g["runs"].append(runs)
        for i, (b, a) in enumerate(zip(before, after)):
            cufft = number(a[k]["cuFFT alone (us)"]) / number(b[k]["cuFFT alone (us)"])
            g["cufft"][i].append(cufft)
            g["auto"][i].append(number(a[k]["fused (us)"]) / number(b[k]["fused (us)"]))
            for m in methods:
                tb, ta = number(b[k].get(m, "")), number(a[k].get(m, ""))
                if tb and ta:
                    g["methods"][i].append(ta / tb)
                    g["relative"][i].append(ta / tb / cufft)

    def cell(by_round):
        return "%.2f (%s)" % (geomean([v for r in by_round for v in r]), ", ".join("%.2f" % geomean(r) for r in by_round))

    print("Per size and type, geometric means over the four transforms (and per round):\n")
    print("| size | type | Auto runs | Auto | cuFFT alone | every method and row-column | the same / cuFFT alone |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for (size, kind), g in groups.items():
        runs = "; ".join(b if b == a else "%s -> %s" % (b, a) for b, a in g["runs"])
        print("| %s | %s | %s | %s |" % (size[1], kind[1], runs, " | ".join(cell(g[f]) for f in FIELDS)))
    print()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bench")
    p.add_argument("--before", nargs="+", required=True)
    p.add_argument("--after", nargs="+", required=True)
    a = p.parse_args()
    if len(a.before) != len(a.after):
        p.error("--before and --after need one file per round each")
    read = ispd_rows if a.bench == "ispd" else markdown_rows
    before = [merged(read(f)) for f in a.before]
    after = [merged(read(f)) for f in a.after]
    keys = [k for k in after[0] if all(k in t for t in before + after[1:])]
    groups = []  # rows of the same key columns make one table (a file may hold several)
    for k in keys:
        names = tuple(n for n, _ in k)
        if not names:
            continue
        if names not in [g[0] for g in groups]:
            groups.append((names, []))
        next(g for g in groups if g[0] == names)[1].append(k)
    all_means, slow = [], []
    if a.bench == "transforms2d" and keys:
        transforms2d_by_size(keys, before, after)
    for names, group in groups:
        print_table(a.bench, names, group, before, after, all_means, slow)
    if all_means:
        geo = math.exp(sum(math.log(v) for v in all_means) / len(all_means))
        print("%d cells: geometric mean of after/before %.3f, range %.2f..%.2f; slower than %.2fx in every "
              "round: %s" % (len(all_means), geo, min(all_means), max(all_means), SLOW,
                              "; ".join(slow) if slow else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
