"""certdp sweep: the same records on a process pool / Dask as serially, a killed worker loses nothing,
--resume does no finished job twice."""

import importlib.util
import json
import os
import signal

import pytest

from certdp.sweep import content, load_spec, read_records, run_jobs

SPEC = {"grid": [
    {"kind": "calibrate", "mechanism": "gaussian", "epsilon": "0.1:10:5", "delta": ["1e-5", 1e-8]},
    {"kind": "calibrate", "mechanism": "laplace", "epsilon": ["0.5", "1"], "delta": ["0", "1e-6"]},
    {"kind": "audit", "mechanism": "gaussian", "value": ["1", "3.5", "5"], "epsilon": ["0.5", "1", "2"],
     "delta": "1e-5"},
    {"kind": "audit", "mechanism": "classic-gaussian", "epsilon": ["0.5", "2"], "delta": "1e-5"},
    {"kind": "profile", "mechanism": "uniform", "value": ["2", "4"], "epsilon": ["0.5", "1"]},
    {"kind": "calibrate", "mechanism": "gaussian", "epsilon": "-1", "delta": "1e-5"},  # an error is a result
]}


def _same(a, b):
    assert [r["id"] for r in a] == [r["id"] for r in b]
    for x, y in zip(a, b):
        assert json.dumps(content(x), sort_keys=True) == json.dumps(content(y), sort_keys=True)


@pytest.fixture(scope="module")
def jobs():
    return load_spec(SPEC)


@pytest.fixture(scope="module")
def serial(jobs):
    return run_jobs(jobs, workers=1).records


def test_spec_expands_grids_with_exact_literals(jobs, tmp_path):
    assert len(jobs) == 10 + 4 + 9 + 2 + 4 + 1
    assert jobs[0]["epsilon"] == "0.1" and {j["delta"] for j in jobs[:10]} == {"1e-5", "1e-08"}
    file = tmp_path / "s.json"
    file.write_text('{"jobs": [{"kind": "calibrate", "mechanism": "gaussian", "epsilon": 0.1, "delta": 1e-5}]}')
    (job,) = load_spec(file)
    assert (job["epsilon"], job["delta"]) == ("0.1", "1e-5")  # the literal text, not a double
    assert job["id"] == load_spec(file)[0]["id"]


@pytest.mark.parametrize("spec, reason", [
    ({"jobs": [{"kind": "bake"}]}, "kind must be one of"),
    ({"jobs": [{"kind": "calibrate", "mechanism": "gaussian"}]}, "needs epsilon, delta"),
    ({"jobs": [{"kind": "sleep", "seconds": "0", "colour": "red"}]}, "unknown key"),
    ({"grid": {"kind": "audit", "epsilon": "1:0.1:3"}}, "start must be below stop"),
    ({"jobs": [{"kind": "sleep", "seconds": "0"}] * 2}, "same id"),
    ({}, "no jobs"),
])
def test_bad_spec_is_a_clean_error(spec, reason, tmp_path, cli):
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(spec))
    out = cli("sweep", str(file), "-o", str(tmp_path / "out.jsonl"))
    assert out.returncode == 2 and out.stderr.startswith("error: spec: ") and reason in out.stderr


def test_serial_records(serial):
    statuses = [r["status"] for r in serial]
    assert statuses.count("error") == 1 and "epsilon" in serial[-1]["error"]
    verdicts = [r["result"]["certificate"].get("verdict") for r in serial if r["job"]["kind"] == "audit"]
    # sigma = 1 is (eps, 1e-5)-DP for none of eps = 0.5, 1, 2; sigma = 3.5 for eps >= 1 (the minimum at 1 is 3.7306...)
    assert verdicts[:6] == ["VIOLATED"] * 3 + ["VIOLATED", "VIOLATED", "VALID"]


def test_process_pool_equals_serial(jobs, serial):
    pooled = run_jobs(jobs, workers=2, batch_size=3)
    assert pooled.backend == "process-pool" and pooled.workers == 2
    assert len({r["timing"]["worker"] for r in pooled.records}) >= 2
    _same(serial, pooled.records)


def test_killed_pool_worker_loses_no_job(tmp_path):
    jobs = load_spec({"grid": {"kind": "sleep", "seconds": ["0.02"], "id": [f"s{i}" for i in range(40)]}})
    killed = []

    def kill_first_worker(record):
        if not killed and record["timing"]["worker"] not in (None, os.getpid()):
            killed.append(record["timing"]["worker"])
            os.kill(record["timing"]["worker"], signal.SIGKILL)  # it has started its next batch by now

    result = run_jobs(jobs, workers=2, batch_size=2, output=tmp_path / "o.jsonl", on_record=kill_first_worker)
    assert killed and result.resubmitted > 0
    assert [r["status"] for r in result.records] == ["ok"] * 40
    assert sorted(r["id"] for r in read_records(tmp_path / "o.jsonl")) == sorted(j["id"] for j in jobs)


