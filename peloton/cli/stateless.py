"""``peloton job stateless`` and ``peloton pod``: the v1alpha stateless API.

In Peloton's CLI shape (``pkg/cli/stateless_actions.go``,
``pod_actions.go``): writes take the job's entity version
(``<config>-<desiredState>-<workflow>``, as ``job stateless get`` shows
it); a stale one is refused, and the job is read again. A pod is
``<job id>-<instance>``; one run of it, a pod id, ``<pod name>-<run>``.
"""

from __future__ import annotations

import argparse
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
    count_arg,
    group,
    job_id_arg,
    leaf,
    load_spec,
    parse_range,
)
from peloton.cli.output import message_json, message_yaml, table
from peloton.cli.task import write_bytes
from peloton.client import PelotonClient
from peloton.spec.respool import split_respool_path
from peloton.spec.v1alpha import load_stateless_spec

TERMINAL = frozenset({sl.WORKFLOW_STATE_SUCCEEDED, sl.WORKFLOW_STATE_ABORTED,
                      sl.WORKFLOW_STATE_FAILED, sl.WORKFLOW_STATE_ROLLED_BACK})
WATCH_PERIOD = 1.0


def _jid(value: str) -> v1.JobID:
    return v1.JobID(value=value)


def _ver(value: str) -> v1.EntityVersion:
    return v1.EntityVersion(value=value)


def version_arg(text: str) -> str:
    parts = text.strip().split("-")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an entity version (<config>-<desiredState>-<workflow>, such as "
            "1-0-0; `peloton job stateless get JOB` shows it)")
    return text.strip()


def pod_arg(text: str) -> str:
    job, _, instance = text.strip().rpartition("-")
    try:
        job_id_arg(job)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a pod name (<job id>-<instance>)")
    if not instance.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a pod name (<job id>-<instance>)")
    return text.strip().lower()


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


def _versioned(method: str, done: str) -> Any:
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


def _debug(method: str, request_type: Any) -> Any:
    def action(cli: Cli) -> int:
        reply = cli.call(lambda c: c.stateless.call(method, request_type(
            job_id=_jid(cli.args.job))))
        cli.emit(reply, lambda: message_yaml(reply) or f"Job {cli.args.job} refreshed")
        return EXIT_OK
    return action


# -- pod ----------------------------------------------------------------------------

def _pod_call(method: str, **fields: Any) -> Any:
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


