"""Job, task and run ids."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from peloton.core import jobid
from peloton.core.ids import (
    is_job_id,
    mesos_task_id,
    new_job_id,
    parse_mesos_task_id,
    parse_task_id,
    task_id,
)

JOB = "7c2bd2a8-5f3e-4b7a-9d1e-0123456789ab"


def test_new_job_ids_are_uuids() -> None:
    ids = {new_job_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(is_job_id(j) and len(j) == 36 for j in ids)
    # Lower-case text as str(uuid.UUID(...)) makes it, version 7, RFC 4122's variant.
    for j in ids:
        u = uuid.UUID(j)
        assert (str(u), u.version, u.variant) == (j, 7, uuid.RFC_4122)


def test_new_job_ids_begin_with_their_creation_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job's id begins with its creation's Unix time in milliseconds, so
    ids of one moment share their tables' last pages (and sort by time)."""
    made = []
    for now_ms in (1_795_811_110_843, 1_795_811_110_844, 1_795_811_170_000):
        monkeypatch.setattr("peloton.core.jobid.time.time_ns", lambda ms=now_ms: ms * 1_000_000)
        made.append([new_job_id() for _ in range(20)])
    for (now_ms, jobs) in zip((1_795_811_110_843, 1_795_811_110_844, 1_795_811_170_000),
                              made, strict=True):
        assert {uuid.UUID(j).int >> 80 for j in jobs} == {now_ms}
    assert max(made[0]) < min(made[1]) and max(made[1]) < min(made[2])
    # The 74 bits after the time are random: ids of one millisecond differ there.
    assert len({j[15:] for j in made[0]}) == 20


@pytest.mark.parametrize(("value", "valid"), [
    (JOB, True),
    (JOB.upper(), True),
    (str(uuid.UUID(int=0)), True),
    ("", False),
    ("not-a-uuid", False),
    (JOB.replace("-", ""), False),
    ("{" + JOB + "}", False),
    ("urn:uuid:" + JOB, False),
    (JOB + "-0", False),
    (JOB[:-1], False),
])
def test_is_job_id(value: str, valid: bool) -> None:
    assert is_job_id(value) is valid


def test_task_and_run_ids() -> None:
    assert task_id(JOB, 3) == JOB + "-3"
    assert mesos_task_id(JOB, 3, 2) == JOB + "-3-2"
    assert parse_task_id(JOB + "-3") == (JOB, 3)
    assert parse_mesos_task_id(JOB + "-3-2") == (JOB, 3, 2)
    assert parse_mesos_task_id(JOB + "-12345-678") == (JOB, 12345, 678)


@given(st.uuids().map(str), st.integers(0, 10**6), st.integers(1, 10**6))
def test_ids_round_trip(job: str, instance: int, run: int) -> None:
    assert parse_task_id(task_id(job, instance)) == (job, instance)
    assert parse_mesos_task_id(mesos_task_id(job, instance, run)) == (job, instance, run)


@pytest.mark.parametrize("value", [
    "",
    JOB,
    JOB + "-",
    JOB + "-1",  # a task id, not a run
    JOB + "-1-",
    JOB + "--1",
    JOB + "-1-2-3",
    JOB + "-a-1",
    JOB + "-1-b",
    JOB + "-+1-2",
    JOB + "- 1-2",
    JOB + "-1_0-2",
    JOB + "-1-2 ",
    JOB + "-\u0661-2",  # ARABIC-INDIC DIGIT ONE: a digit, but not an ASCII one
    JOB.replace("-", "_") + "-1-2",
    "x" * 36 + "-1-2",
    "j1-0-1",
])
def test_parse_mesos_task_id_rejects(value: str) -> None:
    with pytest.raises(ValueError, match="not a task run id"):
        parse_mesos_task_id(value)


@pytest.mark.parametrize("value", [
    "", JOB, JOB + "-", JOB + "-x", JOB + "--1", JOB + "-+1", JOB + "- 1", JOB + "-1-2",
    "x" * 36 + "-1", "j1-0",
])
def test_parse_task_id_rejects(value: str) -> None:
    with pytest.raises(ValueError, match="not a task id"):
        parse_task_id(value)


_PIECES = st.sampled_from([JOB, JOB.upper(), "-", "--", "0", "12", "x", "_", " ", "\u0661",
                           "a", "F", "7c2bd2a8", "5f3e", "0123456789ab"])


@given(st.lists(_PIECES, max_size=8).map("".join) | st.text(max_size=48) | st.uuids().map(str))
def test_the_quick_paths_job_id_check_answers_as_the_regex(value: str) -> None:
    """``peloton.core.jobid.is_job_id`` (by hand: the CLI's quick path
    imports no ``re``) and ``peloton.core.ids.is_job_id`` (a regex)."""
    assert jobid.is_job_id(value) is is_job_id(value)
