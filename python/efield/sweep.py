"""efield.sweep: placement runs at scale on Dask (`distributed`). A TOML config lists designs
and a parameter grid; each combination is one job (efield.place.global_place, or the density
timing of efield.density_timing); results stream into a JSON Lines file as jobs finish.

    python3 -m efield.sweep CONFIG [--results FILE]            # an embedded cluster on this machine
    python3 -m efield.sweep CONFIG --scheduler tcp://HOST:8786  # an existing Dask cluster

The embedded cluster (distributed.LocalCluster, listening on 127.0.0.1 only, no dashboard) has
one worker process per GPU, each pinned to its device by CUDA_VISIBLE_DEVICES, or CPU workers
where there is no GPU (--workers, --threads). On an existing cluster, GPU workers declare
`--resources GPU=1` (and see one device each); jobs whose device is "auto" or CUDA then ask for
one GPU. TLS: --tls-ca-file, --tls-cert, --tls-key (distributed.security.Security), or Dask's own
configuration (distributed.comm.tls.*), which is used when no flag is given.

Nothing is lost: a job that raises is recorded with its error and the others go on; a job whose
worker dies is run again on another worker (Dask's scheduler reschedules it; after
distributed.scheduler.allowed-failures deaths it is recorded as failed); a sweep started again
with the same results file skips the jobs recorded there (--rerun-failed: runs the failed ones
again), and a last line cut short by a killed run is dropped and its job run again.
At the end: a Markdown summary (RESULTS.md) and one PNG per swept parameter (RESULTS_<name>.png).
See README.md ("Sweeps") and examples/sweeps/.
"""

import argparse
import logging
import os
import pathlib
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from . import _sweep_config, _sweep_jobs, _sweep_results
from ._sweep_config import ConfigError, Job  # noqa: F401 - part of the module's interface

log = logging.getLogger("efield.sweep")


@dataclass
class SweepReport:
    records: List[dict]             # the jobs finished by this run, in finishing order
    all_records: List[dict]         # the results file after the run (one per job)
    skipped: int                    # jobs found in the results file (resume)
    wall_seconds: float             # from the first submission to the last record
    workers: List[str] = field(default_factory=list)
    summary_path: Optional[str] = None
    plots: List[str] = field(default_factory=list)

    @property
    def failed(self):
        return [r for r in self.records if r.get("status") != "ok"]

    @property
    def jobs_per_hour(self):
        return _sweep_results.throughput(self.records, self.wall_seconds)


def gpu_count():
    """CUDA devices of this machine (0 without CUDA)."""
    try:
        from . import cuda_device_count

        return int(cuda_device_count())
    except Exception:  # noqa: BLE001 - no CUDA: CPU workers
        return 0


