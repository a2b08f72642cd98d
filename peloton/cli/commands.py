"""Every ``peloton`` command: its place in the tree, its arguments and help,
and its handler by name.

Building the parser imports no command's implementation: a handler is a
:class:`peloton.cli.common.Handler` (``"job", "job_get"`` is
``peloton.cli.job.job_get``), imported when its command runs, and argument
types that need protobuf import it when they parse. ``main`` builds only
the nouns named on the command line in full (:func:`add_nouns`); the others
are listed with their help, so ``peloton --help`` imports nothing but
argparse and this package's light modules.
"""

from __future__ import annotations

import argparse
import signal
from collections.abc import Callable, Collection
from typing import Any

from peloton.cli.common import (
    Handler,
    add_globals,
    add_paging,
    attribute_arg,
    count_arg,
    enum_list,
    group,
    host_attribute_arg,
    instance_arg,
    job_id_arg,
    labels_arg,
    leaf,
    list_arg,
    listed,
    parse_range,
    pod_arg,
    positive_float,
    signal_number,
    version_arg,
    wanting,
)

__all__ = ["NOUNS", "add_nouns"]

JOB_PB2 = "peloton.api.v0.job.job_pb2"
TASK_PB2 = "peloton.api.v0.task.task_pb2"
HOST_PB2 = "peloton.api.v0.host.host_pb2"


def _respool(commands: Any) -> None:
    rp = group(commands, "respool", "resource pools")
    p = leaf(rp, "create", Handler("respool", "respool_create"),
             "create a resource pool at PATH from a YAML file")
    p.add_argument("path", help="e.g. /DefaultResPool")
    p.add_argument("file")
    p = leaf(rp, "update", Handler("respool", "respool_update"),
             "replace the config of the pool at PATH")
    p.add_argument("path")
    p.add_argument("file")
    p.add_argument("-f", "--force", action="store_true",
                   help="apply even if the new reservations do not fit")
    p = leaf(rp, "get", Handler("respool", "respool_get"), "show the pool at PATH")
    p.add_argument("path")
    p = leaf(rp, "dump", Handler("respool", "respool_dump"), "show every pool: reservation, "
             "limit, share, entitlement, allocation, demand, slack")
    p.add_argument("--format", choices=("table", "yaml", "yml", "json"), default="table")
    p = leaf(rp, "delete", Handler("respool", "respool_delete"),
             "delete the (empty) pool at PATH")
    p.add_argument("path")


def _resmgr(commands: Any) -> None:
    rm = group(commands, "resmgr", "the resource manager")
    p = leaf(rm, "pending", Handler("resmgr", "resmgr_pending"),
             "list the gangs waiting for admission or placement in the leaf pool PATH, and why")
    p.add_argument("path", help="e.g. /DefaultResPool")
    p.add_argument("-l", "--limit", type=int, default=100, help="at most this many (100)")


