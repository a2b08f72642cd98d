"""Peloton's VolumeService (v0 and v1alpha), served by jobmgr.

A stateful task (a ``volume: {containerPath, sizeMB}`` in its config) has
one persistent volume, ``<job id>-<instance>-volume``. It is INITIALIZED
until the task's first run is placed; then it is CREATED on that host (the
host backend makes it at launch and links it into each run's sandbox), and
every later run of the task goes to that host. Deleting the job deletes
its volumes; ``DeleteVolume`` deletes one whose task is stopped, and the
task's next start makes a new one wherever it is placed.
"""

from __future__ import annotations

from typing import Any

from peloton.api.v0.job import job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.task import task_pb2
from peloton.api.v0.volume import volume_pb2
from peloton.api.v0.volume.svc import volume_svc_grpc, volume_svc_pb2
from peloton.api.v1alpha.peloton import peloton_pb2 as v1
from peloton.api.v1alpha.volume import volume_pb2 as v1volume
from peloton.api.v1alpha.volume.svc import volume_svc_grpc as v1svc_grpc
from peloton.api.v1alpha.volume.svc import volume_svc_pb2 as v1svc
from peloton.core.errors import FailedPrecondition, InvalidArgument, NotFound
from peloton.core.ids import is_job_id, volume_id
from peloton.core.states import TaskState
from peloton.jobmgr.engine import ShardEngine
from peloton.jobmgr.service import Jobmgr
from peloton.spec.job import merged_task_config

__all__ = ["VolumeService", "VolumeServiceV1Alpha"]

SUFFIX = "-volume"


def _parse(value: str, field: str) -> tuple[str, int]:
    """(job id, instance) of a volume id ``<job id>-<instance>-volume``."""
    job, _, instance = value.removesuffix(SUFFIX).rpartition("-")
    if not value.endswith(SUFFIX) or not is_job_id(job) or not instance.isdigit():
        raise InvalidArgument(f"{value!r} is not a volume id (<job id>-<instance>-volume)",
                              field=field)
    return job, int(instance)


class _Volumes:
    """What both versions answer, from the store."""

    def __init__(self, jm: Jobmgr) -> None:
        self.jm = jm

    async def list(self, job_id: str, field: str) -> list[tuple[int, Any, Any]]:
        """(instance, its volume config, its task runtime) of each stateful
        instance of the job."""
        if not is_job_id(job_id):
            raise InvalidArgument(f"{job_id!r} is not a job id (a UUID)", field=field)
        row = await self.jm.storage.get_job(job_id)
        if row is None:
            raise NotFound(f"job {job_id} does not exist", field=field)
        config = job_pb2.JobConfig.FromString(row.config)
        tasks, _ = await self.jm.storage.list_tasks(job_id)
        out = []
        for t in tasks:
            cfg = merged_task_config(config, t.instance_id)
            if cfg.HasField("volume"):
                out.append((t.instance_id, cfg.volume, task_pb2.RuntimeInfo.FromString(t.runtime)))
        return out

    async def get(self, value: str, field: str) -> tuple[str, int, Any, Any]:
        job_id, instance = _parse(value, field)
        for i, volume, runtime in await self.list(job_id, field):
            if i == instance:
                return job_id, instance, volume, runtime
        raise NotFound(f"instance {instance} of job {job_id} has no persistent volume",
                       field=field)

    async def delete(self, value: str, field: str, stub: type, method: str,
                     request: Any) -> None:
        """Delete the volume of a stopped task (on the owner of its job's shard)."""
        job_id, instance = _parse(value, field)
        await self.get(value, field)

        async def body(engine: ShardEngine) -> None:
            job = engine.jobs.get(job_id)
            task = job.tasks[instance] if job is not None and instance < len(job.tasks) else None
            if task is not None and not (task.terminal and task.goal == TaskState.KILLED):
                raise FailedPrecondition(
                    f"task {job_id}-{instance} is {task.state.name}; stop it before deleting "
                    "its volume", field=field)
            if task is None or not task.volume_host:
                return  # never created, or deleted already
            host, task.volume_host = task.volume_host, ""
            await engine.persist([job], [task], events=False)  # type: ignore[list-item]
            await engine.delete_volumes([(host, volume_id(job_id, instance))])

        async def local(engine: ShardEngine) -> None:
            await engine.submit(body, engine)

        await self.jm.route(job_id, stub, method, request, local)


