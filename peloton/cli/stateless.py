"""``peloton job stateless`` and ``peloton pod``: the v1alpha stateless API.

In Peloton's CLI shape (``pkg/cli/stateless_actions.go``,
``pod_actions.go``): writes take the job's entity version
(``<config>-<desiredState>-<workflow>``, as ``job stateless get`` shows
it); a stale one is refused, and the job is read again. A pod is
``<job id>-<instance>``; one run of it, a pod id, ``<pod name>-<run>``.
"""

from __future__ import annotations

from typing import Any

import trio

from peloton.api.v1alpha.job.stateless import stateless_pb2 as sl
from peloton.api.v1alpha.job.stateless.svc import stateless_svc_pb2 as svc
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.pod import pod_pb2
from peloton.api.v1alpha.pod.svc import pod_svc_pb2
from peloton.cli.common import (
    EXIT_OK,
    Cli,
    Failure,
    load_spec,
    parse_range,
)
from peloton.cli.output import message_json, message_yaml, table
from peloton.cli.task import write_bytes
from peloton.client import PelotonClient
from peloton.spec.paths import split_respool_path
from peloton.spec.v1alpha import load_stateless_spec

TERMINAL = frozenset({sl.WORKFLOW_STATE_SUCCEEDED, sl.WORKFLOW_STATE_ABORTED,
                      sl.WORKFLOW_STATE_FAILED, sl.WORKFLOW_STATE_ROLLED_BACK})
WATCH_PERIOD = 1.0


def _jid(value: str) -> v1.JobID:
    return v1.JobID(value=value)


def _ver(value: str) -> v1.EntityVersion:
    return v1.EntityVersion(value=value)


def _spec(cli: Cli, path: str) -> sl.JobSpec:
    return load_spec(cli, path, load_stateless_spec)


def _ranges(texts: list[str] | None) -> list[pod_pb2.InstanceIDRange]:
    out = []
    for text in texts or ():
        r = parse_range(text)
        out.append(pod_pb2.InstanceIDRange(to=r.to, **{"from": getattr(r, "from")}))
    return out


# -- job stateless ---------------------------------------------------------------

def create(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.respool)
    spec = _spec(cli, a.file)

    async def call(c: PelotonClient) -> svc.CreateJobResponse:
        spec.respool_id.value = await c.lookup_respool(a.respool)
        request = svc.CreateJobRequest(spec=spec, create_spec=sl.CreateSpec(
            batch_size=a.batch_size, max_instance_retries=a.maxInstanceRetries,
            max_tolerable_instance_failures=a.maxTolerableInstanceFailures,
            start_paused=a.start_paused))
        if a.jobID:
            request.job_id.value = a.jobID
        if a.opaque_data:
            request.opaque_data.data = a.opaque_data
        return await c.stateless.call("CreateJob", request)

    reply = cli.call(call)
    cli.emit(reply, lambda: f"Job {reply.job_id.value} created (version {reply.version.value})")
    return EXIT_OK


def _workflow_line(status: sl.WorkflowStatus, allowed: int, down: int) -> str:
    total = (status.num_instances_completed + status.num_instances_failed
             + status.num_instances_remaining)
    failed = f", {status.num_instances_failed} failed" if status.num_instances_failed else ""
    limit = f" (at most {allowed} allowed)" if allowed else ""
    return (f"{sl.WorkflowType.Name(status.type).removeprefix('WORKFLOW_TYPE_')} "
            f"{sl.WorkflowState.Name(status.state).removeprefix('WORKFLOW_STATE_')}: "
            f"{status.num_instances_completed}/{total} instances done{failed}; "
            f"{down} unavailable now{limit}")


def get(cli: Cli) -> int:
    a = cli.args

    async def one(c: PelotonClient) -> svc.GetJobResponse:
        request = svc.GetJobRequest(job_id=_jid(a.job), summary_only=a.summaryonly)
        if a.jobversion:
            request.version.value = a.jobversion
        return await c.stateless.call("GetJob", request)

    if not a.watch:
        reply = cli.call(one)
        cli.emit(reply, lambda: message_yaml(reply))
        return EXIT_OK

    async def watch(c: PelotonClient) -> None:
        last = ""
        while True:
            info = (await one(c)).job_info
            status = info.status.workflow_status
            if not status.type:
                cli.print("no workflow")
                return
            replies = await c.stateless.call("ListPods", svc.ListPodsRequest(
                job_id=_jid(a.job)))
            down = sum(1 for r in replies for p in r.pods
                       if p.status.state != pod_pb2.POD_STATE_RUNNING
                       or p.status.containers_status[0].healthy.state
                       == pod_pb2.HEALTH_STATE_UNHEALTHY)
            line = _workflow_line(status, info.spec.sla.maximum_unavailable_instances, down)
            if line != last:
                cli.print(line if not cli.json else message_json(status))
                last = line
            if status.state in TERMINAL:
                return
            await trio.sleep(WATCH_PERIOD)

    cli.call(watch)
    return EXIT_OK