def _job(commands: Any) -> None:
    jb = group(commands, "job", "jobs")
    p = leaf(jb, "create", Handler("plain", "job_create"),
             "create a job in the pool RESPOOL from a YAML file")
    p.add_argument("respool", help="the pool's path, e.g. /DefaultResPool")
    p.add_argument("file")
    p.add_argument("-i", "--id", type=job_id_arg, default=None, help="the new job's id (a UUID)")
    p = leaf(jb, "get", Handler("plain", "job_get"), "show a job's config and runtime")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "status", Handler("plain", "job_status"), "show a job's state and task counts")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "query", Handler("job", "job_query"), "list jobs")
    p.add_argument("-s", "--states", type=enum_list(JOB_PB2, "JobState"),
                   help="comma-separated job states, e.g. RUNNING,PENDING")
    p.add_argument("-r", "--respool", help="only jobs of this pool (path)")
    p.add_argument("--name", help="only jobs with this name")
    p.add_argument("--owner", help="only jobs of this owner")
    p.add_argument("-l", "--labels", type=labels_arg, help="key=value[,key=value...]")
    p.add_argument("-k", "--keywords", type=list_arg,
                   help="words each found in the name, owner or a label (a,b,...)")
    p.add_argument("-d", "--days", type=count_arg, default=0,
                   help="only jobs created in the last DAYS days")
    add_paging(p, sort="creation_time (the default), completion_time, name, owner, state "
               "or instance_count", order="DESC")
    p.add_argument("-q", "--total", type=count_arg, default=100,
                   help="at most this many over all pages (100; 0: no bound)")
    p = leaf(jb, "refresh", Handler("job", "job_refresh"),
             "ask the hosts about a job's runs again (debug)")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "cache", Handler("job", "job_cache"),
             "show a job as its shard's owner holds it (debug)")
    p.add_argument("job", type=job_id_arg)
    leaf(jb, "active-list", Handler("job", "job_active_list"),
         "list the ids of jobs not ended (debug)")
    p = leaf(jb, "stop", Handler("job", "job_stop"), "stop every task of a job")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "delete", Handler("job", "job_delete"), "delete a job (it must have ended)")
    p.add_argument("job", type=job_id_arg)
    p = leaf(jb, "update", Handler("job", "job_update"),
             "update a job from a YAML file (batch: add instances)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("file")
    _job_stateless(jb)


def _job_stateless(jb: Any) -> None:
    """``job stateless``: the v1alpha stateless job API."""
    st = group(jb, "stateless", "stateless (service) jobs through the v1alpha API")
    p = leaf(st, "create", Handler("stateless", "create"),
             "create a stateless job in RESPOOL from a v1alpha JobSpec")
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
    p = leaf(st, "get", Handler("stateless", "get"),
             "show a stateless job (spec, status, version, workflow)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("--jobversion", type=version_arg, help="the spec of this entity version")
    p.add_argument("--summaryonly", action="store_true", help="a summary only")
    p.add_argument("-w", "--watch", action="store_true",
                   help="follow its workflow to the end: instances done, unavailable now and "
                        "allowed")
    p = leaf(st, "replace", Handler("stateless", "replace"),
             "roll the job out to the JobSpec in FILE")
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
    p = leaf(st, "replace-diff", Handler("stateless", "replace_diff"),
             "the pods a replace would add, remove, update")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("file")
    p.add_argument("respool", help="the job's pool (path)")
    p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p = leaf(st, "restart", Handler("stateless", "restart"),
             "restart pods, in batches, as a workflow")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p.add_argument("-r", "--range", action="append",
                   help="instances FROM:TO (TO exclusive; repeatable; default: all)")
    p.add_argument("--batch-size", type=count_arg, default=0, help="pods at once (0: all)")
    p.add_argument("--opaque-data", default="", help="data kept with the workflow")
    p.add_argument("--in-place", action="store_true", help="(refused: not supported yet)")
    for name, method, done in (("start", "StartJob", "starting"),
                               ("stop", "StopJob", "stopping")):
        p = leaf(st, name, Handler("stateless", "versioned", (method, done)),
                 f"{name} every pod of the job")
        p.add_argument("job", type=job_id_arg)
        p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p = leaf(st, "delete", Handler("stateless", "versioned", ("DeleteJob", "deleted")),
             "delete the job")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("entity_version", type=version_arg, metavar="entity-version")
    p.add_argument("--force", action="store_true", help="delete it even while it runs")
    wf = group(st, "workflow", "the job's current workflow (update or restart)")
    for name, method, done in (("pause", "PauseJobWorkflow", "workflow paused"),
                               ("resume", "ResumeJobWorkflow", "workflow resumed"),
                               ("abort", "AbortJobWorkflow", "workflow aborted")):
        p = leaf(wf, name, Handler("stateless", "versioned", (method, done)),
                 f"{name} the job's workflow")
        p.add_argument("job", type=job_id_arg)
        p.add_argument("entity_version", type=version_arg, metavar="entity-version")
        p.add_argument("--opaque-data", default="", help="data kept with the workflow")
    p = leaf(wf, "events", Handler("stateless", "workflow_events"),
             "a pod's events in the job's last workflow")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=count_arg)
    p.add_argument("-n", "--limit", type=count_arg, default=0, help="at most this many (0: all)")
    p = leaf(st, "list-updates", Handler("stateless", "list_workflows"),
             "the job's workflows, newest first")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("--limit", type=count_arg, default=10, help="at most this many (10)")
    p = leaf(st, "query", Handler("stateless", "query"), "search jobs")
    p.add_argument("-n", "--name")
    p.add_argument("-o", "--owner")
    p.add_argument("-k", "--keyword", action="append")
    p.add_argument("-s", "--states", help="comma-separated job states (RUNNING,KILLED,...)")
    p.add_argument("-p", "--respool", help="a pool's path")
    p.add_argument("-l", "--limit", type=count_arg, default=100)
    p.add_argument("--offset", type=count_arg, default=0)
    leaf(st, "list", Handler("stateless", "list_jobs"), "every job")
    p = leaf(st, "list-pods", Handler("stateless", "list_pods"), "the job's pods")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-r", "--range", help="instances FROM:TO (TO exclusive)")
    for name, method, request_type in (("cache", "GetJobCache", "GetJobCacheRequest"),
                                       ("refresh", "RefreshJob", "RefreshJobRequest")):
        p = leaf(st, name, Handler("stateless", "debug", (method, request_type)),
                 f"{method} (debug)")
        p.add_argument("job", type=job_id_arg)


def _task(commands: Any) -> None:
    tk = group(commands, "task", "tasks of a job")
    p = leaf(tk, "list", Handler("plain", "task_list"), "list a job's tasks")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-r", "--range", type=parse_range, default=None, metavar="FROM:TO",
                   help="only these instances (to exclusive)")
    p = leaf(tk, "query", Handler("task", "task_query"), "search a job's tasks")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-s", "--states", type=enum_list(TASK_PB2, "TaskState"),
                   help="comma-separated task states, e.g. RUNNING,FAILED")
    p.add_argument("--names", type=list_arg, help="task names (a,b,...)")
    p.add_argument("--hosts", type=list_arg, help="hosts (a,b,...)")
    add_paging(p, sort="instance_id (the default), creation_time, host, message, name, "
               "reason or state", order="ASC")
    p = leaf(tk, "refresh", Handler("task", "task_refresh"),
             "ask the hosts about tasks' runs again (debug)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-r", "--range", type=parse_range, default=None, metavar="FROM:TO",
                   help="only these instances (to exclusive)")
    p = leaf(tk, "cache", Handler("task", "task_cache"),
             "show a task as its shard's owner holds it (debug)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p = leaf(tk, "events", Handler("task", "task_events"),
             "a task's state changes, newest run first")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p.add_argument("-r", "--run", default=None, metavar="MESOS_TASK_ID",
                   help="only this run (<job>-<instance>-<run>)")
    p.add_argument("-l", "--limit", type=count_arg, default=10,
                   help="of the last LIMIT runs (10)")
    p = leaf(tk, "get", Handler("task", "task_get"), "show one task")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p = leaf(tk, "logs", Handler("task", "task_logs"),
             "print a task's stdout (or another sandbox file)")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("instance", type=instance_arg)
    p.add_argument("run_id", nargs="?", default=None, metavar="MESOS_TASK_ID",
                   help="a past run (default: the current one)")
    p.add_argument("--stderr", action="store_true", help="print stderr instead of stdout")
    p.add_argument("-f", "--file", default=None, help="a sandbox file by name")
    p.add_argument("--run", default=None, metavar="MESOS_TASK_ID", help="a past run")
    for verb in ("stop", "start", "restart"):
        p = leaf(tk, verb, Handler("task", "task_action", (verb,)),
                 f"{verb} tasks of a job (default: all)")
        p.add_argument("job", type=job_id_arg)
        p.add_argument("-r", "--range", dest="ranges", action="append", type=parse_range,
                       metavar="FROM:TO", help="instances from <= i < to; repeatable")


