"""Scenario files: the shipped ones parse, bad ones name the field; and the
pure pieces a scenario feeds (cluster file, host capacity, the measures)."""

from __future__ import annotations

import copy
import pathlib
from typing import Any

import pytest
import yaml

from loadtest import measure
from loadtest.harness import (
    cluster_data,
    host_capacity,
    job_config,
    main,
    pool_config,
    secure_section,
)
from loadtest.report import STABLE_KEYS, format_table
from loadtest.scenario import (
    SCENARIO_DIR,
    DrainSpec,
    UpdateSpec,
    builtin_names,
    load,
    parse,
    resolve,
)
from peloton import config as cluster_config
from peloton.core.errors import InvalidArgument
from peloton.ops import minicluster

MINIMAL: dict[str, Any] = {
    "name": "t",
    "cluster": {"hosts": 4, "host_shape": {"cpu": 4, "memory_mb": 4096, "disk_mb": 4096}},
    "workload": [{"name": "w", "jobs": 2, "instances": 3,
                  "task": {"cpu": 1, "memory_mb": 64, "disk_mb": 64, "duration_s": 1}}],
}


def with_(path: str, value: Any) -> dict[str, Any]:
    """MINIMAL with the value at dotted ``path`` replaced (``workload.0.jobs``)."""
    data = yaml.safe_load(yaml.safe_dump(MINIMAL))
    *parents, last = path.split(".")
    node: Any = data
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node.setdefault(p, {})
    if isinstance(node, list) and int(last) == len(node):
        node.append(value)
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


# --------------------------------------------------------------------------- shipped


def test_the_required_scenarios_are_shipped() -> None:
    assert {"smoke", "10k-hosts-100k-tasks", "10k-hosts-1m-tasks",
            "mixed-services-batch"} <= set(builtin_names())


@pytest.mark.parametrize("name", builtin_names())
def test_every_shipped_scenario_parses(name: str) -> None:
    scenario = load(name)
    assert scenario.name == name
    assert scenario.bulk_tasks > 0
    # its cluster file is one the daemons accept
    data = cluster_data(scenario, pathlib.Path("/tmp/x"), list(range(20000, 20100)))
    config = cluster_config.parse(data)
    assert len(config.of_kind("hostmgr")) == scenario.cluster.hostmgr_shards
    assert sum(d.options["hosts"] for d in config.of_kind("hostmgr")) == scenario.cluster.hosts
    # its pools are valid pool configs
    for pool in scenario.pools:
        pool_config(pool, scenario.cluster.capacity())
    for group in scenario.workload:
        job_config("x", group.type, group.instances, group.task, group.task.duration_s[0])


def test_the_sizes_the_issue_names() -> None:
    big = load("10k-hosts-1m-tasks")
    assert big.cluster.hosts == 10_000
    assert [(g.jobs, g.instances) for g in big.workload] == [(1000, 1000)]
    assert load("10k-hosts-100k-tasks").bulk_tasks == 100_000
    smoke = load("smoke")
    assert smoke.bulk_tasks <= 1000 and smoke.cluster.hosts <= 100


def test_a_path_is_a_scenario_too(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in MINIMAL.items() if k != "name"}))
    scenario = load(str(path))
    assert scenario.name == "mine"
    assert resolve("smoke") == SCENARIO_DIR / "smoke.yaml"


def test_an_unknown_scenario_lists_the_shipped_ones() -> None:
    with pytest.raises(InvalidArgument, match="smoke") as caught:
        load("no-such-scenario")
    assert caught.value.field == "scenario"


def test_the_command_exits_2_on_an_unknown_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-scenario"]) == 2
    assert "no scenario" in capsys.readouterr().err


def test_defaults() -> None:
    s = parse(MINIMAL)
    assert [p.path for p in s.pools] == ["/loadtest"]
    assert s.pools[0].resources(s.cluster.capacity())["cpu"] == (16.0, 16.0)
    assert s.workload[0].pool == "/loadtest"
    assert s.workload[0].arrival.mode == "burst"
    assert s.cluster.resmgrs == 3 and s.probes is None


