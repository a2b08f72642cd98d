"""Peloton's v1alpha WatchService: a stream of job and pod changes.

``Watch`` answers at once with the watch's id and the current revision,
then, each WATCH_PERIOD, with the stateless jobs (a ``stateless_job_filter``)
or the pods of one job (a ``pod_filter``, which names the job) that changed
since, as their summaries; jobs or pods the filter names that do not exist
come back in ``*_not_found``. ``Cancel`` ends a watch (the stream closes);
so does the client going away. A revision is a store write time in
microseconds: ``start_revision`` (0: now) replays the changes since then,
and one older than WATCH_HISTORY_S is refused OUT_OF_RANGE-like
(INVALID_ARGUMENT naming it). At most MAX_WATCHES watch at once per jobmgr.

Changes are read from the store, which every jobmgr shares, so a watch on
any jobmgr sees every shard's jobs. Rows written in the same instant as
the last one seen are read again once (a window of WATCH_OVERLAP_S) and
sent only if they changed, so none is missed between two reads.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import trio

from peloton.api.v0.job import job_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.pod import pod_pb2
from peloton.api.v1alpha.watch.svc import watch_svc_pb2 as svc
from peloton.core.errors import InvalidArgument, NotFound, ResourceExhausted
from peloton.core.ids import is_job_id
from peloton.jobmgr.service import Jobmgr
from peloton.spec.job import merged_task_config
from peloton.spec.v1alpha import job_summary_of, pod_name, pod_status_of

__all__ = ["WatchService"]

WATCH_PERIOD = 1.0
WATCH_OVERLAP_S = 2.0
WATCH_HISTORY_S = 3600.0
MAX_WATCHES = 1000


def _revision(ts: float) -> int:
    return int(ts * 1_000_000)


def _labels_match(want: Any, have: Any) -> bool:
    """Every wanted label is among the object's."""
    pairs = {(lab.key, lab.value) for lab in have}
    return all((lab.key, lab.value) in pairs for lab in want)


class WatchService:
    """peloton.api.v1alpha.watch.svc.WatchService"""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm
        self.watches: dict[str, trio.Event] = {}  # watch id -> set when cancelled

    async def Cancel(self, request: svc.CancelRequest) -> Any:
        cancelled = self.watches.pop(request.watch_id, None)
        if cancelled is None:
            raise NotFound(f"no watch {request.watch_id!r} on this jobmgr", field="watch_id")
        cancelled.set()
        return svc.CancelResponse()

    async def Watch(self, request: svc.WatchRequest) -> AsyncIterator[svc.WatchResponse]:
        jobs_filter = request.stateless_job_filter if request.HasField(
            "stateless_job_filter") else None
        pods_filter = request.pod_filter if request.HasField("pod_filter") else None
        if (jobs_filter is None) == (pods_filter is None):
            raise InvalidArgument("give one filter: stateless_job_filter or pod_filter",
                                  field="stateless_job_filter")
        if pods_filter is not None and not is_job_id(pods_filter.job_id.value):
            raise InvalidArgument("a pod watch names its job (a job id)",
                                  field="pod_filter.job_id")
        for i, jid in enumerate(jobs_filter.job_ids if jobs_filter is not None else ()):
            if not is_job_id(jid.value):
                raise InvalidArgument(f"{jid.value!r} is not a job id",
                                      field=f"stateless_job_filter.job_ids[{i}]")
        now = time.time()
        since = request.start_revision / 1_000_000 if request.start_revision else now
        if since < now - WATCH_HISTORY_S or since > now + WATCH_OVERLAP_S:
            raise InvalidArgument(f"revision {request.start_revision} is out of the last "
                                  f"{WATCH_HISTORY_S:g} s of history", field="start_revision")
        if len(self.watches) >= MAX_WATCHES:
            raise ResourceExhausted(f"{MAX_WATCHES} watches are open on this jobmgr; cancel "
                                    "one first")
        return self._stream(jobs_filter, pods_filter, since)

    async def _stream(self, jobs_filter: Any, pods_filter: Any,
                      since: float) -> AsyncIterator[svc.WatchResponse]:
        watch_id = str(uuid.uuid4())
        cancelled = self.watches[watch_id] = trio.Event()
        sent: dict[Any, float] = {}  # object -> the update time last sent
        try:
            yield svc.WatchResponse(watch_id=watch_id, revision=_revision(since))
            first = True
            while not cancelled.is_set():
                reply, since = await self._changes(jobs_filter, pods_filter, since, sent,
                                                   first)
                first = False
                if reply is not None:
                    reply.watch_id = watch_id
                    yield reply
                with trio.move_on_after(WATCH_PERIOD):  # (no yield inside)
                    await cancelled.wait()
        finally:
            self.watches.pop(watch_id, None)

    async def _changes(self, jobs_filter: Any, pods_filter: Any, since: float,
                       sent: dict[Any, float], first: bool
                       ) -> tuple[svc.WatchResponse | None, float]:
        """What changed since ``since`` (less the overlap), not sent yet."""
        reply = svc.WatchResponse()
        newest = since
        if jobs_filter is not None:
            wanted = {j.value for j in jobs_filter.job_ids}
            rows = await self.jm.storage.jobs_changed(since - WATCH_OVERLAP_S)
            for row in rows:
                newest = max(newest, row.update_time)
                if sent.get(row.job_id) == row.update_time:
                    continue
                if wanted and row.job_id not in wanted:
                    continue
                config = job_pb2.JobConfig.FromString(row.config)
                if config.type != job_pb2.SERVICE or not _labels_match(jobs_filter.labels,
                                                                       config.labels):
                    continue
                sent[row.job_id] = row.update_time
                reply.stateless_jobs.append(job_summary_of(
                    row.job_id, config, job_pb2.RuntimeInfo.FromString(row.runtime)))
            if first:
                for job_id in sorted(wanted):
                    if await self.jm.storage.get_job(job_id) is None:
                        reply.stateless_jobs_not_found.add(value=job_id)
        else:
            job_id = pods_filter.job_id.value
            job = await self.jm.storage.get_job(job_id)
            if job is None:
                if first:
                    reply.pods_not_found.extend(pods_filter.pod_names)
                    reply.revision = _revision(newest)
                    return reply, newest
                return None, since
            config = job_pb2.JobConfig.FromString(job.config)
            names = {n.value for n in pods_filter.pod_names}
            tasks = await self.jm.storage.tasks_changed(job_id, since - WATCH_OVERLAP_S)
            for t in tasks:
                newest = max(newest, t.update_time)
                name = pod_name(job_id, t.instance_id)
                if sent.get(name) == t.update_time or (names and name not in names):
                    continue
                if pods_filter.labels and not _labels_match(
                        pods_filter.labels, merged_task_config(config, t.instance_id).labels):
                    continue
                sent[name] = t.update_time
                reply.pods.append(pod_pb2.PodSummary(
                    pod_name=v1.PodName(value=name),
                    status=pod_status_of(task_pb2.RuntimeInfo.FromString(t.runtime))))
            if first:
                for name in sorted(names):
                    _, _, instance = name.rpartition("-")
                    if (not name.startswith(f"{job_id}-") or not instance.isdigit()
                            or int(instance) >= config.instanceCount):
                        reply.pods_not_found.add(value=name)
        # Forget what is past the overlap window: it is never read again.
        for key in [k for k, t in sent.items() if t < newest - WATCH_OVERLAP_S]:
            del sent[key]
        if not (reply.stateless_jobs or reply.pods or reply.stateless_jobs_not_found
                or reply.pods_not_found):
            return None, newest
        reply.revision = _revision(newest)
        return reply, newest