def pod_id_arg(text: str) -> Any:
    """A run of a pod, as the v1alpha ``PodID``."""
    from peloton.api.v1alpha.peloton import peloton_pb2 as v1
    return v1.PodID(value=text)


def _pod(commands: Any) -> None:
    pd = group(commands, "pod", "pods (instances) of stateless jobs, through the v1alpha API")
    p = leaf(pd, "get", Handler("stateless", "pod_call", ("GetPod",),
                                (("status_only", "statusonly"), ("limit", "limit"))),
             "a pod's current run and its earlier ones")
    p.add_argument("pod", type=pod_arg, help="<job id>-<instance>")
    p.add_argument("--statusonly", action="store_true", help="leave out the spec")
    p.add_argument("--limit", type=count_arg, default=0, help="earlier runs (0: all)")
    p = leaf(pd, "events", Handler("stateless", "pod_events"),
             "a run's state changes (default: the current run)")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("-p", "--pod-id", help="the run: <pod name>-<run>")
    p = leaf(pd, "logs", Handler("stateless", "pod_logs"),
             "a file of a run's sandbox (default: stdout)")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("-f", "--filename", default="stdout")
    p.add_argument("-p", "--pod-id", help="the run: <pod name>-<run>")
    for name, method in (("start", "StartPod"), ("stop", "StopPod")):
        p = leaf(pd, name, Handler("stateless", "pod_call", (method,)), f"{name} a pod")
        p.add_argument("pod", type=pod_arg)
    p = leaf(pd, "restart", Handler("stateless", "pod_call", ("RestartPod",),
                                    (("check_sla", "check_sla"),)), "restart a pod")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("--check-sla", action="store_true",
                   help="wait while the job is at sla.maximumUnavailableInstances")
    for name, method in (("refresh", "RefreshPod"), ("cache", "GetPodCache")):
        p = leaf(pd, name, Handler("stateless", "pod_call", (method,)), f"{method} (debug)")
        p.add_argument("pod", type=pod_arg)
    p = leaf(pd, "delete-events", Handler("stateless", "pod_call", ("DeletePodEvents",),
                                          (("pod_id", "pod_id"),)),
             "delete a pod's events up to a run")
    p.add_argument("pod", type=pod_arg)
    p.add_argument("pod_id", metavar="pod-id", type=pod_id_arg)


