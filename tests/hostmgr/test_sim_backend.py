"""The sim backend under trio's MockClock: simulated durations are exact.

Every async test takes ``autojump_clock`` (pytest-trio's
``MockClock(autojump_threshold=0)``; pytest-trio only looks for a clock among
the test function's own arguments, not its fixtures'), so ``sleep 30`` ends at exactly t=30
and a test that waits for it takes no real time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio
import trio.testing

from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.resources import Resources
from peloton.core.states import TaskState
from peloton.hostmgr.backends import sim
from peloton.hostmgr.backends.base import (
    REASON_COMMAND_FAILED,
    REASON_KILLED_ON_REQUEST,
    REASON_LAUNCH_FAILED,
    LaunchSpec,
    StatusUpdate,
)
from peloton.hostmgr.backends.sim import (
    REASON_AGENT_REMOVED,
    HostLoss,
    HostShape,
    SimBackend,
    plan_command,
)

JOB = "7f0c2a52-1d7e-4a3f-9a53-3f1d2e6c0b11"
TERMINAL = {TaskState.SUCCEEDED, TaskState.FAILED, TaskState.KILLED, TaskState.LOST}


class Harness:
    """Runs a backend and records (trio time, update) for every report."""

    def __init__(self, backend: SimBackend) -> None:
        self.backend = backend
        self.updates: list[tuple[float, StatusUpdate]] = []
        self.host_changes: list[tuple[float, str, bool]] = []
        backend.on_host_change = self._host_change

    def report(self, update: StatusUpdate) -> None:
        self.updates.append((trio.current_time(), update))

    def _host_change(self, hostname: str, up: bool) -> None:
        self.host_changes.append((trio.current_time(), hostname, up))

    def of(self, mesos_task_id: str) -> list[tuple[float, TaskState]]:
        return [(t, u.state) for t, u in self.updates if u.mesos_task_id == mesos_task_id]

    def last(self, mesos_task_id: str) -> StatusUpdate:
        return [u for _, u in self.updates if u.mesos_task_id == mesos_task_id][-1]

    def terminal_count(self) -> int:
        return sum(1 for _, u in self.updates if u.state in TERMINAL)


async def start(nursery: trio.Nursery, **options: object) -> Harness:
    harness = Harness(SimBackend(**options))  # type: ignore[arg-type]
    await nursery.start(harness.backend.run, harness.report)
    return harness


@pytest.fixture
async def sim10(autojump_clock: trio.testing.MockClock,
                nursery: trio.Nursery) -> AsyncIterator[Harness]:
    yield await start(nursery, hosts=10, clock=lambda: 1000.0 + trio.current_time())


def mid(n: int, run: int = 1) -> str:
    return f"{JOB}-{n}-{run}"


def spec(n: int, command: str, *, hostname: str = "sim-h00000", run: int = 1,
         shell: bool = True, arguments: tuple[str, ...] = (),
         environment: dict[str, str] | None = None) -> LaunchSpec:
    return LaunchSpec(mesos_task_id=mid(n, run), task_id=f"{JOB}-{n}", job_id=JOB,
                      instance_id=n, hostname=hostname, shell=shell, command=command,
                      arguments=arguments, environment=environment or {},
                      resources=Resources(cpu=1, memory=64))


# -- hosts ---------------------------------------------------------------------


def test_hosts_names_shapes_attributes_and_ports():
    backend = SimBackend(cluster="c1", hosts=100, gpu_hosts=2, gpu_per_host=8,
                         shapes=[HostShape(cpu=16), HostShape(cpu=32), HostShape(cpu=64)],
                         first_port=30000, ports_per_host=500)
    hosts = backend.hosts()
    assert len(hosts) == 100
    h0, h41, h99 = hosts[0], hosts[41], hosts[99]
    assert (h0.hostname, h0.agent_id, h0.cluster) == ("c1-h00000", "c1-S0", "c1")
    assert (h99.hostname, h99.agent_id) == ("c1-h00099", "c1-S99")
    assert [h.capacity.cpu for h in hosts[:4]] == [16, 32, 64, 16]
    assert h0.capacity == Resources(cpu=16, memory=131072, disk=1048576, gpu=0)
    assert [h.hostname for h in hosts if h.capacity.gpu] == ["c1-h00098", "c1-h00099"]
    assert h99.capacity == Resources(cpu=16, memory=131072, disk=1048576, gpu=8)
    assert h41.attributes == {"rack": "rack-1", "zone": "zone-2", "cluster": "c1",
                              "hostname": "c1-h00041"}
    assert {h.ports for h in hosts} == {(30000, 30499)}
    assert backend.capabilities == frozenset({"docker", "mesos-containerizer"})
    assert backend.host_spec("c1-h00041") is h41
    assert backend.host_spec("nope") is None


def test_default_shape_and_attribute_rules():
    [h] = SimBackend(hosts=1).hosts()
    assert h.capacity == Resources(cpu=32, memory=128 * 1024, disk=1024 * 1024)
    assert h.ports == (31000, 31999)
    hosts = SimBackend(hosts=12, hosts_per_rack=5, zones=2,
                       attributes=lambda i: {"pool": "gpu" if i % 4 == 0 else "batch",
                                             "zone": f"z{i % 2}"}).hosts()
    assert [h.attributes["rack"] for h in hosts[4:7]] == ["rack-0", "rack-1", "rack-1"]
    assert [h.attributes["pool"] for h in hosts[:5]] == ["gpu", "batch", "batch", "batch", "gpu"]
    assert hosts[3].attributes["zone"] == "z1"
    static = SimBackend(hosts=2, attributes={"pool": "shared", "hostname": "ignored"}).hosts()
    assert static[1].attributes == {"rack": "rack-0", "zone": "zone-1", "pool": "shared",
                                    "cluster": "sim", "hostname": "sim-h00001"}


def test_fifty_thousand_hosts():
    hosts = SimBackend(hosts=50_000, gpu_hosts=500).hosts()
    assert len(hosts) == 50_000
    assert len({h.hostname for h in hosts}) == 50_000
    assert hosts[-1].hostname == "sim-h49999" and hosts[-1].capacity.gpu == 4


@pytest.mark.parametrize("options", [
    {"hosts": -1}, {"shapes": []}, {"hosts": 3, "gpu_hosts": 4}, {"failure_rate": 1.5},
    {"default_duration": -1}, {"first_port": 65000, "ports_per_host": 1000},
    {"hosts_per_rack": 0}, {"host_loss": HostLoss(every_s=0, down_s=1)},
    {"shapes": [HostShape(cpu=-1)]},
])
def test_invalid_options(options: dict[str, object]):
    with pytest.raises(InvalidArgument):
        SimBackend(**options)  # type: ignore[arg-type]


def test_from_options():
    backend = SimBackend.from_options({
        "backend": "sim", "cluster": "east", "hosts": 6, "seed": 7, "failure_rate": 0.5,
        "shapes": [{"cpu": 16, "memory_mb": 65536}, {"cpu": 64, "gpu": 2}],
        "attributes": {"pool": "p1"}, "host_loss": {"every_s": 60, "down_s": 30},
        "first_port": 20000, "ports_per_host": 10})
    hosts = backend.hosts()
    assert [h.hostname for h in hosts][:2] == ["east-h00000", "east-h00001"]
    assert hosts[0].capacity == Resources(cpu=16, memory=65536, disk=1024 * 1024)
    assert hosts[1].capacity == Resources(cpu=64, memory=131072, disk=1024 * 1024, gpu=2)
    assert hosts[0].attributes["pool"] == "p1" and hosts[0].ports == (20000, 20009)
    assert backend.host_loss == HostLoss(every_s=60, down_s=30)
    assert backend.failure_rate == 0.5
    single = SimBackend.from_options({"hosts": 1, "cpu": 8, "memory_mb": 1024})
    assert single.hosts()[0].capacity == Resources(cpu=8, memory=1024, disk=1024 * 1024)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"hosts": "many"}, "hosts"), ({"shapes": [{"cpus": 1}]}, "shapes[0]"),
        ({"host_loss": {"down_s": 3}}, "host_loss.every_s"),
        ({"shapes": [{"cpu": "x"}]}, "shapes[0].cpu")]
    for bad, field in cases:
        with pytest.raises(InvalidArgument) as info:
            SimBackend.from_options(bad)
        assert info.value.field == field


# -- commands --------------------------------------------------------------------


@pytest.mark.parametrize(("shell", "command", "arguments", "expected"), [
    (True, "sleep 30", (), (30.0, 0)),
    (True, "/bin/sleep 2.5", (), (2.5, 0)),
    (True, "sleep 1 && echo done", (), (1.0, 0)),
    (True, "echo x; sleep 2.5", (), (2.5, 0)),
    (True, "sleep 1m; sleep 0.5s\nsleep 1h", (), (3660.5, 0)),
    (True, "sleep 1 2", (), (3.0, 0)),
    (True, "sleep infinity", (), (float("inf"), 0)),
    (True, "true", (), (0.0, 0)),
    (True, "exit 0", (), (0.0, 0)),
    (True, "exit 3", (), (0.0, 3)),
    (True, "false", (), (0.0, 1)),
    (True, "sleep 5; exit 3", (), (5.0, 3)),
    (True, "exit 2; sleep 5", (), (0.0, 2)),
    (True, "false && sleep 5", (), (0.0, 1)),
    (True, "false || sleep 5", (), (5.0, 0)),
    (True, "true || sleep 5", (), (0.0, 0)),
    (True, "sleep 2; false; echo ok", (), (2.0, 0)),
    (True, "sleep soon", (), (0.0, 1)),
    (True, "exit 256", (), (0.0, 0)),
    (True, "echo hello", (), (None, 0)),
    (True, "python train.py; exit 0", (), (None, 0)),
    (True, "", (), (0.0, 0)),
    (False, "/bin/sleep", ("sleep", "7"), (7.0, 0)),
    (False, "/bin/sleep", (), (0.0, 1)),
    (False, "/bin/sh", ("sh", "-c", "sleep 4 && exit 9"), (4.0, 9)),
    (False, "/usr/bin/python3", ("python3", "-c", "sleep 4"), (None, 0)),
])
def test_plan_command(shell: bool, command: str, arguments: tuple[str, ...],
                      expected: tuple[float | None, int]):
    assert plan_command(shell, command, arguments) == expected


# -- runs ------------------------------------------------------------------------


async def test_sleep_runs_for_exactly_its_duration(
        autojump_clock: trio.testing.MockClock, sim10: Harness):
    await sim10.backend.launch([spec(0, "sleep 30", hostname="sim-h00003")])
    running = sim10.backend.known(mid(0))
    assert running is not None and running.state == TaskState.RUNNING
    assert running.hostname == "sim-h00003" and running.timestamp == 1000.0
    await trio.sleep(100)
    assert sim10.of(mid(0)) == [(0.0, TaskState.RUNNING), (30.0, TaskState.SUCCEEDED)]
    done = sim10.last(mid(0))
    assert (done.hostname, done.exit_code, done.timestamp) == ("sim-h00003", 0, 1030.0)
    assert done.message == "Command exited with status 0"
    assert sim10.backend.known(mid(0)) == done
    assert sim10.backend.live_count() == 0


async def test_exit_codes_and_instant_commands(
        autojump_clock: trio.testing.MockClock, sim10: Harness):
    await trio.sleep(5)
    await sim10.backend.launch([spec(0, "exit 3"), spec(1, "false"), spec(2, "true"),
                                spec(3, "sleep 2; exit 4")])
    await trio.sleep(10)
    assert sim10.of(mid(0)) == [(5.0, TaskState.RUNNING), (5.0, TaskState.FAILED)]
    failed = sim10.last(mid(0))
    assert (failed.exit_code, failed.reason) == (3, REASON_COMMAND_FAILED)
    assert failed.message == "Command exited with status 3"
    assert sim10.last(mid(1)).exit_code == 1
    assert sim10.of(mid(2)) == [(5.0, TaskState.RUNNING), (5.0, TaskState.SUCCEEDED)]
    assert sim10.of(mid(3)) == [(5.0, TaskState.RUNNING), (7.0, TaskState.FAILED)]


async def test_default_duration_and_environment_override(
        autojump_clock: trio.testing.MockClock, nursery: trio.Nursery):
    h = await start(nursery, hosts=1, default_duration=12.5)
    await h.backend.launch([
        spec(0, "echo hi"),
        spec(1, "sleep 100", environment={"PELOTON_SIM_DURATION": "3"}),
        spec(2, "exit 5", environment={"PELOTON_SIM_DURATION": "2m"}),
        spec(3, "sleep 1", environment={"PELOTON_SIM_DURATION": "soon"}),
        spec(4, "/usr/bin/python3", shell=False, arguments=("python3", "job.py")),
    ])
    await trio.sleep(1000)
    assert h.of(mid(0)) == [(0.0, TaskState.RUNNING), (12.5, TaskState.SUCCEEDED)]
    assert h.of(mid(1)) == [(0.0, TaskState.RUNNING), (3.0, TaskState.SUCCEEDED)]
    assert h.of(mid(2)) == [(0.0, TaskState.RUNNING), (120.0, TaskState.FAILED)]
    # A duration that does not parse: the run cannot start, only FAILED.
    assert h.of(mid(3)) == [(0.0, TaskState.FAILED)]
    assert h.last(mid(3)).reason == REASON_LAUNCH_FAILED
    assert "PELOTON_SIM_DURATION" in h.last(mid(3)).message
    assert h.of(mid(4)) == [(0.0, TaskState.RUNNING), (12.5, TaskState.SUCCEEDED)]


async def test_an_earlier_end_wakes_the_timer(
        autojump_clock: trio.testing.MockClock, sim10: Harness):
    await sim10.backend.launch([spec(0, "sleep 100")])
    await trio.sleep(1)
    await sim10.backend.launch([spec(1, "sleep 5")])
    await sim10.backend.launch([spec(2, "sleep 0.25")])
    await trio.sleep(200)
    ends = [(t, u.mesos_task_id) for t, u in sim10.updates if u.state == TaskState.SUCCEEDED]
    assert ends == [(1.25, mid(2)), (6.0, mid(1)), (100.0, mid(0))]


async def test_failure_rate_is_deterministic_per_seed(
        autojump_clock: trio.testing.MockClock, nursery: trio.Nursery):
    async def failed_ids(seed: int) -> set[str]:
        async with trio.open_nursery() as inner:
            h = await start(inner, hosts=100, failure_rate=0.1, seed=seed)
            t0 = trio.current_time()
            await h.backend.launch([spec(n, "sleep 10", hostname=f"sim-h{n % 100:05d}")
                                    for n in range(10_000)])
            await trio.sleep(11)
            assert h.terminal_count() == 10_000
            failed = {u.mesos_task_id for t, u in h.updates if u.state == TaskState.FAILED}
            assert all(t == t0 + 10 for t, u in h.updates if u.state in TERMINAL)
            assert all(u.exit_code == 1 for _, u in h.updates if u.state == TaskState.FAILED)
            inner.cancel_scope.cancel()
        return failed

    first = await failed_ids(seed=1)
    assert 900 <= len(first) <= 1100
    assert await failed_ids(seed=1) == first
    assert await failed_ids(seed=2) != first


async def test_relaunch_of_a_known_id_is_ignored(
        autojump_clock: trio.testing.MockClock, sim10: Harness):
    await sim10.backend.launch([spec(0, "sleep 10"), spec(0, "sleep 99")])
    await trio.sleep(3)
    await sim10.backend.launch([spec(0, "sleep 1")])
    await trio.sleep(20)
    await sim10.backend.launch([spec(0, "sleep 1")])  # finished: still known
    await trio.sleep(20)
    assert sim10.of(mid(0)) == [(0.0, TaskState.RUNNING), (10.0, TaskState.SUCCEEDED)]


async def test_launch_errors(autojump_clock: trio.testing.MockClock, nursery: trio.Nursery):
    backend = SimBackend(hosts=2)
    with pytest.raises(FailedPrecondition):
        await backend.launch([spec(0, "true")])
    h = Harness(backend)
    await nursery.start(backend.run, h.report)
    with pytest.raises(FailedPrecondition):
        await backend.run(h.report)
    with pytest.raises(InvalidArgument):
        await backend.launch([spec(0, "true"), spec(1, "true", hostname="elsewhere")])
    assert backend.known(mid(0)) is None and h.updates == []


# -- kill ------------------------------------------------------------------------


async def test_kill_reports_killed_at_once(autojump_clock: trio.testing.MockClock, sim10: Harness):
    b = sim10.backend
    await b.launch([spec(0, "sleep 60"), spec(1, "sleep 60"), spec(2, "true")])
    await trio.sleep(10)
    await b.kill([mid(0), mid(2), mid(9)], grace_seconds=30)
    assert sim10.of(mid(0)) == [(0.0, TaskState.RUNNING), (10.0, TaskState.KILLED)]
    killed = sim10.last(mid(0))
    assert (killed.exit_code, killed.reason) == (-15, REASON_KILLED_ON_REQUEST)
    assert b.known(mid(0)) == killed
    await b.kill([mid(0)])  # already killed: nothing more
    await trio.sleep(100)
    assert sim10.of(mid(0)) == [(0.0, TaskState.RUNNING), (10.0, TaskState.KILLED)]
    assert sim10.of(mid(1))[-1] == (60.0, TaskState.SUCCEEDED)
    assert sim10.of(mid(2)) == [(0.0, TaskState.RUNNING), (0.0, TaskState.SUCCEEDED)]
    assert b.known(mid(9)) is None


async def test_killed_runs_do_not_pile_up_in_the_heap(
        autojump_clock: trio.testing.MockClock, sim10: Harness,
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sim, "_COMPACT_AT", 100)
    b = sim10.backend
    await b.launch([spec(n, "sleep 1000", hostname=f"sim-h{n % 10:05d}") for n in range(1000)])
    await b.kill([mid(n) for n in range(900)])
    assert len(b._heap) == 100 and b.live_count() == 100
    await trio.sleep(2000)
    assert sim10.terminal_count() == 1000


# -- hosts lost ----------------------------------------------------------------------


async def test_lose_and_restore_a_host(autojump_clock: trio.testing.MockClock, sim10: Harness):
    b = sim10.backend
    await b.launch([spec(n, "sleep 60", hostname=f"sim-h0000{n % 3}") for n in range(6)])
    await trio.sleep(20)
    assert b.lose_host("sim-h00001") == [mid(1), mid(4)]
    assert sim10.host_changes == [(20.0, "sim-h00001", False)]
    for n in (1, 4):
        assert sim10.of(mid(n)) == [(0.0, TaskState.RUNNING), (20.0, TaskState.LOST)]
        lost = sim10.last(mid(n))
        assert (lost.reason, lost.hostname) == (REASON_AGENT_REMOVED, "sim-h00001")
    assert "sim-h00001" not in {h.hostname for h in b.hosts()} and len(b.hosts()) == 9
    assert not b.is_up("sim-h00001")
    assert b.lose_host("sim-h00001") == []  # already down
    await b.launch([spec(10, "sleep 1", hostname="sim-h00001")])
    assert sim10.of(mid(10)) == [(20.0, TaskState.LOST)]
    await trio.sleep(5)
    b.restore_host("sim-h00001")
    b.restore_host("sim-h00001")  # already up
    assert sim10.host_changes[1:] == [(25.0, "sim-h00001", True)]
    assert len(b.hosts()) == 10 and b.is_up("sim-h00001")
    await b.launch([spec(11, "sleep 1", hostname="sim-h00001")])
    await trio.sleep(100)
    assert sim10.of(mid(11)) == [(25.0, TaskState.RUNNING), (26.0, TaskState.SUCCEEDED)]
    for n in (0, 2, 3, 5):
        assert sim10.of(mid(n))[-1] == (60.0, TaskState.SUCCEEDED)
    with pytest.raises(NotFound):
        b.lose_host("nope")
    with pytest.raises(NotFound):
        b.restore_host("nope")


async def test_host_loss_schedule(autojump_clock: trio.testing.MockClock,
                                  nursery: trio.Nursery):
    h = await start(nursery, hosts=4, seed=3, host_loss=HostLoss(every_s=10, down_s=25))
    await h.backend.launch([spec(n, "sleep infinity", hostname=f"sim-h0000{n}")
                            for n in range(4)])
    await trio.sleep(46)
    changes = list(h.host_changes)
    assert [(t, up) for t, _, up in changes] == [
        (10.0, False), (20.0, False), (30.0, False), (35.0, True), (40.0, False),
        (45.0, True)]
    downs = [name for _, name, up in changes if not up]
    # A host is lost only while up, so the three first losses are distinct.
    assert len(set(downs[:3])) == 3
    assert changes[3][1] == downs[0] and changes[5][1] == downs[1]
    lost = {u.hostname for _, u in h.updates if u.state == TaskState.LOST}
    assert lost == set(downs)
    assert len(h.backend.hosts()) == 4 - 2
    # The same seed loses the same hosts.
    async with trio.open_nursery() as inner:
        again = await start(inner, hosts=4, seed=3,
                            host_loss=HostLoss(every_s=10, down_s=25))
        await trio.sleep(46)
        assert again.host_changes == [(t + 46.0, name, up) for t, name, up in changes]
        inner.cancel_scope.cancel()


# -- status, sandbox, scale -------------------------------------------------------------


async def test_read_sandbox_file(autojump_clock: trio.testing.MockClock, sim10: Harness):
    b = sim10.backend
    await b.launch([spec(0, "sleep 5", hostname="sim-h00002")])
    line = f"simulated run of {mid(0)} on sim-h00002\n".encode()
    assert await b.read_sandbox_file(mid(0), "", 0, 0) == (b"", 0, ["stdout", "stderr"])
    assert await b.read_sandbox_file(mid(0), "stdout", 0, 0) == (
        line, len(line), ["stdout", "stderr"])
    assert (await b.read_sandbox_file(mid(0), "./stdout", 10, 4))[:2] == (line[10:14],
                                                                        len(line))
    assert (await b.read_sandbox_file(mid(0), "stderr", 0, 0))[:2] == (b"", 0)
    await trio.sleep(10)  # finished runs keep their sandbox
    assert (await b.read_sandbox_file(mid(0), "stdout", 0, 0))[0] == line
    with pytest.raises(NotFound):
        await b.read_sandbox_file(mid(9), "stdout", 0, 0)
    with pytest.raises(NotFound):
        await b.read_sandbox_file(mid(0), "core", 0, 0)
    for path in ("../x", "/etc/passwd", "a/../../b"):
        with pytest.raises(InvalidArgument):
            await b.read_sandbox_file(mid(0), path, 0, 0)
    with pytest.raises(InvalidArgument):
        await b.read_sandbox_file(mid(0), "stdout", -1, 0)


async def test_finished_statuses_are_bounded(autojump_clock: trio.testing.MockClock,
                                             nursery: trio.Nursery):
    h = await start(nursery, hosts=1, finished_limit=3)
    b = h.backend
    await b.launch([spec(n, f"sleep {n + 1}") for n in range(5)])
    await trio.sleep(10)
    assert [b.known(mid(n)) is not None for n in range(5)] == [False, False, True, True, True]
    assert len(b._finished) == 3 and len(b._finished_order) == 3


async def test_stopping_the_backend_loses_live_runs(autojump_clock: trio.testing.MockClock):
    backend = SimBackend(hosts=1)
    h = Harness(backend)
    async with trio.open_nursery() as nursery:
        await nursery.start(backend.run, h.report)
        await backend.launch([spec(0, "sleep 60"), spec(1, "true")])
        await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert h.of(mid(0)) == [(0.0, TaskState.RUNNING)]
    status = backend.known(mid(0))
    assert status is not None and status.state == TaskState.LOST
    assert backend.known(mid(1)) == h.last(mid(1))
    with pytest.raises(FailedPrecondition):
        await backend.launch([spec(2, "true")])


async def test_a_hundred_thousand_runs(autojump_clock: trio.testing.MockClock,
                                       nursery: trio.Nursery):
    h = await start(nursery, hosts=1000, failure_rate=0.01)
    commands = ["sleep 30", "sleep 1 && true", "exit 2", "echo hi", "sleep 0.5"]
    specs = [spec(n, commands[n % 5], hostname=f"sim-h{n % 1000:05d}")
             for n in range(100_000)]
    for k in range(0, len(specs), 5000):
        await h.backend.launch(specs[k:k + 5000])
        await trio.sleep(0.1)
    await trio.sleep(60)
    states = Counter(u.state for _, u in h.updates)
    assert states[TaskState.RUNNING] == 100_000
    assert states[TaskState.SUCCEEDED] + states[TaskState.FAILED] == 100_000
    assert 20_000 + 700 <= states[TaskState.FAILED] <= 20_000 + 1000
    assert h.backend.live_count() == 0
    last = max(t for t, u in h.updates if u.state in TERMINAL)
    assert last == pytest.approx(1.9 + 30)
