"""efield.sweep's results file (JSON Lines: one finished job a line, written and flushed to disk
as it finishes), its summary table (Markdown) and plots (matplotlib PNG)."""

import json
import logging
import os
import pathlib
import statistics

log = logging.getLogger("efield.sweep")

# The metrics of each kind in tables and plots: (record key, column title).
METRICS = {
    "place": [("hpwl", "HPWL"), ("overflow", "overflow"), ("iterations", "iterations"), ("seconds", "time (s)")],
    "evaluate": [("evaluate_ms", "evaluate from Python (ms)"), ("profile_ms", "evaluate in C++ (ms)"),
                 ("overflow", "overflow"), ("max_density", "max density")],
}
PLOTTED = {"place": ["hpwl", "iterations", "seconds"], "evaluate": ["evaluate_ms"]}


class ResultsFileError(ValueError):
    """A results file that cannot be resumed from (a damaged line other than the last)."""


def read(path, repair=True):
    """The records of a results file (missing: none). A last line cut short by a killed run is
    dropped (and, with repair, cut from the file) so that its job runs again."""
    path = pathlib.Path(path)
    if not path.exists():
        return []
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # tail: b"" when the file ends with a newline
    records = []
    for number, line in enumerate(complete, 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            if number == len(complete) and not tail:
                tail = line  # a damaged last line ending in a newline: the same case as a cut one
                complete = complete[:-1]
                break
            raise ResultsFileError(f"{path}:{number}: not a JSON record; fix or remove the line") from None
    if tail.strip():
        log.warning("%s: the last line is incomplete (a run stopped while writing it); its job runs again", path)
        if repair:
            keep = sum(len(line) + 1 for line in complete)
            with open(path, "r+b") as f:
                f.truncate(keep)
    return records


def finished(records, rerun_failed=False):
    """Job ids that a resumed sweep skips: every recorded job (only the successful ones with
    rerun_failed)."""
    return {r["job"] for r in records if not rerun_failed or r.get("status") == "ok"}


class Writer:
    """Appends records to the results file, each on disk before the next job's is written."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "a", encoding="utf-8")

    def write(self, record):
        self._file.write(json.dumps(record, sort_keys=True) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self):
        self._file.close()


def latest(records):
    """One record per job (the last one written)."""
    by_job = {}
    for r in records:
        by_job[r["job"]] = r
    return list(by_job.values())


def swept_names(records):
    """The swept parameters (besides the design) with more than one value among the records."""
    names = []
    for r in records:
        for k in r.get("swept", {}):
            if k != "design" and k not in names:
                names.append(k)
    return [k for k in names if len({json.dumps(r["swept"].get(k)) for r in records}) > 1]


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.4e}" if abs(v) >= 1e5 or (v and abs(v) < 1e-3) else f"{v:.4g}"
    return str(v)


def table(records, kind):
    """A Markdown table: one row per job (sorted by design and swept values)."""
    records = latest(records)
    names = [k for r in records for k in r.get("swept", {}) if k != "design"]
    names = list(dict.fromkeys(names))
    metrics = METRICS[kind]
    head = ["design"] + names + [title for _, title in metrics] + ["device", "status"]
    rows = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    key = lambda r: [r["design"]] + [json.dumps(r["swept"].get(k)) for k in names]  # noqa: E731
    for r in sorted(records, key=key):
        m = r.get("metrics", {})
        cells = [r["design"]] + [_fmt(r["swept"].get(k)) for k in names]
        cells += [_fmt(m[k]) if k in m else "" for k, _ in metrics]
        cells += [r.get("device_name") or r.get("device", ""),
                  r["status"] if r["status"] == "ok" else f"failed: {r.get('error', '')[:60]}"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def throughput(records, wall_seconds):
    """Jobs per hour of this run (records: the jobs it finished)."""
    return 3600.0 * len(records) / wall_seconds if wall_seconds > 0 else float("nan")


def plots(records, kind, prefix):
    """One PNG per swept parameter: each plotted metric against its values, a line per design
    (the mean over the other parameters, every job a dot). Returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in latest(records) if r.get("status") == "ok"]
    files = []
    for name in swept_names(ok):
        metrics = PLOTTED[kind]
        fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 3.4), dpi=90, squeeze=False)
        values = sorted({json.dumps(r["swept"][name]) for r in ok if name in r["swept"]}, key=_order)
        numeric = all(isinstance(json.loads(v), (int, float)) and not isinstance(json.loads(v), bool) for v in values)
        for ax, metric in zip(axes[0], metrics):
            for design in sorted({r["design"] for r in ok}):
                xs, ys, means = [], [], []
                for v in values:
                    ys_v = [r["metrics"][metric] for r in ok if r["design"] == design and
                            json.dumps(r["swept"].get(name)) == v and metric in r["metrics"]]
                    x = json.loads(v) if numeric else values.index(v)
                    xs += [x] * len(ys_v)
                    ys += ys_v
                    if ys_v:
                        means.append((x, statistics.mean(ys_v)))
                line, = ax.plot([m[0] for m in means], [m[1] for m in means], marker="o", label=design)
                ax.scatter(xs, ys, s=10, color=line.get_color(), alpha=0.5)
            ax.set_xlabel(name)
            ax.set_ylabel(dict(METRICS[kind]).get(metric, metric))
            if not numeric:
                ax.set_xticks(range(len(values)))
                ax.set_xticklabels([json.loads(v) for v in values])
            ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        path = f"{prefix}_{name}.png"
        fig.savefig(path)
        plt.close(fig)
        files.append(path)
    return files


def _order(text):
    v = json.loads(text)
    return (0, v, "") if isinstance(v, (int, float)) else (1, 0, str(v))