def _update(commands: Any) -> None:
    up = group(commands, "update", "roll service jobs out to a new config")
    p = leaf(up, "create", Handler("update", "update_create"),
             "update a service job to the config in FILE")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("file")
    p.add_argument("batch_size", type=count_arg, metavar="batch-size",
                   help="instances moving at once (0: all)")
    p.add_argument("respool", help="the job's pool (path)")
    p.add_argument("--maxattempts", type=count_arg, default=0,
                   help="runs of the new config that may fail per instance (0: no limit)")
    p.add_argument("--maxfailureInstances", type=count_arg, default=0,
                   help="failed instances that fail the update (0: no limit)")
    p.add_argument("--rollbackOnFailure", action="store_true",
                   help="roll back to the old config if the update fails")
    p.add_argument("--start-paused", action="store_true", help="create it paused")
    p.add_argument("--opaque-data", default="", help="data kept with the update")
    p.add_argument("--in-place", action="store_true",
                   help="keep each instance on its host (not supported yet: refused)")
    p = leaf(up, "get", Handler("update", "update_get"), "show an update")
    p.add_argument("update", metavar="update-id")
    p.add_argument("--status-only", action="store_true", help="leave out its config")
    p.add_argument("-w", "--watch", action="store_true",
                   help="follow it to its end: instances done, unavailable now and allowed")
    p = leaf(up, "list", Handler("update", "update_list"),
             "list a job's updates, newest first")
    p.add_argument("job", type=job_id_arg)
    p.add_argument("-n", "--limit", type=count_arg, default=10, help="at most this many (10)")
    p = leaf(up, "cache", Handler("update", "update_cache"),
             "a running update as its owner holds it (debug)")
    p.add_argument("update", metavar="update-id")
    for verb, method, done in (("pause", "PauseUpdate", "paused"),
                               ("resume", "ResumeUpdate", "resumed"),
                               ("abort", "AbortUpdate", "aborted"),
                               ("rollback", "RollbackUpdate", "rolling back")):
        p = leaf(up, verb, Handler("update", "control", (done, method)), f"{verb} an update")
        p.add_argument("update", metavar="update-id")
        if verb != "rollback":
            p.add_argument("--opaque-data", default="", help="data kept with the update")