def replace(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.respool)
    spec = _spec(cli, a.file)

    async def call(c: PelotonClient) -> svc.ReplaceJobResponse:
        spec.respool_id.value = await c.lookup_respool(a.respool)
        request = svc.ReplaceJobRequest(
            job_id=_jid(a.job), version=_ver(a.entity_version), spec=spec,
            update_spec=sl.UpdateSpec(
                batch_size=a.batch_size, rollback_on_failure=a.rollbackOnFailure,
                max_instance_retries=a.maxInstanceRetries,
                max_tolerable_instance_failures=a.maxTolerableInstanceFailures,
                start_paused=a.start_paused, in_place=a.in_place, start_pods=a.start_pods))
        if a.opaque_data:
            request.opaque_data.data = a.opaque_data
        return await c.stateless.call("ReplaceJob", request)

    reply = cli.call(call)
    cli.emit(reply, lambda: f"Job {a.job} is being replaced (new version "
                            f"{reply.version.value}); follow it with `peloton job stateless "
                            f"get {a.job} --watch`")
    return EXIT_OK


def _range_text(ranges: Any) -> str:
    return ", ".join(f"{getattr(r, 'from')}:{r.to}" for r in ranges) or "none"


def replace_diff(cli: Cli) -> int:
    a = cli.args
    split_respool_path(a.respool)
    spec = _spec(cli, a.file)

    async def call(c: PelotonClient) -> svc.GetReplaceJobDiffResponse:
        spec.respool_id.value = await c.lookup_respool(a.respool)
        return await c.stateless.call("GetReplaceJobDiff", svc.GetReplaceJobDiffRequest(
            job_id=_jid(a.job), version=_ver(a.entity_version), spec=spec))

    reply = cli.call(call)
    cli.emit(reply, lambda: "\n".join(
        f"{name}: {_range_text(getattr(reply, f'instances_{name}'))}"
        for name in ("added", "removed", "updated", "unchanged")))
    return EXIT_OK


def restart(cli: Cli) -> int:
    a = cli.args
    request = svc.RestartJobRequest(job_id=_jid(a.job), version=_ver(a.entity_version),
                                    restart_spec=sl.RestartSpec(
                                        batch_size=a.batch_size, ranges=_ranges(a.range),
                                        in_place=a.in_place))
    if a.opaque_data:
        request.opaque_data.data = a.opaque_data
    reply = cli.call(lambda c: c.stateless.call("RestartJob", request))
    cli.emit(reply, lambda: f"Job {a.job} is restarting (new version {reply.version.value})")
    return EXIT_OK


def versioned(method: str, done: str) -> Any:
    """A write that takes the job's entity version: ``method``, then ``done``."""
    def action(cli: Cli) -> int:
        a = cli.args
        request = getattr(svc, f"{method}Request")(job_id=_jid(a.job),
                                                   version=_ver(a.entity_version))
        if getattr(a, "opaque_data", None):
            request.opaque_data.data = a.opaque_data
        if getattr(a, "force", False):
            request.force = True
        reply = cli.call(lambda c: c.stateless.call(method, request))
        version = getattr(reply, "version", None)
        cli.emit(reply, lambda: f"Job {a.job} {done}" + (
            f" (version {version.value})" if version is not None and version.value else ""))
        return EXIT_OK
    return action


def workflow_events(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.stateless.call("GetWorkflowEvents", svc.GetWorkflowEventsRequest(
        job_id=_jid(a.job), instance_id=a.instance, limit=a.limit)))
    cli.emit(reply, lambda: table(("TIME", "WORKFLOW", "STATE"), [
        (e.timestamp, sl.WorkflowType.Name(e.type).removeprefix("WORKFLOW_TYPE_"),
         sl.WorkflowState.Name(e.state).removeprefix("WORKFLOW_STATE_"))
        for e in reply.events]))
    return EXIT_OK


def list_workflows(cli: Cli) -> int:
    a = cli.args
    reply = cli.call(lambda c: c.stateless.call("ListJobWorkflows", svc.ListJobWorkflowsRequest(
        job_id=_jid(a.job), updates_limit=a.limit)))
    cli.emit(reply, lambda: table(("WORKFLOW", "STATE", "DONE", "FAILED", "REMAINING",
                                   "VERSION", "CREATED"), [
        (sl.WorkflowType.Name(w.status.type).removeprefix("WORKFLOW_TYPE_"),
         sl.WorkflowState.Name(w.status.state).removeprefix("WORKFLOW_STATE_"),
         w.status.num_instances_completed, w.status.num_instances_failed,
         w.status.num_instances_remaining,
         f"{w.status.prev_version.value} -> {w.status.version.value}",
         w.status.creation_time) for w in reply.workflow_infos]))
    return EXIT_OK