def test_a_service_group_with_an_update() -> None:
    data = MINIMAL | {"workload": [{
        "name": "web", "jobs": 2, "instances": 1000, "type": "service",
        "max_unavailable": "5%", "update": {"after_s": 3, "batch_size": 100}}]}
    [group] = parse(data).workload
    assert (group.type, group.max_unavailable, group.update) == (
        "service", 50, UpdateSpec(3.0, 100))
    data["workload"][0]["max_unavailable"] = "0.01%"
    assert parse(data).workload[0].max_unavailable == 1  # at least one
    for bad, field in (("lots%", "max_unavailable"), (2000, "max_unavailable"),
                       ({"batch": 1}, "update.batch")):
        key = "update" if field.startswith("update") else "max_unavailable"
        broken = copy.deepcopy(data)
        broken["workload"][0][key] = bad
        with pytest.raises(InvalidArgument) as error:
            parse(broken)
        assert error.value.field == f"workload[0].{field}"


def test_a_drain_takes_a_share_of_the_hosts() -> None:
    assert parse(with_("drain", {"after_s": 5, "hosts": "50%"})).drain == DrainSpec(5.0, 2)
    assert parse(with_("drain", {"hosts": 1})).drain == DrainSpec(0.0, 1)
    assert parse(MINIMAL).drain is None


def test_quantities_and_ranges() -> None:
    data = with_("pools", [
        {"path": "/a", "cpu": "cluster", "memory_mb": "50%", "disk_mb": {"limit": 10}},
        {"path": "/a/b", "cpu": {"reservation": 1, "limit": "cluster"}},
    ])
    data["workload"][0]["pool"] = "/a/b"
    data["workload"][0]["task"]["duration_s"] = [1, 2.5]
    s = parse(data)
    cap = s.cluster.capacity()
    assert s.pools[0].resources(cap) == {"cpu": (16.0, 16.0), "memory_mb": (8192.0, 8192.0),
                                         "disk_mb": (0.0, 10.0)}
    assert s.pools[1].resources(cap) == {"cpu": (1.0, 16.0)}
    assert s.workload[0].task.duration_s == (1.0, 2.5)


# --------------------------------------------------------------------------- bad ones