def _host(commands: Any) -> None:
    hs = group(commands, "host", "hosts")
    p = leaf(hs, "query", Handler("host", "host_query"),
             "list hosts with what they have and what is in use")
    p.add_argument("-s", "--states", type=enum_list(HOST_PB2, "HostState", "HOST_STATE_"),
                   help="comma-separated host states, e.g. HOST_STATE_UP")
    mt = group(hs, "maintenance", "take hosts out for maintenance and back")
    p = leaf(mt, "start", Handler("host", "maintenance", (
                 "StartMaintenance", "draining for maintenance; DOWN once nothing runs "
                 "there")),
             "drain a host: nothing new goes there, what runs moves off")
    p.add_argument("hostname")
    p = leaf(mt, "complete", Handler("host", "maintenance", ("CompleteMaintenance", "UP")),
             "bring a drained (DOWN) host back")
    p.add_argument("hostname")
    leaf(mt, "query", Handler("host", "maintenance_query"), "list the hosts draining or down")
    pl = group(hs, "pool", "host pools: named sets of hosts (attribute host_pool)")
    leaf(pl, "list", Handler("host", "pool_list"), "every host pool and its hosts")
    p = leaf(pl, "list-hosts", Handler("host", "pool_list"), "the hosts of one pool")
    p.add_argument("name")
    p = leaf(pl, "create", Handler("host", "pool_call", (
                 "CreateHostPool", "Host pool {name} created"), (("name", "name"),)),
             "create an empty host pool")
    p.add_argument("name")
    p = leaf(pl, "delete", Handler("host", "pool_call", (
                 "DeleteHostPool", "Host pool {name} deleted; its hosts are in default"),
                                   (("name", "name"),)),
             "delete a host pool (its hosts go to default)")
    p.add_argument("name")
    p = leaf(pl, "change", Handler("host", "pool_call", (
                 "ChangeHostPool", "Host {hostname} is in pool {dest}"),
                                   (("hostname", "hostname"), ("sourcePool", "source"),
                                    ("destinationPool", "dest"))),
             "move a host to another pool")
    p.add_argument("hostname")
    p.add_argument("dest", metavar="destination")
    p.add_argument("-s", "--source", default="default", help="the host's pool now (default)")
    p = leaf(pl, "move", Handler("host", "pool_call", (
                 "MoveHosts", "Pools {source}: {source_hosts} hosts, {dest}: {dest_hosts}"),
                                 (("sourcePool", "source"), ("srcPoolDesiredHosts", "source_hosts"),
                                  ("destinationPool", "dest"),
                                  ("destPoolDesiredHosts", "dest_hosts"))),
             "move hosts from one pool to another until they hold these numbers")
    p.add_argument("source")
    p.add_argument("source_hosts", type=int, metavar="source-hosts")
    p.add_argument("dest", metavar="destination")
    p.add_argument("dest_hosts", type=int, metavar="destination-hosts")


def _demo(commands: Any) -> None:
    from peloton.cli import demo  # its docstring is its description; it runs anyway
    from peloton.ops.minicluster import READY_TIMEOUT
    p = commands.add_parser("demo", help=NOUN_HELP["demo"], description=demo.__doc__)
    add_globals(p, top=False)
    p.set_defaults(func=Handler("demo", "run"))
    p.add_argument("job_file", nargs="?", default="testjob.yaml",
                   help="a job YAML to run instead of Peloton's examples/testjob.yaml")
    p.add_argument("--dir", default=None, help="the cluster's directory")
    p.add_argument("--ready-timeout", type=positive_float, default=READY_TIMEOUT,
                   metavar="SECONDS", help=argparse.SUPPRESS)