def _summaries(jobs: Any) -> str:
    return table(("ID", "NAME", "OWNER", "STATE", "INSTANCES", "VERSION"), [
        (j.job_id.value, j.name, j.owner or j.owning_team,
         sl.JobState.Name(j.status.state).removeprefix("JOB_STATE_"), j.instance_count,
         j.status.version.value) for j in jobs])


def query(cli: Cli) -> int:
    a = cli.args
    spec = sl.QuerySpec(name=a.name or "", owner=a.owner or "", keywords=a.keyword or [])
    for state in a.states.split(",") if a.states else ():
        key = state.strip().upper().removeprefix("JOB_STATE_")
        if f"JOB_STATE_{key}" not in sl.JobState.keys():  # noqa: SIM118
            raise Failure(f"--states: {state!r} is not a job state")
        spec.job_states.append(sl.JobState.Value(f"JOB_STATE_{key}"))  # type: ignore[arg-type]
    if a.respool:
        spec.respool.value = a.respool
    spec.pagination.limit = a.limit
    spec.pagination.offset = a.offset
    reply = cli.call(lambda c: c.stateless.call("QueryJobs", svc.QueryJobsRequest(spec=spec)))
    cli.emit(reply, lambda: _summaries(reply.records))
    return EXIT_OK


def list_jobs(cli: Cli) -> int:
    replies = cli.call(lambda c: c.stateless.call("ListJobs", svc.ListJobsRequest()))
    jobs = [j for r in replies for j in r.jobs]
    cli.emit(svc.ListJobsResponse(jobs=jobs), lambda: _summaries(jobs))
    return EXIT_OK


def list_pods(cli: Cli) -> int:
    a = cli.args
    request = svc.ListPodsRequest(job_id=_jid(a.job))
    if a.range:
        r = parse_range(a.range)
        request.range.CopyFrom(pod_pb2.InstanceIDRange(to=r.to, **{"from": getattr(r, "from")}))
    replies = cli.call(lambda c: c.stateless.call("ListPods", request))
    pods = [p for r in replies for p in r.pods]
    cli.emit(svc.ListPodsResponse(pods=pods), lambda: table(
        ("POD", "STATE", "HEALTH", "HOST", "POD ID", "VERSION"), [
            (p.pod_name.value, pod_pb2.PodState.Name(p.status.state).removeprefix("POD_STATE_"),
             pod_pb2.HealthState.Name(p.status.containers_status[0].healthy.state
                                      ).removeprefix("HEALTH_STATE_")
             if p.status.containers_status else "", p.status.host, p.status.pod_id.value,
             p.status.version.value) for p in pods]))
    return EXIT_OK


def debug(method: str, request_type: str) -> Any:
    """A debug call of the job: ``method`` with the ``svc`` request ``request_type``."""
    def action(cli: Cli) -> int:
        reply = cli.call(lambda c: c.stateless.call(method, getattr(svc, request_type)(
            job_id=_jid(cli.args.job))))
        cli.emit(reply, lambda: message_yaml(reply) or f"Job {cli.args.job} refreshed")
        return EXIT_OK
    return action


# -- pod ----------------------------------------------------------------------------

def pod_call(method: str, **fields: Any) -> Any:
    """A pod call: ``method``, its request's fields from the arguments
    (``field=argument``)."""
    def action(cli: Cli) -> int:
        a = cli.args
        request = getattr(pod_svc_pb2, f"{method}Request")(
            pod_name=v1.PodName(value=a.pod), **{k: getattr(a, v) for k, v in fields.items()})
        reply = cli.call(lambda c: c.pods.call(method, request))
        verb = method.removesuffix("Pod").lower()
        cli.emit(reply, lambda: message_yaml(reply) or f"Pod {a.pod}: {verb} requested")
        return EXIT_OK
    return action


def pod_events(cli: Cli) -> int:
    a = cli.args
    request = pod_svc_pb2.GetPodEventsRequest(pod_name=v1.PodName(value=a.pod))
    if a.pod_id:
        request.pod_id.value = a.pod_id
    reply = cli.call(lambda c: c.pods.call("GetPodEvents", request))
    cli.emit(reply, lambda: table(("TIME", "POD ID", "STATE", "HOST", "MESSAGE"), [
        (e.timestamp, e.pod_id.value, e.actual_state.removeprefix("POD_STATE_"), e.hostname,
         e.message) for e in reply.events]))
    return EXIT_OK


def pod_logs(cli: Cli) -> int:
    a = cli.args
    job, _, instance = a.pod.rpartition("-")
    data = cli.call(lambda c: c.read_task_file(job, int(instance), a.filename, a.pod_id or ""))
    write_bytes(cli, data)
    return EXIT_OK
