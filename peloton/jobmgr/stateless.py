"""Peloton's v1alpha stateless JobService and PodService, served by jobmgr.

A stateless job is a v0 SERVICE job (``peloton.jobmgr.v1alpha`` converts
the messages), so both views read and write one store: a job created here
is seen by ``job get`` and ``task list``, and the other way round.

Writes carry the job's ``EntityVersion``
(``<configVersion>-<desiredStateVersion>-<workflowVersion>``); one that no
longer matches is refused ABORTED, as Peloton does, so a client that read a
stale view reads again. A version left empty is not checked. Each write
runs on the owner of the job's shard; a request reaching another jobmgr is
forwarded as it came.

Workflows (ReplaceJob, PatchJob, RestartJob) are the updates of
``peloton.jobmgr.update``; a restart is a new version with the same
content whose named instances restart in batches.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.update import update_pb2
from peloton.api.v1alpha.job.stateless import stateless_pb2 as sl
from peloton.api.v1alpha.job.stateless.svc import stateless_svc_grpc as svc_grpc
from peloton.api.v1alpha.job.stateless.svc import stateless_svc_pb2 as svc
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.pod import pod_pb2
from peloton.api.v1alpha.pod.svc import pod_svc_grpc, pod_svc_pb2
from peloton.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    VersionConflict,
)
from peloton.core.ids import is_job_id, mesos_task_id, new_job_id
from peloton.core.states import TERMINAL_JOB_STATES, TaskState
from peloton.jobmgr.engine import ShardEngine
from peloton.jobmgr.model import Job, Task, rfc3339
from peloton.jobmgr.service import (
    POD_EVENTS_LIMIT,
    JobHandler,
    TaskHandler,
    UpdateHandler,
    _on_owner,
    _ranges,
    _refresh,
    _start,
    _stop,
    abort_update,
    control_on,
    pause_update,
    resume_update,
)
from peloton.jobmgr.update import Update as JobUpdate
from peloton.spec.job import merged_task_config
from peloton.spec.v1alpha import (
    RESTART,
    UPDATE,
    entity_version,
    job_config_of,
    job_spec_of,
    job_status_of,
    job_summary_of,
    parse_entity_version,
    pod_name,
    pod_spec_of,
    pod_state,
    pod_status_of,
    task_state_of_pod,
    v0_pagination,
    v1_pagination,
    v1alpha_field,
    workflow_status_of,
)

__all__ = ["PodService", "StatelessJobService"]

# Jobs and pods a ListJobs / ListPods stream message carries.
STREAM_CHUNK = 1000
# Job ids GetJobIDFromJobName answers, at most.
NAME_LOOKUP_LIMIT = 1000


def _job_id(value: v1.JobID, field: str = "job_id") -> str:
    if not value.value:
        raise InvalidArgument("a job id is required", field=field)
    if not is_job_id(value.value):
        raise InvalidArgument(f"{value.value!r} is not a job id (a UUID)", field=field)
    return value.value


def _version(job: Job) -> v1.EntityVersion:
    return entity_version(job.config_version, job.desired_state_version, job.workflow_version)


def _checker(version: v1.EntityVersion, field: str = "version") -> Callable[[Job], None]:
    """A check that the job is at ``version`` (not checked when empty)."""
    wanted = parse_entity_version(version, field) if version.value else None

    def check(job: Job) -> None:
        if wanted is None:
            return
        have = (job.config_version, job.desired_state_version, job.workflow_version)
        if have != wanted:
            raise VersionConflict(
                f"job {job.id} is at version {_version(job).value}, not {version.value}; read "
                "it again", field=field)
    return check


def _as_v1alpha(error: InvalidArgument, at: str = "spec") -> InvalidArgument:
    """A v0 validation error, naming the field as the v1alpha request does."""
    field = error.field or ""
    field = field.removeprefix("jobConfig.").removeprefix("config.")
    return InvalidArgument(error.message, field=v1alpha_field(field, at))


def _update_config(spec: sl.UpdateSpec, at: str) -> update_pb2.UpdateConfig:
    for name, what in (("in_place", "updating in place (holding each pod's host for it)"),
                       ("start_pods", "starting stopped pods with the update")):
        if getattr(spec, name):
            raise InvalidArgument(f"not supported yet: {what}", field=f"{at}.{name}")
    return update_pb2.UpdateConfig(
        batchSize=spec.batch_size, rollbackOnFailure=spec.rollback_on_failure,
        maxInstanceAttempts=spec.max_instance_retries,
        maxFailureInstances=spec.max_tolerable_instance_failures,
        startPaused=spec.start_paused)


def _id_ranges(instances: list[int]) -> list[pod_pb2.InstanceIDRange]:
    """Sorted instance ids as [from, to) ranges."""
    out: list[pod_pb2.InstanceIDRange] = []
    for i in sorted(instances):
        if out and out[-1].to == i:
            out[-1].to = i + 1
        else:
            out.append(pod_pb2.InstanceIDRange(to=i + 1, **{"from": i}))
    return out


def _workflow_info(update: JobUpdate, runtime: job_pb2.RuntimeInfo, instances: int, *,
                   instance_events: bool = False,
                   events_limit: int = 0) -> sl.WorkflowInfo:
    kind = RESTART if update.restart is not None else UPDATE
    info = sl.WorkflowInfo(status=workflow_status_of(
        update.info(instances, status_only=True), kind,
        (runtime.desiredStateVersion, runtime.workflowVersion), rfc3339(update.create_time),
        rfc3339(update.update_time), update.prior, []))
    cfg = update.config
    if kind == RESTART:
        info.restart_spec.batch_size = cfg.batchSize
        info.restart_spec.ranges.extend(_id_ranges(sorted(update.restart or ())))
    else:
        info.update_spec.CopyFrom(sl.UpdateSpec(
            batch_size=cfg.batchSize, rollback_on_failure=cfg.rollbackOnFailure,
            max_instance_retries=cfg.maxInstanceAttempts,
            max_tolerable_instance_failures=cfg.maxFailureInstances,
            start_paused=cfg.startPaused))
    if update.opaque:
        info.opaque_data.data = update.opaque
    info.events.extend(_events(update.events, kind))
    if instance_events:
        for i, events in sorted(update.instance_events.items()):
            chosen = events[-events_limit:] if events_limit else events
            info.instance_events.add(instance_id=i, events=_events(chosen, kind))
    return info


def _events(events: list[tuple[int, float]], kind: int) -> list[sl.WorkflowEvent]:
    """Newest first, as Peloton lists them."""
    return [sl.WorkflowEvent(type=kind, state=state, timestamp=rfc3339(ts))  # type: ignore[arg-type]
            for state, ts in reversed(events)]


class StatelessJobService:
    """peloton.api.v1alpha.job.stateless.svc.JobService"""

    def __init__(self, jobs: JobHandler, tasks: TaskHandler, updates: UpdateHandler) -> None:
        self.jm = jobs.jm
        self.jobs, self.tasks, self.updates = jobs, tasks, updates

    async def _route(self, job_id: str, method: str, request: Any,
                     body: Callable[[ShardEngine], Awaitable[Any]]) -> Any:
        """``body`` in the writer of the job's shard's owner (the request is
        forwarded there as it came when that is another jobmgr)."""
        async def local(engine: ShardEngine) -> Any:
            return await engine.submit(body, engine)
        return await self.jm.route(job_id, svc_grpc.JobServiceStub, method, request, local)

    async def _row(self, job_id: str) -> Any:
        row = await self.jm.storage.get_job(job_id)
        if row is None:
            raise NotFound(f"job {job_id} does not exist")
        return row

    @staticmethod
    def _live(engine: ShardEngine, job_id: str) -> Job:
        job = engine.jobs.get(job_id)
        if job is None:
            raise NotFound(f"job {job_id} does not exist or has ended")
        return job

    # -- create, replace, patch, restart ---------------------------------------
    async def CreateJob(self, request: svc.CreateJobRequest) -> Any:
        if request.secrets:
            raise InvalidArgument("not supported yet: no host backend hands a task a secret; "
                                  "give an environment variable its value", field="secrets")
        if not request.HasField("spec"):
            raise InvalidArgument("a job spec is required", field="spec")
        create = request.create_spec
        workflow = None
        if request.HasField("create_spec") or request.opaque_data.data:
            # Peloton's create workflow: pods start in batches, as an update's.
            now = time.time()
            cfg = update_pb2.UpdateConfig(
                batchSize=create.batch_size, maxInstanceAttempts=create.max_instance_retries,
                maxFailureInstances=create.max_tolerable_instance_failures,
                startPaused=create.start_paused)
            workflow = JobUpdate(str(uuid.uuid4()), "", int(
                update_pb2.PAUSED if create.start_paused else update_pb2.ROLLING_FORWARD),
                cfg, 0, 1, now, now, prior=int(update_pb2.ROLLING_FORWARD),
                opaque=request.opaque_data.data)
        if not request.spec.respool_id.value:
            raise InvalidArgument("the job needs a resource pool", field="spec.respool_id")
        config = job_config_of(request.spec)
        job_id = request.job_id.value or new_job_id()
        if not is_job_id(job_id):
            raise InvalidArgument(f"{job_id!r} is not a job id (a UUID)", field="job_id")
        if workflow is not None:
            workflow.job_id = job_id
        forwarded = svc.CreateJobRequest()
        forwarded.CopyFrom(request)
        forwarded.job_id.value = job_id

        async def local(engine: ShardEngine) -> Any:
            try:
                await self.jobs.create_on(engine, job_id, config, workflow=workflow)
            except InvalidArgument as error:
                raise _as_v1alpha(error) from None
            job = engine.jobs.get(job_id)
            version = _version(job) if job is not None else entity_version(1, 0, 0)
            return svc.CreateJobResponse(job_id=v1.JobID(value=job_id), version=version)

        return await self.jm.route(job_id, svc_grpc.JobServiceStub, "CreateJob", forwarded,
                                   local)

    async def _roll(self, request: Any, method: str, spec: sl.JobSpec | None,
                    cfg: update_pb2.UpdateConfig, *, opaque: str = "",
                    restart: list[Any] | None = None, patch: bool = False) -> Any:
        """Start a workflow over the job: its config becomes ``spec`` (or,
        for a patch, the current spec with ``spec``'s fields over it; for a
        restart, the same), rolled out by ``cfg``."""
        job_id = _job_id(request.job_id)
        check = _checker(request.version)
        update_id = str(uuid.uuid4())

        async def body(engine: ShardEngine) -> Any:
            job = self._live(engine, job_id)
            check(job)
            if restart is not None:
                new = job_pb2.JobConfig()
                new.CopyFrom(job.config)
                chosen: frozenset[int] | None = frozenset(_ranges(restart,
                                                                  job.config.instanceCount))
            else:
                assert spec is not None
                whole = spec
                if patch:
                    whole = job_spec_of(job.config)
                    for field, value in spec.ListFields():
                        whole.ClearField(field.name)
                        if field.message_type is not None and not field.is_repeated:
                            getattr(whole, field.name).CopyFrom(value)
                        elif field.is_repeated and field.message_type is not None and (
                                field.message_type.GetOptions().map_entry):
                            getattr(whole, field.name).update(value)
                        elif field.is_repeated:
                            getattr(whole, field.name).extend(value)
                        else:
                            setattr(whole, field.name, value)
                new = job_config_of(whole)
                chosen = None
            try:
                await self.updates.begin(engine, job_id, new, cfg, update_id, opaque,
                                         restart=chosen)
            except InvalidArgument as error:
                raise _as_v1alpha(error) from None
            return getattr(svc, f"{method}Response")(version=_version(job))

        return await self._route(job_id, method, request, body)

    async def ReplaceJob(self, request: svc.ReplaceJobRequest) -> Any:
        if request.secrets:
            raise InvalidArgument("not supported yet: no host backend hands a task a secret",
                                  field="secrets")
        if not request.HasField("spec"):
            raise InvalidArgument("the job's new spec is required", field="spec")
        return await self._roll(request, "ReplaceJob", request.spec,
                                _update_config(request.update_spec, "update_spec"),
                                opaque=request.opaque_data.data)

    async def PatchJob(self, request: svc.PatchJobRequest) -> Any:
        if request.secrets:
            raise InvalidArgument("not supported yet: no host backend hands a task a secret",
                                  field="secrets")
        return await self._roll(request, "PatchJob", request.spec,
                                _update_config(request.update_spec, "update_spec"),
                                opaque=request.opaque_data.data, patch=True)

    async def RestartJob(self, request: svc.RestartJobRequest) -> Any:
        spec = request.restart_spec
        if spec.in_place:
            raise InvalidArgument("not supported yet: restarting in place (holding each "
                                  "pod's host for it)", field="restart_spec.in_place")
        for i, r in enumerate(spec.ranges):
            if r.to <= getattr(r, "from"):
                raise InvalidArgument(f"instance range {getattr(r, 'from')}:{r.to} is empty",
                                      field=f"restart_spec.ranges[{i}]")
        return await self._roll(request, "RestartJob", None,
                                update_pb2.UpdateConfig(batchSize=spec.batch_size),
                                opaque=request.opaque_data.data, restart=list(spec.ranges))

    # -- the running workflow ----------------------------------------------------
    async def _control(self, request: Any, method: str,
                       change: Callable[[ShardEngine, Job, JobUpdate], Awaitable[None]]) -> Any:
        job_id = _job_id(request.job_id)
        check = _checker(request.version)

        async def body(engine: ShardEngine) -> Any:
            await control_on(engine, job_id, None, request, change, check)
            return getattr(svc, f"{method}Response")(version=_version(engine.jobs[job_id]))

        return await self._route(job_id, method, request, body)

    async def PauseJobWorkflow(self, request: svc.PauseJobWorkflowRequest) -> Any:
        return await self._control(request, "PauseJobWorkflow", pause_update)

    async def ResumeJobWorkflow(self, request: svc.ResumeJobWorkflowRequest) -> Any:
        return await self._control(request, "ResumeJobWorkflow", resume_update)

    async def AbortJobWorkflow(self, request: svc.AbortJobWorkflowRequest) -> Any:
        return await self._control(request, "AbortJobWorkflow", abort_update)

    # -- start, stop, delete -----------------------------------------------------
    async def _act(self, request: Any, method: str,
                   act: Callable[[ShardEngine, Job, list[Task]], Awaitable[Any]]) -> Any:
        job_id = _job_id(request.job_id)
        check = _checker(request.version)

        async def checked(engine: ShardEngine, job: Job, tasks: list[Task]) -> Any:
            check(job)
            await act(engine, job, tasks)
            return getattr(svc, f"{method}Response")(version=_version(job))

        return await _on_owner(self.jm, job_id, (), svc_grpc.JobServiceStub, method, request,
                               checked)

    async def StartJob(self, request: svc.StartJobRequest) -> Any:
        async def start(engine: ShardEngine, job: Job, tasks: list[Task]) -> None:
            await _start(engine, job, tasks)
        return await self._act(request, "StartJob", start)

    async def StopJob(self, request: svc.StopJobRequest) -> Any:
        return await self._act(request, "StopJob", _stop)

    async def DeleteJob(self, request: svc.DeleteJobRequest) -> Any:
        job_id = _job_id(request.job_id)
        check = _checker(request.version)

        async def body(engine: ShardEngine) -> Any:
            job = engine.jobs.get(job_id)
            if job is not None:
                check(job)
                if job.state not in TERMINAL_JOB_STATES and not request.force:
                    raise FailedPrecondition(
                        f"job {job_id} is {job.state.name}; stop it first, or delete it "
                        "with force", field="force")
            await self.jobs.delete_on(engine, job_id)
            return svc.DeleteJobResponse()

        return await self._route(job_id, "DeleteJob", request, body)

    # -- reads ---------------------------------------------------------------
    async def _latest_update(self, runtime: job_pb2.RuntimeInfo) -> JobUpdate | None:
        if not runtime.updateID.value:
            return None
        row = await self.jm.storage.get_update(runtime.updateID.value)
        return JobUpdate.from_row(row) if row is not None else None

    async def GetJob(self, request: svc.GetJobRequest) -> Any:
        job_id = _job_id(request.job_id)
        row = await self._row(job_id)
        config = job_pb2.JobConfig.FromString(row.config)
        runtime = job_pb2.RuntimeInfo.FromString(row.runtime)
        update = await self._latest_update(runtime)
        workflow = None
        if update is not None:
            workflow = _workflow_info(update, runtime, config.instanceCount)
        status = job_status_of(runtime, workflow.status if workflow is not None else None)
        if request.summary_only:
            return svc.GetJobResponse(summary=job_summary_of(
                job_id, config, runtime, workflow.status if workflow is not None else None))
        if request.version.value:
            wanted, _, _ = parse_entity_version(request.version, "version")
            if wanted != row.config_version:
                stored = await self.jm.storage.get_job_configs(job_id)
                if wanted not in stored:
                    raise NotFound(f"job {job_id} has no config version {wanted}",
                                   field="version")
                config = job_pb2.JobConfig.FromString(stored[wanted])
        reply = svc.GetJobResponse(job_info=sl.JobInfo(
            job_id=v1.JobID(value=job_id), spec=job_spec_of(config), status=status))
        if workflow is not None:
            reply.workflow_info.CopyFrom(workflow)
        return reply

    async def GetJobIDFromJobName(self, request: svc.GetJobIDFromJobNameRequest) -> Any:
        if not request.job_name:
            raise InvalidArgument("a job name is required", field="job_name")
        rows, _ = await self.jm.storage.query_jobs(name=request.job_name,
                                                   order_by=[("creation_time", True)],
                                                   limit=NAME_LOOKUP_LIMIT)
        ids = [v1.JobID(value=r.job_id) for r in rows if r.name == request.job_name]
        if not ids:
            raise NotFound(f"no job is named {request.job_name!r}", field="job_name")
        return svc.GetJobIDFromJobNameResponse(job_id=ids)

    async def GetWorkflowEvents(self, request: svc.GetWorkflowEventsRequest) -> Any:
        """The events of an instance in the job's current or last workflow
        (taken, done or failed), newest first, at most ``limit`` (0: all),
        as Peloton answers."""
        job_id = _job_id(request.job_id)
        row = await self._row(job_id)
        if request.instance_id >= row.instance_count:
            raise InvalidArgument(f"job {job_id} has {row.instance_count} instances",
                                  field="instance_id")
        update = await self._latest_update(job_pb2.RuntimeInfo.FromString(row.runtime))
        if update is None:
            return svc.GetWorkflowEventsResponse()
        kind = RESTART if update.restart is not None else UPDATE
        out = _events(update.instance_events.get(request.instance_id, []), kind)
        return svc.GetWorkflowEventsResponse(events=out[:request.limit or None])

    async def ListJobWorkflows(self, request: svc.ListJobWorkflowsRequest) -> Any:
        job_id = _job_id(request.job_id)
        row = await self._row(job_id)
        runtime = job_pb2.RuntimeInfo.FromString(row.runtime)
        rows = await self.jm.storage.list_updates(job_id, limit=request.updates_limit or 100)
        return svc.ListJobWorkflowsResponse(workflow_infos=[
            _workflow_info(JobUpdate.from_row(r), runtime, row.instance_count,
                           instance_events=request.instance_events,
                           events_limit=request.instance_events_limit) for r in rows])

    async def GetReplaceJobDiff(self, request: svc.GetReplaceJobDiffRequest) -> Any:
        job_id = _job_id(request.job_id)
        if not request.HasField("spec"):
            raise InvalidArgument("the job's new spec is required", field="spec")
        new = job_config_of(request.spec)
        row = await self._row(job_id)
        old = job_pb2.JobConfig.FromString(row.config)
        if request.version.value:
            have = job_pb2.RuntimeInfo.FromString(row.runtime)
            current = entity_version(row.config_version, have.desiredStateVersion,
                                     have.workflowVersion)
            if current.value != request.version.value:
                raise VersionConflict(f"job {job_id} is at version {current.value}, not "
                                      f"{request.version.value}; read it again",
                                      field="version")
        added, removed, updated, same = [], [], [], []
        for i in range(max(old.instanceCount, new.instanceCount)):
            if i >= old.instanceCount:
                added.append(i)
            elif i >= new.instanceCount:
                removed.append(i)
            elif merged_task_config(old, i) != merged_task_config(new, i):
                updated.append(i)
            else:
                same.append(i)
        return svc.GetReplaceJobDiffResponse(
            instances_added=_id_ranges(added), instances_removed=_id_ranges(removed),
            instances_updated=_id_ranges(updated), instances_unchanged=_id_ranges(same))

    async def ListPods(self, request: svc.ListPodsRequest) -> Any:
        job_id = _job_id(request.job_id)
        await self._row(job_id)
        r = request.range
        rows, _ = await self.jm.storage.list_tasks(
            job_id, instance_from=getattr(r, "from"), instance_to=r.to or None)
        pods = [pod_pb2.PodSummary(pod_name=v1.PodName(value=pod_name(job_id, t.instance_id)),
                                   status=pod_status_of(task_pb2.RuntimeInfo.FromString(
                                       t.runtime))) for t in rows]
        return [svc.ListPodsResponse(pods=pods[i:i + STREAM_CHUNK])
                for i in range(0, len(pods), STREAM_CHUNK)] or [svc.ListPodsResponse()]

    async def QueryPods(self, request: svc.QueryPodsRequest) -> Any:
        job_id = _job_id(request.job_id)
        spec = request.spec
        v0 = task_pb2.QuerySpec(names=[n.value for n in spec.names], hosts=spec.hosts)
        for i, state in enumerate(spec.pod_states):
            v0.taskStates.append(task_state_of_pod(state, f"spec.pod_states[{i}]"))  # type: ignore[arg-type]
        pagination = request.pagination if request.HasField("pagination") else spec.pagination
        v0.pagination.CopyFrom(v0_pagination(pagination))
        reply = await self.tasks.Query(task_pb2.QueryRequest(jobId=peloton_pb2.JobID(
            value=job_id), spec=v0))
        pods = []
        for info in reply.records:
            pod = pod_pb2.PodInfo(status=pod_status_of(info.runtime))
            if not request.summary_only:
                pod.spec.CopyFrom(pod_spec_of(info.config))
            pod.spec.pod_name.value = pod_name(job_id, info.instanceId)
            pods.append(pod)
        return svc.QueryPodsResponse(pods=pods, pagination=v1_pagination(reply.pagination))

    def _v0_query(self, spec: sl.QuerySpec) -> job_pb2.QuerySpec:
        v0 = job_pb2.QuerySpec(keywords=spec.keywords, owner=spec.owner, name=spec.name,
                               jobStates=spec.job_states)  # type: ignore[arg-type]
        v0.labels.extend(peloton_pb2.Label(key=lab.key, value=lab.value) for lab in spec.labels)
        if spec.respool.value:
            v0.respool.value = spec.respool.value
        for name in ("creation_time_range", "completion_time_range"):
            if spec.HasField(name):
                target = getattr(v0, "creationTimeRange" if name.startswith("creation")
                                 else "completionTimeRange")
                target.min.CopyFrom(getattr(spec, name).min)
                target.max.CopyFrom(getattr(spec, name).max)
        v0.pagination.CopyFrom(v0_pagination(spec.pagination))
        return v0

    async def QueryJobs(self, request: svc.QueryJobsRequest) -> Any:
        reply = await self.jobs.Query(job_pb2.QueryRequest(spec=self._v0_query(request.spec),
                                                           summaryOnly=True))
        return svc.QueryJobsResponse(
            records=[job_summary_of(s.id.value, _config_of_summary(s), s.runtime)
                     for s in reply.results],
            pagination=v1_pagination(reply.pagination), spec=request.spec)

    async def ListJobs(self, request: svc.ListJobsRequest) -> Any:
        out: list[svc.ListJobsResponse] = []
        offset = 0
        while True:
            rows, _ = await self.jm.storage.query_jobs(offset=offset, limit=STREAM_CHUNK)
            if not rows:
                break
            out.append(svc.ListJobsResponse(jobs=[job_summary_of(
                r.job_id, job_pb2.JobConfig.FromString(r.config),
                job_pb2.RuntimeInfo.FromString(r.runtime)) for r in rows]))
            offset += len(rows)
        return out or [svc.ListJobsResponse()]

    # -- debug -------------------------------------------------------------
    async def RefreshJob(self, request: svc.RefreshJobRequest) -> Any:
        await _refresh(self.jm, _job_id(request.job_id), (), svc_grpc.JobServiceStub,
                       "RefreshJob", request)
        return svc.RefreshJobResponse()

    async def GetJobCache(self, request: svc.GetJobCacheRequest) -> Any:
        job_id = _job_id(request.job_id)

        async def body(engine: ShardEngine) -> Any:
            job = self._live(engine, job_id)
            return svc.GetJobCacheResponse(spec=job_spec_of(job.config),
                                           status=job_status_of(job.runtime()))

        return await self._route(job_id, "GetJobCache", request, body)


def _config_of_summary(summary: job_pb2.JobSummary) -> job_pb2.JobConfig:
    return job_pb2.JobConfig(name=summary.name, owner=summary.owner,
                             owningTeam=summary.owningTeam, labels=summary.labels,
                             instanceCount=summary.instanceCount, respoolID=summary.respoolID,
                             sla=summary.sla)


def _pod(name: v1.PodName, field: str = "pod_name") -> tuple[str, int]:
    """(job id, instance) of a pod name ``<job id>-<instance>``."""
    job_id, _, instance = name.value.rpartition("-")
    if not is_job_id(job_id) or not instance.isdigit():
        raise InvalidArgument(f"{name.value!r} is not a pod name (<job id>-<instance>)",
                              field=field)
    return job_id, int(instance)


def _run(pod: v1.PodID, job_id: str, instance: int, field: str = "pod_id") -> int:
    """The run number of a pod id ``<pod name>-<run>`` of this pod."""
    prefix = f"{pod_name(job_id, instance)}-"
    run = pod.value.removeprefix(prefix)
    if not pod.value.startswith(prefix) or not run.isdigit():
        raise InvalidArgument(f"{pod.value!r} is not a run of pod {prefix[:-1]} "
                              f"({prefix}<run>)", field=field)
    return int(run)


class PodService:
    """peloton.api.v1alpha.pod.svc.PodService: one instance of a job (a pod
    is ``<job id>-<instance>``; a run of it, its pod id, ``<pod name>-<run>``)."""

    def __init__(self, jobs: JobHandler, tasks: TaskHandler) -> None:
        self.jm = jobs.jm
        self.tasks = tasks

    async def _act(self, request: Any, method: str,
                   act: Callable[[ShardEngine, Job, list[Task]], Awaitable[None]]) -> Any:
        job_id, instance = _pod(request.pod_name)

        async def checked(engine: ShardEngine, job: Job, tasks: list[Task]) -> Any:
            if instance >= job.config.instanceCount:
                raise NotFound(f"pod {request.pod_name.value} does not exist (job {job_id} "
                               f"has {job.config.instanceCount} instances)", field="pod_name")
            await act(engine, job, tasks)
            return getattr(pod_svc_pb2, f"{method}Response")()

        ranges = [task_pb2.InstanceRange(to=instance + 1, **{"from": instance})]
        return await _on_owner(self.jm, job_id, ranges, pod_svc_grpc.PodServiceStub, method,
                               request, checked)

    async def StartPod(self, request: pod_svc_pb2.StartPodRequest) -> Any:
        async def start(engine: ShardEngine, job: Job, tasks: list[Task]) -> None:
            await engine.start(tasks)
        return await self._act(request, "StartPod", start)

    async def StopPod(self, request: pod_svc_pb2.StopPodRequest) -> Any:
        async def stop(engine: ShardEngine, job: Job, tasks: list[Task]) -> None:
            await engine.kill(tasks)
        return await self._act(request, "StopPod", stop)

    async def RestartPod(self, request: pod_svc_pb2.RestartPodRequest) -> Any:
        async def restart(engine: ShardEngine, job: Job, tasks: list[Task]) -> None:
            await engine.restart(tasks, check_sla=request.check_sla)
        return await self._act(request, "RestartPod", restart)

    async def GetPod(self, request: pod_svc_pb2.GetPodRequest) -> Any:
        """The pod's current run (spec and status), and the last ``limit``
        earlier runs (0: all), newest first, from their events."""
        job_id, instance = _pod(request.pod_name)
        reply = await self.tasks.Get(task_pb2.GetRequest(jobId=peloton_pb2.JobID(
            value=job_id), instanceId=instance))
        info = reply.result
        current = pod_pb2.PodInfo(status=pod_status_of(info.runtime))
        if not request.status_only:
            current.spec.CopyFrom(pod_spec_of(info.config))
            current.spec.pod_name.value = request.pod_name.value
        run = int(info.runtime.mesosTaskId.value.rpartition("-")[2] or 1)
        first = max(1, run - request.limit) if request.limit else 1
        previous: list[pod_pb2.PodInfo] = []
        if run > 1:
            events = await self.jm.storage.task_events(job_id, instance, limit=POD_EVENTS_LIMIT,
                                                       runs=(first, run - 1))
            last: dict[int, Any] = {}
            for e in events:
                last[e.run_id] = e  # the run's latest event is its end
            for r in sorted(last, reverse=True):
                e = last[r]
                status = pod_pb2.PodStatus(state=pod_state(e.state), host=e.host,  # type: ignore[arg-type]
                                           message=e.message)
                status.pod_id.value = mesos_task_id(job_id, instance, r)
                if r > 1:
                    status.prev_pod_id.value = mesos_task_id(job_id, instance, r - 1)
                if TaskState(e.state).name in ("SUCCEEDED", "FAILED", "KILLED", "LOST"):
                    status.completion_time = rfc3339(e.timestamp)
                previous.append(pod_pb2.PodInfo(status=status))
        return pod_svc_pb2.GetPodResponse(current=current, previous=previous)

    async def GetPodEvents(self, request: pod_svc_pb2.GetPodEventsRequest) -> Any:
        job_id, instance = _pod(request.pod_name)
        run_id = ""
        if request.pod_id.value:
            _run(request.pod_id, job_id, instance)
            run_id = request.pod_id.value
        reply = await self.tasks.GetPodEvents(task_pb2.GetPodEventsRequest(
            jobId=peloton_pb2.JobID(value=job_id), instanceId=instance, runId=run_id,
            limit=0 if run_id else 1))
        out = pod_svc_pb2.GetPodEventsResponse()
        for e in reply.result:
            event = out.events.add(
                actual_state=pod_pb2.PodState.Name(pod_state(  # type: ignore[arg-type]
                    task_pb2.TaskState.Value(e.actualState))),
                timestamp=e.timestamp, hostname=e.hostname, message=e.message,
                reason=e.reason)
            event.pod_id.value = e.taskId.value
            event.prev_pod_id.value = e.prevTaskId.value
        return out

    async def BrowsePodSandbox(self, request: pod_svc_pb2.BrowsePodSandboxRequest) -> Any:
        job_id, instance = _pod(request.pod_name)
        run_id = ""
        if request.pod_id.value:
            _run(request.pod_id, job_id, instance)
            run_id = request.pod_id.value
        reply = await self.tasks.BrowseSandbox(task_pb2.BrowseSandboxRequest(
            jobId=peloton_pb2.JobID(value=job_id), instanceId=instance, taskId=run_id))
        return pod_svc_pb2.BrowsePodSandboxResponse(hostname=reply.hostname, port=reply.port,
                                                    paths=reply.paths)

    async def RefreshPod(self, request: pod_svc_pb2.RefreshPodRequest) -> Any:
        job_id, instance = _pod(request.pod_name)
        ranges = [task_pb2.InstanceRange(to=instance + 1, **{"from": instance})]
        await _refresh(self.jm, job_id, ranges, pod_svc_grpc.PodServiceStub, "RefreshPod",
                       request)
        return pod_svc_pb2.RefreshPodResponse()

    async def GetPodCache(self, request: pod_svc_pb2.GetPodCacheRequest) -> Any:
        job_id, instance = _pod(request.pod_name)
        reply = await self.tasks.GetCache(task_pb2.GetCacheRequest(
            jobId=peloton_pb2.JobID(value=job_id), instanceId=instance))
        return pod_svc_pb2.GetPodCacheResponse(
            status=pod_status_of(reply.runtime),
            labels=[v1.Label(key=lab.key, value=lab.value) for lab in reply.labels])

    async def DeletePodEvents(self, request: pod_svc_pb2.DeletePodEventsRequest) -> Any:
        job_id, instance = _pod(request.pod_name)
        if not request.pod_id.value:
            raise InvalidArgument("the run whose events (and its earlier runs') go is "
                                  "required", field="pod_id")
        run = _run(request.pod_id, job_id, instance)
        await self.tasks.DeletePodEvents(task_pb2.DeletePodEventsRequest(
            jobId=peloton_pb2.JobID(value=job_id), instanceId=instance, runId=run))
        return pod_svc_pb2.DeletePodEventsResponse()