def _v0(job_id: str, instance: int, volume: Any, runtime: task_pb2.RuntimeInfo
        ) -> volume_pb2.PersistentVolumeInfo:
    created = bool(runtime.desiredHost)
    return volume_pb2.PersistentVolumeInfo(
        id=peloton_pb2.VolumeID(value=volume_id(job_id, instance)),
        jobId=peloton_pb2.JobID(value=job_id), instanceId=instance,
        hostname=runtime.desiredHost,
        state=volume_pb2.CREATED if created else volume_pb2.INITIALIZED,
        goalState=volume_pb2.CREATED, sizeMB=volume.sizeMB,
        containerPath=volume.containerPath)


def _v1(job_id: str, instance: int, volume: Any, runtime: task_pb2.RuntimeInfo
        ) -> v1volume.PersistentVolumeInfo:
    created = bool(runtime.desiredHost)
    return v1volume.PersistentVolumeInfo(
        volume_id=v1.VolumeID(value=volume_id(job_id, instance)),
        pod_name=v1.PodName(value=f"{job_id}-{instance}"), hostname=runtime.desiredHost,
        state=(v1volume.VOLUME_STATE_CREATED if created
               else v1volume.VOLUME_STATE_INITIALIZED),
        desired_state=v1volume.VOLUME_STATE_CREATED, size_mb=volume.sizeMB,
        container_path=volume.containerPath)


class VolumeService:
    """peloton.api.v0.volume.svc.VolumeService"""

    def __init__(self, jm: Jobmgr) -> None:
        self.volumes = _Volumes(jm)

    async def ListVolumes(self, request: volume_svc_pb2.ListVolumesRequest) -> Any:
        job_id = request.jobId.value
        reply = volume_svc_pb2.ListVolumesResponse()
        for i, volume, runtime in await self.volumes.list(job_id, "jobId"):
            reply.volumes[volume_id(job_id, i)].CopyFrom(_v0(job_id, i, volume, runtime))
        return reply

    async def GetVolume(self, request: volume_svc_pb2.GetVolumeRequest) -> Any:
        job_id, i, volume, runtime = await self.volumes.get(request.id.value, "id")
        return volume_svc_pb2.GetVolumeResponse(result=_v0(job_id, i, volume, runtime))

    async def DeleteVolume(self, request: volume_svc_pb2.DeleteVolumeRequest) -> Any:
        await self.volumes.delete(request.id.value, "id", volume_svc_grpc.VolumeServiceStub,
                                  "DeleteVolume", request)
        return volume_svc_pb2.DeleteVolumeResponse()


class VolumeServiceV1Alpha:
    """peloton.api.v1alpha.volume.svc.VolumeService"""

    def __init__(self, jm: Jobmgr) -> None:
        self.volumes = _Volumes(jm)

    async def ListVolumes(self, request: v1svc.ListVolumesRequest) -> Any:
        job_id = request.job_id.value
        reply = v1svc.ListVolumesResponse()
        for i, volume, runtime in await self.volumes.list(job_id, "job_id"):
            reply.volumes[volume_id(job_id, i)].CopyFrom(_v1(job_id, i, volume, runtime))
        return reply

    async def GetVolume(self, request: v1svc.GetVolumeRequest) -> Any:
        job_id, i, volume, runtime = await self.volumes.get(request.volume_id.value,
                                                            "volume_id")
        return v1svc.GetVolumeResponse(result=_v1(job_id, i, volume, runtime))

    async def DeleteVolume(self, request: v1svc.DeleteVolumeRequest) -> Any:
        await self.volumes.delete(request.volume_id.value, "volume_id",
                                  v1svc_grpc.VolumeServiceStub, "DeleteVolume", request)
        return v1svc.DeleteVolumeResponse()