@pytest.mark.parametrize(("path", "value", "field"), [
    ("nme", 1, "nme"),
    ("name", "a b", "name"),
    ("timeout_s", 0, "timeout_s"),
    ("concurrency", "many", "concurrency"),
    ("cluster.hosts", 0, "cluster.hosts"),
    ("cluster.hostmgr_shards", 5, "cluster.hosts"),
    ("cluster.jobmgrs", 0, "cluster.jobmgrs"),
    ("cluster.shards", 5000, "cluster.shards"),
    ("cluster.failure_rate", 1.5, "cluster.failure_rate"),
    ("cluster.gpu_hosts", 9, "cluster.gpu_hosts"),
    ("cluster.host_shape", {"cpu": -1}, "cluster.host_shape.cpu"),
    ("cluster.host_shape", {"cores": 4}, "cluster.host_shape.cores"),
    ("cluster.hots", 4, "cluster.hots"),
    ("workload", [], "workload"),
    ("drain", {"after_s": 5}, "drain.hosts"),
    ("drain", {"hosts": "0%"}, "drain.hosts"),
    ("drain", {"hosts": 4}, "drain.hosts"),  # every host: none left
    ("drain", {"hosts": "half"}, "drain.hosts"),
    ("drain", {"hosts": 1, "after": 3}, "drain.after"),
    ("workload.0.jobs", 0, "workload[0].jobs"),
    ("workload.0.instances", 200_000, "workload[0].instances"),
    ("workload.0.name", None, "workload[0].name"),
    ("workload.0.type", "daemon", "workload[0].type"),
    ("workload.0.max_unavailable", 2, "workload[0].max_unavailable"),  # batch: refused
    ("workload.0.update", {"batch_size": 1}, "workload[0].update"),
    ("workload.0.task", {"cpu": 0}, "workload[0].task.cpu"),
    ("workload.0.task", {"cpu": 8}, "workload[0].task.cpu"),
    ("workload.0.task", {"memory_mb": 1e9}, "workload[0].task.memory_mb"),
    ("workload.0.task", {"gpu": 1}, "workload[0].task.gpu"),
    ("workload.0.task", {"duration_s": "long"}, "workload[0].task.duration_s"),
    ("workload.0.task", {"duration_s": [3, 1]}, "workload[0].task.duration_s"),
    ("workload.0.task", {"duration_s": [1, "x"]}, "workload[0].task.duration_s[1]"),
    ("workload.0.arrival", {"mode": "trickle"}, "workload[0].arrival.mode"),
    ("workload.0.arrival", {"mode": "rate"}, "workload[0].arrival.jobs_per_s"),
    ("workload.0.arrival", {"mode": "rate", "jobs_per_s": 0}, "workload[0].arrival.jobs_per_s"),
    ("workload.0.arrival", {"mode": "burst", "jobs_per_s": 3},
     "workload[0].arrival.jobs_per_s"),
    ("workload.0.pool", "/elsewhere", "workload[0].pool"),
    ("workload.0.max_failures", 101, "workload[0].max_failures"),
    ("workload.0.extra", 1, "workload[0].extra"),
    ("pools", [], "pools"),
    ("pools", [{"path": "relative"}], "pools[0].path"),
    ("pools", [{"path": "/"}], "pools[0].path"),
    ("pools", [{"path": "/a//b"}], "pools[0].path"),
    ("pools", [{"path": "/a", "cpu": "lots"}], "pools[0].cpu"),
    ("pools", [{"path": "/a", "cpu": {"reservation": 2}}], "pools[0].cpu.limit"),
    ("pools", [{"path": "/a", "cpu": {"reservation": 3, "limit": 2}}],
     "pools[0].cpu.reservation"),
    ("pools", [{"path": "/a"}, {"path": "/a"}], "pools[1].path"),
    ("pools", [{"path": "/a/b"}], "pools[0].path"),
    ("pools", [{"path": "/a", "memory": 1}], "pools[0].memory"),
    ("probes", {"instances": 10}, "probes.every_s"),
    ("probes", {"every_s": 0}, "probes.every_s"),
    ("probes", {"every_s": 1, "pool": "/nope"}, "probes.pool"),
    ("probes", {"every_s": 1, "task": {"cpu": 100}}, "probes.task.cpu"),
    ("probes", {"every_s": 1, "max": 0}, "probes.max"),
    ("cluster", {"placement_bulk_tasks_per_s": 0}, "cluster.placement_bulk_tasks_per_s"),
    ("cluster", {"placement_bulk_tasks_per_s": "fast"}, "cluster.placement_bulk_tasks_per_s"),
])
def test_a_bad_scenario_names_the_field(path: str, value: Any, field: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse(with_(path, value))
    assert caught.value.field == field


def test_workload_names_are_unique() -> None:
    data = with_("workload.1", dict(MINIMAL["workload"][0]))
    with pytest.raises(InvalidArgument) as caught:
        parse(data)
    assert caught.value.field == "workload[1].name"


def test_not_a_mapping() -> None:
    with pytest.raises(InvalidArgument):
        parse([1, 2])


def test_a_workload_pool_must_be_a_leaf() -> None:
    data = with_("pools", [{"path": "/a"}, {"path": "/a/b"}])
    data["workload"][0]["pool"] = "/a"
    with pytest.raises(InvalidArgument, match="leaf") as caught:
        parse(data)
    assert caught.value.field == "workload[0].pool"


# --------------------------------------------------------------------------- what it feeds


def test_hosts_and_gpus_are_split_across_hostmgr_shards() -> None:
    data = with_("cluster", {"hosts": 10, "hostmgr_shards": 3, "gpu_hosts": 4,
                             "gpu_per_host": 2, "host_shape": {"cpu": 8}})
    s = parse(data)
    c = cluster_config.parse(cluster_data(s, pathlib.Path("/tmp/x"), list(range(30000, 30020))))
    hostmgrs = c.of_kind("hostmgr")
    assert [h.options["hosts"] for h in hostmgrs] == [4, 3, 3]
    assert [h.options["gpu_hosts"] for h in hostmgrs] == [2, 1, 1]
    assert [h.options["cluster"] for h in hostmgrs] == ["sim0", "sim1", "sim2"]
    assert s.cluster.capacity()["gpu"] == 8
    cap = host_capacity(s.cluster)
    assert cap("sim0-h00001") == (8.0, 128 * 1024.0, 1024 * 1024.0, 0.0)
    assert cap("sim0-h00003")[3] == 2  # type: ignore[index]
    assert cap("sim2-h00002")[3] == 2  # type: ignore[index]
    assert cap("sim2-h00001")[3] == 0  # type: ignore[index]
    assert cap("sim3-h00000") is None and cap("local-h00000") is None
    assert cap("sim1-h00003") is None


def test_percentiles() -> None:
    p = measure.percentiles([float(i) for i in range(1, 101)])
    assert (p["p50"], p["p90"], p["p99"], p["max"], p["count"]) == (50, 90, 99, 100, 100)
    assert measure.percentiles([])["p99"] is None


def test_overcommit_sweep() -> None:
    cap = (4.0, 100.0)
    back_to_back = [(0.0, 1.0, (4.0, 10.0)), (1.0, 2.0, (4.0, 10.0))]
    assert measure.overcommit_sweep("h", back_to_back, cap) is None
    overlap = [(0.0, 1.0, (3.0, 10.0)), (0.5, 2.0, (2.0, 10.0))]
    found = measure.overcommit_sweep("h", overlap, cap)
    assert found is not None and found.at == 0.5 and found.used == (5.0, 20.0)
    memory = [(0.0, 5.0, (1.0, 60.0)), (4.0, 6.0, (1.0, 50.0))]
    assert measure.overcommit_sweep("h", memory, cap) is not None


def test_derive_counters() -> None:
    # 100 tasks: 5 not yet enqueued, 30 done (forgotten by resmgr), 65 tracked.
    c = measure.derive_counters(
        100, 65, {"PENDING": 10, "READY": 5, "PLACING": 5, "PLACED": 2, "LAUNCHING": 3,
                  "RUNNING": 40},
        # the stored states may lag or regress; only terminal ones are used
        {"INITIALIZED": 5, "PENDING": 25, "RUNNING": 40, "SUCCEEDED": 30})
    assert (c["admitted"], c["placed"], c["launched"], c["running_total"], c["completed"]) \
        == (85, 75, 73, 70, 30)
    assert (c["pending"], c["ready"], c["launching"], c["running"]) == (15, 5, 3, 40)
    # a task that ended but is still tracked is not counted twice
    assert measure.derive_counters(10, 10, {"RUNNING": 10}, {"SUCCEEDED": 1})["pending"] == 0


def test_the_table_reads_a_minimal_report() -> None:
    report: dict[str, Any] = dict.fromkeys(STABLE_KEYS)
    report.update(scenario="t", tasks_total=1, tasks_completed=1, tasks_lost=0,
                  duplicate_runs=0, overcommitted_hosts=0, wall_s=1.0, daemons={
                      "resmgr-0": {"cpu_s": 0.5, "peak_rss_bytes": 50 << 20}}, correct=True)
    text = format_table(report)
    assert "loadtest t: OK" in text and "resmgr-0" in text


def test_each_placement_worker_gets_the_scenarios_bulk_pace() -> None:
    for pace, want in ((None, None), (2250, 2250)):
        s = parse(with_("cluster", {"placements": 2, **(
            {} if pace is None else {"placement_bulk_tasks_per_s": pace})}))
        assert s.cluster.placement_bulk_tasks_per_s == want
        c = cluster_config.parse(cluster_data(s, pathlib.Path("/tmp/x"),
                                              list(range(30000, 30020))))
        assert [p.options.get("bulk_tasks_per_s") for p in c.of_kind("placement")] == [want] * 2


def test_secure_writes_a_cluster_file_that_demands_tls_a_user_and_the_secret(
        tmp_path: pathlib.Path) -> None:
    """``python -m loadtest SCENARIO --secure``: the security section and
    every file it names, as the daemons load them."""
    data = cluster_data(load("smoke"), tmp_path, list(range(20000, 20040)))
    minicluster.write_raft_secret(tmp_path)  # (cluster_data names it, as the harness does)
    data["security"] = secure_section(tmp_path)
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(data))
    security = cluster_config.load(path).security
    assert security.server_ssl() is not None and security.client_ssl() is not None
    assert len(security.cluster_secret) >= 16
    assert set(security.users) == {"loadtest"}
    assert (tmp_path / "loadtest.password").stat().st_mode & 0o777 == 0o600