def _minicluster(commands: Any) -> None:
    from peloton.ops.minicluster import READY_TIMEOUT
    mc = group(commands, "minicluster", "a local cluster on this machine")
    dir_help = "the cluster's directory (default $PELOTON_HOME/minicluster or ~/.peloton/minicluster)"
    p = leaf(mc, "up", Handler("minicluster", "minicluster_up"),
             "start the local cluster and wait until it takes jobs")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--hosts", type=int, help="virtual hosts (3)")
    p.add_argument("--cpu", type=float, help="CPUs per host (4)")
    p.add_argument("--memory-mb", type=float, help="memory per host in MiB (8192)")
    p.add_argument("--disk-mb", type=float, help="disk per host in MiB (102400)")
    p.add_argument("--gpu", type=float, help="GPUs per host (0)")
    p.add_argument("--jobmgrs", type=int, help="job managers (2)")
    p.add_argument("--placements", type=int, help="placement workers (2)")
    p.add_argument("--resmgrs", type=int, help="resource managers, one Raft group (3)")
    p.add_argument("--shards", type=int, help="job shards, fixed once created (16)")
    p.add_argument("--isolate-tasks", action="store_true", default=None,
                   help="run each local task as a user of its own, in a sandbox only it "
                        "can read (needs root; its commands must be reachable by any user)")
    p.add_argument("--clusters", type=int,
                   help="clusters of local processes, a hostmgr each: local, local1, ... (1)")
    p.add_argument("--sim-clusters", type=int,
                   help="simulated clusters besides: sim, sim1, ... (0); each has --hosts "
                        "hosts of this shape")
    p.add_argument("--attribute", type=attribute_arg, action="append", metavar="KEY=VALUE",
                   help="an attribute of every host (HOST-kind constraints match it); repeatable")
    p.add_argument("--host-attribute", type=host_attribute_arg, action="append",
                   metavar="HOST:KEY=VALUE",
                   help="an attribute of one host, e.g. local-0:rack=r1; repeatable")
    p.add_argument("--clean", action="store_true",
                   help="delete the directory first: new ports, no pools, no jobs")
    p.add_argument("--ready-timeout", type=positive_float, default=READY_TIMEOUT,
                   metavar="SECONDS", help="how long to wait for the cluster (90)")
    p = leaf(mc, "status", Handler("minicluster", "minicluster_status"),
             "show the daemons, the leader, shards, hosts")
    p.add_argument("--dir", default=None, help=dir_help)
    p = leaf(mc, "down", Handler("minicluster", "minicluster_down"),
             "stop every daemon of the local cluster")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--clean", action="store_true", help="also delete the directory (all data)")
    p = leaf(mc, "kill", Handler("minicluster", "minicluster_kill"),
             "send a signal to one daemon (failure tests)")
    p.add_argument("name", help="e.g. resmgr-0, jobmgr-1, hostmgr-0")
    p.add_argument("--signal", type=signal_number, default=signal.SIGKILL,
                   help="KILL (default), TERM, STOP, CONT, ...")
    p.add_argument("--dir", default=None, help=dir_help)
    p = leaf(mc, "restart", Handler("minicluster", "minicluster_restart"),
             "start one daemon again (stopping it first)")
    p.add_argument("name")
    p.add_argument("--dir", default=None, help=dir_help)
    p.add_argument("--ready-timeout", type=positive_float, default=30.0, metavar="SECONDS")


# The nouns, in the order ``peloton --help`` lists them: name, help, builder.
NOUNS: tuple[tuple[str, str, Callable[[Any], None]], ...] = (
    ("respool", "resource pools", _respool),
    ("resmgr", "the resource manager", _resmgr),
    ("job", "jobs", _job),
    ("task", "tasks of a job", _task),
    ("pod", "pods (instances) of stateless jobs, through the v1alpha API", _pod),
    ("update", "roll service jobs out to a new config", _update),
    ("host", "hosts", _host),
    ("demo", "start the local cluster and run Peloton's example job to the end", _demo),
    ("minicluster", "a local cluster on this machine", _minicluster),
)
NOUN_HELP = {name: help for name, help, _ in NOUNS}


def add_nouns(commands: Any, wanted: Collection[str] | None = None) -> None:
    """Every noun under ``commands``: in full if it is in ``wanted`` (None:
    all), else only its name and help (enough for ``peloton --help`` and
    for refusing an unknown command); within a noun, only the leaves in
    ``wanted`` have their arguments built."""
    wanting(commands, wanted)
    for name, help, build in NOUNS:
        if wanted is None or name in wanted:
            build(commands)
        else:
            listed(commands, name, help)