def test_resume_does_no_finished_job_twice(jobs, serial, tmp_path):
    out = tmp_path / "o.jsonl"
    run_jobs(jobs[:12], workers=1, output=out)
    before = out.read_bytes()
    with out.open("a") as handle:
        handle.write('{"id": "torn by a kill')  # an interrupted write
    result = run_jobs(jobs, workers=1, output=out, resume=True)
    assert (result.skipped, result.executed) == (12, len(jobs) - 12)
    assert out.read_bytes().startswith(before)
    ids = [r["id"] for r in read_records(out)]
    assert len(ids) == len(set(ids)) == len(jobs)
    _same(serial, result.records)
    again = run_jobs(jobs, workers=2, output=out, resume=True)
    assert again.executed == 0 and len(read_records(out)) == len(jobs)


def test_cli_sweep_and_resume(tmp_path, cli):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"grid": {"kind": "audit", "mechanism": "gaussian", "value": ["3.5", "4"],
                                         "epsilon": "1", "delta": "1e-5"}}))
    out = cli("sweep", str(spec), "--workers", "1", "--json")
    summary = json.loads(out.stdout)
    assert out.returncode == 0 and summary["executed"] == 2 and summary["by_kind"]["audit"]["VALID"] == 1
    assert (tmp_path / "spec.results.jsonl").exists()
    out = cli("sweep", str(spec), "--workers", "1")
    assert out.returncode == 2 and "--resume" in out.stderr
    out = cli("sweep", str(spec), "--resume", "--json")
    assert json.loads(out.stdout)["skipped"] == 2


dask_installed = importlib.util.find_spec("distributed") is not None


@pytest.mark.skipif(not dask_installed, reason="dask.distributed is not installed")
def test_dask_local_cluster_equals_serial(jobs, serial):
    from dask.distributed import Client, LocalCluster

    more = load_spec({"grid": {"kind": "profile", "mechanism": "laplace", "value": "1",
                               "epsilon": "0.1:5:21"}})
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        result = run_jobs(jobs + more, dask=client, batch_size=4)
    assert result.backend == "dask" and len(result.records) == len(jobs) + len(more) == 51
    _same(serial + run_jobs(more, workers=1).records, result.records)


@pytest.mark.skipif(not dask_installed, reason="dask.distributed is not installed")
def test_dask_killed_worker_loses_no_job():
    from dask.distributed import Client, LocalCluster

    jobs = load_spec({"grid": {"kind": "sleep", "seconds": ["0.05"], "id": [f"d{i}" for i in range(40)]}})
    killed = []

    def kill_first_worker(record):
        if not killed:
            killed.append(record["timing"]["worker"])
            os.kill(record["timing"]["worker"], signal.SIGKILL)

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        result = run_jobs(jobs, dask=client, batch_size=2, on_record=kill_first_worker)
    assert killed and [r["status"] for r in result.records] == ["ok"] * 40


@pytest.mark.skipif(not dask_installed, reason="dask.distributed is not installed")
def test_cli_sweep_on_an_existing_dask_scheduler_over_tcp(jobs, serial, tmp_path):
    """`certdp sweep --dask tcp://127.0.0.1:PORT` against a scheduler and 2 workers started as separate
    processes (what a cluster looks like), records equal to the serial run."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    from dask.distributed import Client

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root))
    scheduler_file = tmp_path / "scheduler.json"
    started = []
    try:
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(scheduler_file)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        started.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "2", "--nthreads", "1",
             "--no-dashboard"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        spec = tmp_path / "spec.json"
        spec.write_text(json.dumps(SPEC))
        out = subprocess.run([sys.executable, "-m", "certdp.cli.main", "sweep", str(spec), "--dask", address,
                              "--batch-size", "4", "-o", str(tmp_path / "o.jsonl"), "--json"],
                             env=env, capture_output=True, text=True, timeout=600)
        summary = json.loads(out.stdout)
        assert out.returncode == 1  # SPEC has one job that is an error by design
        assert summary["backend"] == "dask" and summary["workers"] == 2 and summary["executed"] == len(jobs)
        records = {r["id"]: r for r in read_records(tmp_path / "o.jsonl")}
        _same(serial, [records[j["id"]] for j in jobs])
        assert len({records[j["id"]]["timing"]["worker"] for j in jobs}) == 2
    finally:
        for process in reversed(started):
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
