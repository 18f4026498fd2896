"""efield.sweep on a LocalCluster of two CPU worker processes: the results equal the jobs run one
by one in-process; a worker killed mid-job loses nothing; resume skips recorded jobs and reruns a
half-written last line; a failing job is recorded; bad configs fail before anything runs; the
ISPD2005 suite config on small stand-ins."""

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

from conftest import ROOT, torch

distributed = pytest.importorskip("distributed", reason="Dask's distributed is not installed")
pytestmark = [pytest.mark.skipif(torch is None, reason="PyTorch is not installed"),
              pytest.mark.skipif(sys.version_info < (3, 11), reason="efield.sweep reads TOML with tomllib (3.11+)")]

from efield import _sweep_config, _sweep_jobs, sweep  # noqa: E402

import tomllib  # noqa: E402

AUX = ROOT / "data" / "synthetic2000" / "synthetic2000.aux"


def six_jobs(max_iters=30, **extra):
    return {"kind": "place", "designs": [{"aux": str(AUX)}], "params": {"max_iters": max_iters, **extra},
            "grid": {"target_density": [0.9, 1.0], "seed": [1, 2, 3]}}


@pytest.fixture(scope="module")
def cluster():
    c = sweep.local_cluster(gpus=[], workers=2, threads=1)
    yield c
    c.close()


def lines(path):
    return [json.loads(line) for line in pathlib.Path(path).read_text().splitlines()]


def test_six_jobs_match_running_them_in_process(cluster, tmp_path):
    results = tmp_path / "r.jsonl"
    report = sweep.run(six_jobs(), results, cluster=cluster, quiet=True)
    records = lines(results)
    assert len(records) == 6 and len({r["job"] for r in records}) == 6
    assert all(r["status"] == "ok" for r in records), [r.get("error") for r in records]
    assert {r["pid"] for r in records} and len(report.workers) == 2
    _, jobs, _ = _sweep_config.from_dict(six_jobs())
    by_id = {j.id: j for j in jobs}
    for r in records:
        assert r["host"] and r["device"] == "cpu" and r["versions"]["distributed"]
        job = by_id[r["job"]]
        # The same job in this process, on the worker's device with its thread count.
        same = {**job.params, "device": r["params"]["device"], "threads": r["params"]["threads"]}
        local = _sweep_jobs.run_job(_sweep_config.Job(job.kind, job.design, same, job.swept))
        for key in ("hpwl", "overflow", "iterations", "evaluations", "density_weight"):
            assert r["metrics"][key] == pytest.approx(local["metrics"][key], rel=1e-9), key
    # The summary and one plot per swept parameter.
    assert "| synthetic2000 |" in pathlib.Path(report.summary_path).read_text()
    assert sorted(pathlib.Path(p).name for p in report.plots) == ["r_seed.png", "r_target_density.png"]


def test_a_worker_killed_mid_job_loses_nothing(cluster, tmp_path):
    killed = []

    def kill_a_busy_worker(record, client):
        if killed:
            return
        busy = [addr for addr, keys in client.processing().items() if keys]
        if busy:
            pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    results = tmp_path / "r.jsonl"
    report = sweep.run(six_jobs(max_iters=120), results, cluster=cluster, quiet=True, on_record=kill_a_busy_worker,
                       report=False)
    assert killed, "no worker was busy after the first job"
    records = lines(results)
    assert sorted(r["job"] for r in records) == sorted({r["job"] for r in records}) and len(records) == 6
    assert all(r["status"] == "ok" for r in records), [r.get("error") for r in records]
    assert len(report.records) == 6