def local_cluster(gpus=None, workers=None, threads=None):
    """The embedded cluster: a LocalCluster on 127.0.0.1 with one worker process per GPU of
    `gpus` (indices; None: every GPU here), or `workers` CPU worker processes when there is
    none (or gpus=[]). Each worker runs one job at a time; `threads` CPU threads each (default:
    the cores shared out)."""
    import dask
    from distributed import LocalCluster

    gpus = list(range(gpu_count())) if gpus is None else list(gpus)
    cores = os.cpu_count() or 1
    count = len(gpus) if gpus else (workers or max(1, cores // 4))
    threads = threads or max(1, cores // count)
    env = {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads), "EFIELD_SWEEP_THREADS": str(threads)}
    # Every server on 127.0.0.1, the HTTP ones (/health, /metrics) included: no dashboard.
    loopback = "127.0.0.1:0"
    # No NVML system monitor in the embedded cluster (the scheduler and the workers' nannies take
    # the configuration when they start, so the caller's own stays untouched): the sweep reads no
    # GPU metrics from it, and an older distributed fails to start against a newer pynvml.
    with dask.config.set({"distributed.diagnostics.nvml": False}):
        cluster = LocalCluster(n_workers=0, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None,
                               scheduler_kwargs={"dashboard": False, "dashboard_address": loopback},
                               silence_logs=logging.ERROR)
        template = cluster.new_spec
        base = {**template["options"], "dashboard": False, "dashboard_address": loopback}
        if gpus:  # a worker of its own for each device: it sees that GPU only, as cuda:0
            specs = {f"gpu{i}": {**base, "env": {**env, "CUDA_VISIBLE_DEVICES": str(i)}, "resources": {"GPU": 1}}
                     for i in gpus}
        else:  # CPU workers see no GPU, so that device "auto" means the CPU there
            specs = {f"cpu{i}": {**base, "env": {**env, "CUDA_VISIBLE_DEVICES": ""}} for i in range(count)}
        for name, options in specs.items():
            cluster.worker_spec[name] = {"cls": template["cls"], "options": {**options, "name": name}}
        cluster.sync(cluster._correct_state)
    return cluster


def security_from(ca_file=None, cert=None, key=None):
    """distributed.security.Security for TLS connections to a cluster (None: Dask's configuration)."""
    if not (ca_file or cert or key):
        return None
    if not (ca_file and cert and key):
        raise ConfigError("TLS needs all three of --tls-ca-file, --tls-cert and --tls-key")
    from distributed.security import Security

    return Security(tls_ca_file=ca_file, tls_client_cert=cert, tls_client_key=key, require_encryption=True)


class Progress:
    """One status line on a terminal (done / running / failed, elapsed, estimate); a log line per
    finished job elsewhere."""

    def __init__(self, total, skipped, stream=sys.stderr, quiet=False):
        self.total, self.skipped, self.stream, self.quiet = total, skipped, stream, quiet
        self.enabled = stream.isatty() and not quiet
        self.start = time.time()
        self.done = self.failed = self.running = 0
        self._last = 0.0

    def finished(self, record):
        self.done += 1
        self.running = max(0, self.running - 1)
        self.failed += record.get("status") != "ok"
        if not self.enabled and not self.quiet:
            m = record.get("metrics", {})
            what = (f"hpwl {m['hpwl']:.4e} iterations {m['iterations']}" if "hpwl" in m else
                    f"evaluate {m['evaluate_ms']:.3f} ms" if "evaluate_ms" in m else record.get("error", ""))
            swept = " ".join(f"{k}={v}" for k, v in record.get("swept", {}).items() if k != "design")
            log.info("job %d/%d %s: %s %s: %s (%s, %.1f s)", self.done, self.total, record["status"],
                     record.get("design"), swept, what, record.get("device"), record.get("wall_seconds", 0))
        self.show(force=True)

    def show(self, running=None, force=False):
        if running is not None:
            self.running = running
        now = time.time()
        if not self.enabled or (not force and now - self._last < 0.5):
            return
        self._last = now
        elapsed = now - self.start
        left = self.total - self.done
        eta = f", ~{_clock(elapsed / self.done * left)} left" if self.done and left else ""
        self.stream.write(f"\rsweep: {self.done}/{self.total} done, {self.running} running, {self.failed} failed, "
                          f"{_clock(elapsed)} elapsed{eta}" + (f" ({self.skipped} from before)" if self.skipped else "")
                          + "   ")
        self.stream.flush()

    def close(self):
        self.show(running=0, force=True)
        if self.enabled:
            self.stream.write("\n")


def _clock(seconds):
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


def _resources(job, gpu_workers):
    if gpu_workers and (job.params["device"] == "auto" or job.params["device"].startswith("cuda")):
        return {"GPU": 1}
    return None


def run(config, results=None, *, scheduler=None, security=None, cluster=None, gpus=None, workers=None,
        threads=None, rerun_failed=False, quiet=False, on_record: Optional[Callable] = None, report=True):
    """Runs a sweep: `config` a TOML path or a dict (see _sweep_config). results: the JSON Lines
    file (default: the config's `results`, else <config name>.jsonl, in the current directory).
    Runs on `cluster` (a distributed cluster object), the scheduler at `scheduler` (an address),
    or an embedded local_cluster(gpus, workers, threads). quiet: no progress display or log line
    per job. on_record(record, client) is called after each record is written. report: write the
    summary and plots. Returns a SweepReport."""
    from distributed import Client, as_completed

    if isinstance(config, dict):
        kind, jobs, default_results = _sweep_config.from_dict(config)
        config_path = None
    else:
        config_path = pathlib.Path(config)
        kind, jobs, default_results = _sweep_config.load(config_path)
    results = pathlib.Path(results or default_results or (config_path.stem if config_path else "sweep") + ".jsonl")
    earlier = _sweep_results.read(results)
    done = _sweep_results.finished(earlier, rerun_failed)
    todo = [j for j in jobs if j.id not in done]
    if len(todo) < len(jobs):
        log.info("%s: %d of %d jobs already recorded; running the other %d", results, len(jobs) - len(todo),
                 len(jobs), len(todo))
    own_cluster = None
    if cluster is None and scheduler is None and todo:
        cluster = own_cluster = local_cluster(gpus, workers, threads)
    writer = _sweep_results.Writer(results)
    records, names = [], []
    t0 = time.time()
    client = None
    try:
        if todo:
            client = _connect(Client, scheduler, security) if scheduler else Client(cluster)
            # Every worker of a cluster started here is up before the clock starts (throughput).
            client.wait_for_workers(len(getattr(cluster, "worker_spec", None) or [0]), timeout=300)
            info = client.scheduler_info()["workers"]
            names = sorted(str(w.get("name")) for w in info.values())
            gpu_workers = any("GPU" in w.get("resources", {}) for w in info.values())
            show = Progress(len(todo), len(jobs) - len(todo), quiet=quiet)
            worker_threads = client.nthreads()
            t0 = time.time()
            futures = {client.submit(_sweep_jobs.run_job, job, key=f"{kind}-{job.id}", pure=False,
                                     resources=_resources(job, gpu_workers)): job for job in todo}
            pending = as_completed(futures)
            last_poll = 0.0
            while not pending.is_empty():
                batch = pending.next_batch(block=False)
                for future in batch:
                    record = _result_of(future, futures[future])
                    future.release()  # its result is on disk: nothing to recompute if its worker dies now
                    writer.write(record)
                    records.append(record)
                    show.finished(record)
                    if on_record:
                        on_record(record, client)
                if not batch:
                    if time.time() - last_poll > 2:
                        show.show(running=_running(client, worker_threads))
                        last_poll = time.time()
                    time.sleep(0.05)
            show.close()
    finally:
        writer.close()
        if client is not None:
            client.close()
        if own_cluster is not None:
            own_cluster.close()
    wall = time.time() - t0
    out = SweepReport(records, _sweep_results.latest(_sweep_results.read(results, repair=False)),
                      len(jobs) - len(todo), wall, names)
    if report:
        write_report(out, kind, results)
    return out


def _running(client, threads):
    """Jobs executing now: the scheduler's tasks per worker, at most its threads (the rest wait
    in its queue)."""
    return sum(min(len(keys), threads.get(worker, 1)) for worker, keys in client.processing().items())


def _connect(client_class, address, security):
    try:
        return client_class(address, security=security, timeout=60)
    except Exception as e:  # noqa: BLE001 - said with the address (TLS settings, unreachable host)
        raise ConnectionError(f"cannot connect to the scheduler at {address}: {type(e).__name__}: {e}") from e


def _result_of(future, job):
    """The job's record; a job the cluster could not run (its workers kept dying, ...) becomes a
    failed record."""
    try:
        return future.result()
    except Exception as e:  # noqa: BLE001 - recorded, the sweep goes on
        return {"job": job.id, "kind": job.kind, "design": job.design["label"], "swept": job.swept,
                "params": dict(job.params), "status": "failed", "error": f"{type(e).__name__}: {e}",
                **_sweep_jobs.where("?")}


def write_report(report, kind, results):
    """RESULTS.md (the table of every job in the file, and this run's throughput) and the plots."""
    results = pathlib.Path(results)
    base = results.with_suffix("")
    text = [f"# Sweep {results.name}", "",
            f"- jobs in the file: {len(report.all_records)}; this run: {len(report.records)} "
            f"({len(report.failed)} failed), {report.skipped} skipped (recorded before)",
            f"- workers: {', '.join(report.workers) or '-'}",
            f"- wall time of this run: {report.wall_seconds:.1f} s, {report.jobs_per_hour:.1f} jobs per hour", "",
            _sweep_results.table(report.all_records, kind)]
    report.summary_path = str(base) + ".md"
    pathlib.Path(report.summary_path).write_text("\n".join(text))
    report.plots = _sweep_results.plots(report.all_records, kind, str(base))
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m efield.sweep", description=__doc__.split("\n")[0])
    ap.add_argument("config", help="the sweep's TOML file")
    ap.add_argument("--results", help="JSON Lines results file (default: the config's `results`, else "
                    "CONFIG-NAME.jsonl in the current directory)")
    ap.add_argument("--scheduler", help="address of an existing Dask scheduler (tcp://HOST:8786, tls://...)")
    ap.add_argument("--gpus", help="embedded cluster: the GPUs to use, e.g. 0,1 (default: all; 'none': CPU workers)")
    ap.add_argument("--workers", type=int, help="embedded cluster without GPUs: worker processes (default: "
                    "cores / 4)")
    ap.add_argument("--threads", type=int, help="embedded cluster: CPU threads per worker (default: cores / workers)")
    ap.add_argument("--rerun-failed", action="store_true", help="run the jobs recorded as failed again")
    ap.add_argument("--tls-ca-file", help="TLS: the CA certificate (PEM)")
    ap.add_argument("--tls-cert", help="TLS: this client's certificate (PEM)")
    ap.add_argument("--tls-key", help="TLS: this client's private key (PEM)")
    ap.add_argument("--check", action="store_true", help="check the config and list its jobs; run nothing")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress display")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    log.setLevel(logging.WARNING if args.quiet else logging.INFO)
    import distributed  # noqa: F401 - its logging set up first, then made quieter: warnings and errors only

    logging.getLogger("distributed").setLevel(logging.WARNING)
    try:
        if args.check:
            kind, jobs, _ = _sweep_config.load(args.config)
            for j in jobs:
                print(f"{j.id}  {kind}  {j.label}")
            print(f"{len(jobs)} jobs")
            return 0
        gpus = None
        if args.gpus:
            gpus = [] if args.gpus == "none" else [int(g) for g in args.gpus.split(",")]
        security = security_from(args.tls_ca_file, args.tls_cert, args.tls_key)
        report = run(args.config, args.results, scheduler=args.scheduler, security=security, gpus=gpus,
                     workers=args.workers, threads=args.threads, rerun_failed=args.rerun_failed, quiet=args.quiet)
    except (ConfigError, _sweep_results.ResultsFileError, ValueError, ConnectionError) as e:
        print(f"efield.sweep: {e}", file=sys.stderr)
        return 2
    print(pathlib.Path(report.summary_path).read_text())
    for p in report.plots:
        print(f"plot: {p}")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