def add_job_commands(jb: Any) -> None:
    """Register ``job stateless`` under the ``job`` commands."""
    st = group(jb, "stateless", "stateless (service) jobs through the v1alpha API")
    p = leaf(st, "create", create, "create a stateless job in RESPOOL from a v1alpha JobSpec")
    p.add_argument("respool", help="the pool (path), a leaf")
    p.add_argument("file", help="the JobSpec (YAML)")
    p.add_argument("batch_size", type=count_arg, metavar="batch-size",
                   help="pods started at once (0: all); the next start when these run "
                        "(and are healthy, with a health check)")
    p.add_argument("-i", "--jobID", type=job_id_arg, help="the job's id (a UUID)")
    p.add_argument("--start-paused", action="store_true",
                   help="create it paused: no pod starts before `workflow resume`")
    p.add_argument("--opaque-data", default="", help="data kept with the create workflow")
    p.add_argument("--maxInstanceRetries", type=count_arg, default=0,
                   help="failed runs per pod before it counts as failed (0: no limit)")
    p.add_argument("--maxTolerableInstanceFailures", type=count_arg, default=0,
                   help="failed pods that fail the create workflow (0: no limit)")
    p = leaf(st, "get", get, "show a stateless job (spec, status, version, workflow)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("--jobversion", type=version_arg, help="the spec of this entity version")
    p.add_argument("--summaryonly", action="store_true", help="a summary only")
    p.add_argument("-w", "--watch", action="store_true",
                   help="follow its workflow to the end: instances done, unavailable now and "
                        "allowed")
    p = leaf(st, "replace", replace, "roll the job out to the JobSpec in FILE")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("file")
    p.add_argument("batch_size", type=count_arg, metavar="batch-size",
                   help="pods moving at once (0: all)")
    p.add_argument("respool", help="the job's pool (path)")
    p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p.add_argument("--maxInstanceRetries", type=count_arg, default=0,
                   help="failed runs of the new spec per pod before it counts as failed "
                        "(0: no limit)")
    p.add_argument("--maxTolerableInstanceFailures", type=count_arg, default=0,
                   help="failed pods that fail the workflow (0: no limit)")
    p.add_argument("--rollbackOnFailure", action="store_true",
                   help="roll back to the old spec if it fails")
    p.add_argument("--start-paused", action="store_true", help="create it paused")
    p.add_argument("--opaque-data", default="", help="data kept with the workflow")
    p.add_argument("--in-place", action="store_true", help="(refused: not supported yet)")
    p.add_argument("--start-pods", action="store_true", help="(refused: not supported yet)")
    p = leaf(st, "replace-diff", replace_diff, "the pods a replace would add, remove, update")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("file")
    p.add_argument("respool", help="the job's pool (path)")
    p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p = leaf(st, "restart", restart, "restart pods, in batches, as a workflow")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p.add_argument("-r", "--range", action="append",
                   help="instances FROM:TO (TO exclusive; repeatable; default: all)")
    p.add_argument("--batch-size", type=count_arg, default=0, help="pods at once (0: all)")
    p.add_argument("--opaque-data", default="", help="data kept with the workflow")
    p.add_argument("--in-place", action="store_true", help="(refused: not supported yet)")
    for name, method, done in (("start", "StartJob", "starting"),
                               ("stop", "StopJob", "stopping")):
        p = leaf(st, name, _versioned(method, done), f"{name} every pod of the job")
        p.add_argument("job", type=job_id_arg)
        p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p = leaf(st, "delete", _versioned("DeleteJob", "deleted"), "delete the job")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p.add_argument("--force", action="store_true", help="delete it even while it runs")
    wf = group(st, "workflow", "the job's current workflow (update or restart)")
    for name, method, done in (("pause", "PauseJobWorkflow", "workflow paused"),
                               ("resume", "ResumeJobWorkflow", "workflow resumed"),
                               ("abort", "AbortJobWorkflow", "workflow aborted")):
        p = leaf(wf, name, _versioned(method, done), f"{name} the job's workflow")
        p.add_argument("job", type=job_id_arg)
        p.add_argument("entity_version", type=version_arg, metavar="entity-version")
        p.add_argument("--opaque-data", default="", help="data kept with the workflow")
    p = leaf(wf, "events", workflow_events, "a pod's events in the job's last workflow")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=count_arg)
    p.add_argument("-n", "--limit", type=count_arg, default=0, help="at most this many (0: all)")
    p = leaf(st, "list-updates", list_workflows, "the job's workflows, newest first")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("--limit", type=count_arg, default=10, help="at most this many (10)")
    p = leaf(st, "query", query, "search jobs")
    p.add_argument("-n", "--name")
    p.add_argument("-o", "--owner")
    p.add_argument("-k", "--keyword", action="append")
    p.add_argument("-s", "--states", help="comma-separated job states (RUNNING,KILLED,...)")
    p.add_argument("-p", "--respool", help="a pool's path")
    p.add_argument("-l", "--limit", type=count_arg, default=100)
    p.add_argument("--offset", type=count_arg, default=0)
    leaf(st, "list", list_jobs, "every job")
    p = leaf(st, "list-pods", list_pods, "the job's pods")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-r", "--range", help="instances FROM:TO (TO exclusive)")
    for name, method, request_type in (("cache", "GetJobCache", svc.GetJobCacheRequest),
                                       ("refresh", "RefreshJob", svc.RefreshJobRequest)):
        p = leaf(st, name, _debug(method, request_type), f"{method} (debug)")
        p.add_argument("job", type=job_id_arg)


def add_commands(commands: Any) -> None:
    """Register the ``pod`` commands."""
    pd = group(commands, "pod", "pods (instances) of stateless jobs, through the v1alpha API")
    p = leaf(pd, "get", _pod_call("GetPod", status_only="statusonly", limit="limit"),
             "a pod's current run and its earlier ones")
    p.add_argument("pod", type=pod_arg, help="<job id>-<instance>")
    p.add_argument("--statusonly", action="store_true", help="leave out the spec")
    p.add_argument("--limit", type=count_arg, default=0, help="earlier runs (0: all)")
    p = leaf(pd, "events", pod_events, "a run's state changes (default: the current run)")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("-p", "--pod-id", help="the run: <pod name>-<run>")
    p = leaf(pd, "logs", pod_logs, "a file of a run's sandbox (default: stdout)")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("-f", "--filename", default="stdout")
    p.add_argument("-p", "--pod-id", help="the run: <pod name>-<run>")
    for name, method in (("start", "StartPod"), ("stop", "StopPod")):
        p = leaf(pd, name, _pod_call(method), f"{name} a pod")
        p.add_argument("pod", type=pod_arg)
    p = leaf(pd, "restart", _pod_call("RestartPod", check_sla="check_sla"), "restart a pod")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("--check-sla", action="store_true",
                   help="wait while the job is at sla.maximumUnavailableInstances")
    for name, method in (("refresh", "RefreshPod"), ("cache", "GetPodCache")):
        p = leaf(pd, name, _pod_call(method), f"{method} (debug)")
        p.add_argument("pod", type=pod_arg)
    p = leaf(pd, "delete-events", _pod_call("DeletePodEvents", pod_id="pod_id"),
             "delete a pod's events up to a run")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("pod_id", metavar="pod-id", type=lambda s: v1.PodID(value=s))