def test_resume_skips_recorded_jobs_and_reruns_a_cut_line(cluster, tmp_path):
    results = tmp_path / "r.jsonl"
    first = sweep.run(six_jobs(), results, cluster=cluster, quiet=True, report=False)
    text = results.read_text().splitlines(keepends=True)
    results.write_text("".join(text[:2]) + text[2][:len(text[2]) // 2])  # a run killed while writing line 3
    again = sweep.run(six_jobs(), results, cluster=cluster, quiet=True, report=False)
    assert again.skipped == 2 and len(again.records) == 4
    records = lines(results)
    assert len(records) == 6 and {r["job"] for r in records} == {r["job"] for r in first.records}
    nothing = sweep.run(six_jobs(), results, cluster=cluster, quiet=True, report=False)
    assert nothing.skipped == 6 and nothing.records == [] and len(lines(results)) == 6


def test_a_failing_job_is_recorded_and_the_others_finish(cluster, tmp_path):
    broken = next((ROOT / "tests" / "data" / "bookshelf").rglob("*.aux"))
    config = six_jobs()
    config["designs"].append({"aux": str(broken), "name": "broken"})
    config["grid"] = {"seed": [1, 2]}
    results = tmp_path / "r.jsonl"
    report = sweep.run(config, results, cluster=cluster, quiet=True)
    records = lines(results)
    assert len(records) == 4
    failed = [r for r in records if r["status"] != "ok"]
    assert len(failed) == 2 and all(r["design"] == "broken" and r["error"] for r in failed)
    assert len(report.failed) == 2
    assert "failed: " in pathlib.Path(report.summary_path).read_text()
    rerun = sweep.run(config, results, cluster=cluster, quiet=True, report=False, rerun_failed=True)
    assert len(rerun.records) == 2  # only the failed jobs run again


def test_gpu_style_workers_are_pinned_each_to_its_device(tmp_path):
    """The embedded cluster's per-GPU workers (here asked for by index on a CPU machine, the
    jobs on the CPU): each worker process has its own CUDA_VISIBLE_DEVICES and a GPU resource."""
    c = sweep.local_cluster(gpus=[0, 1], threads=1)
    try:
        report = sweep.run(six_jobs(device="cpu"), tmp_path / "r.jsonl", cluster=c, quiet=True, report=False)
    finally:
        c.close()
    assert sorted(report.workers) == ["gpu0", "gpu1"]
    assert {r["cuda_visible_devices"] for r in report.records} <= {"0", "1"}
    pids = {r["pid"] for r in report.records}
    assert len({(r["pid"], r["cuda_visible_devices"]) for r in report.records}) == len(pids)


@pytest.mark.parametrize("change, message", [
    (lambda c: c["params"].update(gamma=1), "unknown parameter(s) gamma"),
    (lambda c: c["designs"].append({"aux": "missing/nothing.aux"}), "does not exist"),
    (lambda c: c.update(grid={}), "[grid] is empty"),
    (lambda c: c["grid"].update(seed=[]), "grid.seed must be a non-empty list"),
    (lambda c: c.update(designs=[]), "no designs"),
    (lambda c: c.update(kind="legalize"), "kind must be one of"),
    (lambda c: c.update(extra=1), "unknown key(s) extra"),
    (lambda c: c["params"].update(max_iters="__import__('os').getpid()"), "max_iters must be an integer"),
    (lambda c: c["grid"].update(target_density=[0.9, 1.5]), "target_density must lie in (0, 1]"),
    (lambda c: c["grid"].update(seed=[1, 1]), "appears twice"),
    (lambda c: c["designs"].append({"standin": "adaptec9"}), "not an ISPD2005 design"),
    (lambda c: c["designs"].append({"synthetic": {"cells": 100, "colour": 1}}), "unknown key 'colour'"),
])
def test_bad_configs_fail_before_running(change, message, tmp_path):
    config = six_jobs()
    change(config)
    with pytest.raises(_sweep_config.ConfigError) as e:
        sweep.run(config, tmp_path / "r.jsonl", cluster=object())
    assert message in str(e.value)
    assert not (tmp_path / "r.jsonl").exists()


def test_command_line_checks_a_config_and_names_the_problem(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(f'kind = "place"\n[[designs]]\naux = "{AUX}"\n[grid]\nseed = [1, 2]\n')
    bad = tmp_path / "bad.toml"
    bad.write_text('[[designs]]\naux = "nowhere.aux"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    ok = subprocess.run([sys.executable, "-m", "efield.sweep", str(good), "--check"], capture_output=True, text=True,
                        env=env, cwd=tmp_path)
    assert ok.returncode == 0 and "2 jobs" in ok.stdout, ok.stderr
    fail = subprocess.run([sys.executable, "-m", "efield.sweep", str(bad)], capture_output=True, text=True, env=env,
                          cwd=tmp_path)
    assert fail.returncode == 2 and "nowhere.aux does not exist" in fail.stderr
    assert not list(tmp_path.glob("*.jsonl"))


def test_ispd2005_suite_config_on_small_standins(cluster, tmp_path):
    path = ROOT / "examples" / "sweeps" / "ispd2005_suite.toml"
    with open(path, "rb") as f:
        config = tomllib.load(f)
    for d in config["designs"]:
        d["scale"] = 0.002
    config["params"].update(iters=3, warmup=1)
    report = sweep.run(config, tmp_path / "suite.jsonl", cluster=cluster, quiet=True)
    assert len(report.records) == 8 and not report.failed, [r.get("error") for r in report.failed]
    for r in report.records:
        m = r["metrics"]
        assert m["evaluate_ms"] > 0 and set(m["stages_ms"]) >= {"rasterize_ms", "gather_ms"} and 0 < m["overflow"] <= 1
    assert "adaptec1-synthetic@0.002" in pathlib.Path(report.summary_path).read_text()


def test_embedded_cluster_listens_on_loopback_only(cluster):
    psutil = pytest.importorskip("psutil")
    me = psutil.Process()
    pids = {me.pid} | {p.pid for p in me.children(recursive=True)}
    try:
        listening = {c.laddr.ip for c in psutil.net_connections(kind="inet") if c.status == "LISTEN" and c.pid in pids}
    except psutil.AccessDenied:
        pytest.skip("listening sockets cannot be listed here")
    assert listening == {"127.0.0.1"}


def test_runs_on_a_scheduler_given_by_address(cluster, tmp_path):
    config = six_jobs()
    config["grid"] = {"seed": [1, 2]}
    report = sweep.run(config, tmp_path / "r.jsonl", scheduler=cluster.scheduler_address, quiet=True, report=False)
    assert len(report.records) == 2 and not report.failed
