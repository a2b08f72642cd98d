"""The Python client of a Peloton cluster (what the CLI and the tests use).

::

    async with open_rpc():
        client = PelotonClient(["127.0.0.1:5392"])
        try:
            pool = await client.create_respool("/DefaultResPool", pool_config)
            job_id = await client.create_job("/DefaultResPool", job_config)
            info = await client.wait_for_job(job_id, {"SUCCEEDED"}, timeout=120)
            out = await client.read_task_file(job_id, 0)
        finally:
            client.close()

Every public service is served by every jobmgr (respool and host calls are
forwarded), so the client needs only jobmgr addresses. ``.jobs``,
``.tasks``, ``.respools``, ``.hosts``, ``.updates`` and ``.respool_service``
are :class:`peloton.rpc.ServiceClient` objects for the raw calls. Errors are :class:`peloton.core.errors.PelotonError`
subclasses; :class:`ClusterUnreachable` means no jobmgr answered the first
call within ``connect_deadline`` seconds (nothing listens there, probably).
Must run inside ``peloton.rpc.open_rpc()``.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

import trio

from peloton.api.v0.job import job_grpc, job_pb2
from peloton.api.v0.peloton import peloton_pb2
from peloton.api.v0.respool import respool_grpc, respool_pb2
from peloton.api.v0.task import task_grpc, task_pb2
from peloton.core.errors import (
    AlreadyExists,
    DeadlineExceeded,
    InvalidArgument,
    NotFound,
    PelotonError,
    Unavailable,
)
from peloton.core.ids import CREATE_ATTEMPTS, create_unanswered, new_job_id
from peloton.core.recent import Recent
from peloton.rpc import Channels, ServiceClient, open_rpc
from peloton.shard.partition import SHARD_OWNER_METADATA, shard_of
from peloton.spec.paths import split_respool_path

__all__ = ["TERMINAL_JOB_STATES", "ClusterUnreachable", "PelotonClient", "within_rpc"]

T = TypeVar("T")

TERMINAL_JOB_STATES = frozenset({"SUCCEEDED", "FAILED", "KILLED", "DELETED"})
READ_CHUNK = 1 << 20
# create_job sends the id its pool's path had at most this long ago (a
# lookup per create was two calls of its five); as long as the jobmgr keeps
# the pool it checks a create against (CHECK_CACHE_S). A pool deleted
# since is looked up again.
RESPOOL_ID_MAX_AGE = 1.0


log = logging.getLogger(__name__)

# Sends of one create (same id) before the client gives up: a repeat is
# answered with the job the first one made.


class ClusterUnreachable(Unavailable):
    """No address of the cluster answered at all (as opposed to a server
    that answered UNAVAILABLE). ``addresses`` were tried; ``cause`` is the
    last transport error."""

    def __init__(self, addresses: list[str], cause: PelotonError) -> None:
        super().__init__(f"cannot reach the cluster at {','.join(addresses)}")
        self.addresses = addresses
        self.cause = cause


async def within_rpc(fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``await fn(*args)`` inside ``open_rpc()``.

    An exception of ``fn`` comes out as itself, not wrapped in the
    ExceptionGroup of the nursery that ``open_rpc()`` runs.
    """
    error: Exception | None = None
    result: Any = None
    async with open_rpc():
        try:
            result = await fn(*args)
        except Exception as e:
            error = e
    if error is not None:
        raise error
    return result  # type: ignore[no-any-return]


def _is_transport_error(error: PelotonError) -> bool:
    """Raised by the channel (nothing answered), not sent by a server."""
    if isinstance(error, Unavailable):
        return error.message.startswith("cannot reach ")
    if isinstance(error, DeadlineExceeded):
        return "took longer than" in error.message
    return False


class _Contact:
    """Shared by a client's services: has any server answered yet?"""

    def __init__(self, connect_deadline: float) -> None:
        self.made = False
        self.connect_deadline = connect_deadline


class _Service(ServiceClient):
    """A ServiceClient that gives up quickly while no server has ever answered.

    Until the first answer, UNAVAILABLE is retried for at most
    ``connect_deadline`` seconds and then raised as ClusterUnreachable; after
    it, for the full ``deadline`` as ServiceClient does.
    """

    def __init__(self, addresses: list[str], stub_cls: type, *, channels: Channels,
                 deadline: float, timeout: float, contact: _Contact) -> None:
        super().__init__(addresses, stub_cls, channels=channels, deadline=deadline)
        self.timeout = timeout
        self._contact = contact

    async def call(self, method: str, request: Any, *, timeout: float | None = None,
                   deadline: float | None = None, prefer: str | None = None,
                   metadata: dict[bytes, bytes] | None = None) -> Any:
        timeout = self.timeout if timeout is None else timeout
        deadline = self.deadline if deadline is None else deadline
        start = trio.current_time()
        while True:
            first = not self._contact.made
            left = max(0.0, deadline - (trio.current_time() - start))
            window = min(left, self._contact.connect_deadline) if first else left
            try:
                reply = await super().call(method, request, timeout=timeout, deadline=window,
                                           prefer=prefer, metadata=metadata)
            except PelotonError as error:
                if _is_transport_error(error):
                    if first:
                        raise ClusterUnreachable(list(self.addresses), error) from None
                    raise
                self._contact.made = True
                if first and isinstance(error, Unavailable) \
                        and trio.current_time() - start < deadline:
                    continue  # a server asks to retry: now it gets the whole deadline
                raise
            self._contact.made = True
            return reply


def _state_names(states: Iterable[str | int]) -> set[str]:
    names = set()
    for s in states:
        if isinstance(s, int):
            names.add(job_pb2.JobState.Name(s))
        else:
            names.add(str(s).upper())
    return names


_SHARD_OWNER_KEY = SHARD_OWNER_METADATA.encode()


class ShardOwners:
    """Which jobmgr owns each shard, as the jobmgrs' answers last said
    (``SHARD_OWNER_METADATA``). A hint: one that is stale sends a call to a
    jobmgr that forwards it, as a call sent anywhere is."""

    def __init__(self) -> None:
        self.num_shards = 0
        self._by_shard: dict[int, str] = {}

    def address(self, job_id: str) -> str | None:
        """The address of the owner of ``job_id``'s shard, if known."""
        if not self.num_shards or not job_id:
            return None
        return self._by_shard.get(shard_of(job_id, self.num_shards))

    def learn(self, job_id: str, metadata: dict[bytes, bytes]) -> None:
        """Take the hint of a reply about ``job_id`` (none: nothing)."""
        value = metadata.get(_SHARD_OWNER_KEY)
        if value is None or not job_id:
            return
        count, _, address = value.decode("ascii", "replace").partition(" ")
        if not count.isdigit() or int(count) < 1 or not address:
            return
        if int(count) != self.num_shards:
            self.num_shards = int(count)
            self._by_shard.clear()
        self._by_shard[shard_of(job_id, self.num_shards)] = address


class _Lazy:
    """A client's service whose stub module is imported when the service is
    first used; it is then the client's own attribute."""

    def __init__(self, module: str, stub: str) -> None:
        self.module, self.stub = module, stub
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, client: PelotonClient | None, owner: type | None = None) -> _Service:
        if client is None:
            return self  # type: ignore[return-value]  # the class's own attribute
        service = client._service(getattr(importlib.import_module(self.module), self.stub))
        client.__dict__[self.name] = service
        return service


class PelotonClient:
    """Calls to the cluster whose jobmgrs listen at ``addresses``.

    ``timeout`` bounds one attempt of one call; ``deadline`` bounds the
    retries of UNAVAILABLE; ``connect_deadline`` bounds them while no server
    has answered yet. Call :meth:`close` (inside ``open_rpc()``) when done.
    """

    def __init__(self, addresses: list[str], *, timeout: float = 20.0,
                 deadline: float | None = None, connect_deadline: float = 3.0,
                 channels: Channels | None = None) -> None:
        if not addresses:
            raise ValueError("no cluster addresses")
        self.addresses = list(addresses)
        self.channels = channels or Channels()
        self._owns_channels = channels is None
        contact = _Contact(min(connect_deadline, timeout))

        def service(stub: type) -> _Service:
            return _Service(self.addresses, stub, channels=self.channels,
                            deadline=timeout if deadline is None else deadline,
                            timeout=timeout, contact=contact)

        self._service = service
        self.jobs = service(job_grpc.JobManagerStub)
        self.tasks = service(task_grpc.TaskManagerStub)
        self.respools = service(respool_grpc.ResourceManagerStub)
        self._respool_ids: Recent[str, str] = Recent(self.lookup_respool, RESPOOL_ID_MAX_AGE)
        self._owners = ShardOwners()

    # The other services are made when first used: importing their stubs
    # (the v1alpha ones bring most of the v1alpha messages) was ~25 ms of
    # every `peloton` command that goes over gRPC.
    hosts = _Lazy("peloton.api.v0.host.svc.host_svc_grpc", "HostServiceStub")
    updates = _Lazy("peloton.api.v0.update.svc.update_svc_grpc", "UpdateServiceStub")
    respool_service = _Lazy("peloton.api.v0.respool.svc.respool_svc_grpc",
                            "ResourcePoolServiceStub")
    volumes = _Lazy("peloton.api.v0.volume.svc.volume_svc_grpc", "VolumeServiceStub")
    # v1alpha: stateless jobs and their pods, volumes, hosts.
    stateless = _Lazy("peloton.api.v1alpha.job.stateless.svc.stateless_svc_grpc",
                      "JobServiceStub")
    pods = _Lazy("peloton.api.v1alpha.pod.svc.pod_svc_grpc", "PodServiceStub")
    volumes_v1alpha = _Lazy("peloton.api.v1alpha.volume.svc.volume_svc_grpc",
                            "VolumeServiceStub")
    hosts_v1alpha = _Lazy("peloton.api.v1alpha.host.svc.host_svc_grpc", "HostServiceStub")

    def close(self) -> None:
        if self._owns_channels:
            self.channels.close()

    # -- resource pools ------------------------------------------------------
    async def lookup_respool(self, path: str) -> str:
        """The id of the pool at ``path`` (``/`` is the root); NotFound if none."""
        split_respool_path(path)
        reply = await self.respools.call("LookupResourcePoolID", respool_pb2.LookupRequest(
            path=respool_pb2.ResourcePoolPath(value=path)))
        if not reply.id.value:
            raise NotFound(f"resource pool {path} does not exist")
        return str(reply.id.value)

    async def create_respool(self, path: str, config: respool_pb2.ResourcePoolConfig) -> str:
        """Create the pool at ``path`` under its parent path; returns its id.

        The config's name must be the last element of ``path`` (taken from it
        when empty); its ``parent`` is set from the path. ``config`` is not
        modified.
        """
        parts = split_respool_path(path)
        if not parts:
            raise InvalidArgument("cannot create the root resource pool '/'", field="path")
        if config.name and config.name != parts[-1]:
            raise InvalidArgument(f"name {config.name!r} does not match the last element "
                                  f"{parts[-1]!r} of path {path!r}", field="name")
        parent_path = "/" + "/".join(parts[:-1])
        try:
            parent = await self.lookup_respool(parent_path)
        except NotFound:
            raise NotFound(f"the parent pool {parent_path} of {path} does not exist") from None
        request = respool_pb2.CreateRequest(config=config)
        request.config.name = parts[-1]
        request.config.parent.value = parent
        reply = await self.respools.call("CreateResourcePool", request)
        self._respool_ids.forget(path)
        return str(reply.result.value)

    async def get_respool(self, path: str) -> respool_pb2.GetResponse:
        pool_id = await self.lookup_respool(path)
        return await self.respools.call("GetResourcePool", respool_pb2.GetRequest(
            id=peloton_pb2.ResourcePoolID(value=pool_id)))

    async def update_respool(self, path: str, config: respool_pb2.ResourcePoolConfig, *,
                             force: bool = False) -> None:
        pool_id = await self.lookup_respool(path)
        await self.respools.call("UpdateResourcePool", respool_pb2.UpdateRequest(
            id=peloton_pb2.ResourcePoolID(value=pool_id), config=config, Force=force))

    async def delete_respool(self, path: str) -> None:
        split_respool_path(path)
        self._respool_ids.forget(path)
        await self.respools.call("DeleteResourcePool", respool_pb2.DeleteRequest(
            path=respool_pb2.ResourcePoolPath(value=path)))

    async def query_respools(self) -> list[respool_pb2.ResourcePoolInfo]:
        reply = await self.respools.call("Query", respool_pb2.QueryRequest())
        return list(reply.resourcePools)

    # -- jobs ------------------------------------------------------------------
    async def create_job(self, respool_path: str, config: job_pb2.JobConfig, *,
                         job_id: str | None = None) -> str:
        """Create a job in the pool at ``respool_path``; returns its id.

        The id is chosen here (a UUID) unless given, and a create whose answer
        does not come in time (a large job, a busy shard) is sent again with
        the same id, up to CREATE_ATTEMPTS times: the server answers a repeat
        of a create it made with the job it made, so a retry never makes a
        second job. If no attempt is answered, DeadlineExceeded names the id
        (the job may exist; the same create with ``--id`` is safe to repeat).
        The pool's id is the one its path had at most RESPOOL_ID_MAX_AGE
        seconds ago (a pool deleted since is looked up again).
        """
        pool_id = await self._respool_ids.get(respool_path)
        looked_again = False
        chosen = job_id or new_job_id()
        request = job_pb2.CreateRequest(id=peloton_pb2.JobID(value=chosen), config=config)
        request.config.respoolID.value = pool_id
        attempt = 0
        while True:
            attempt += 1
            try:
                reply = await self.send_create(request)
            except NotFound:
                if looked_again:
                    raise
                # The pool we knew at that path may be gone: the path's pool
                # now, if it has one (else the lookup's NotFound names it).
                looked_again = True
                self._respool_ids.forget(respool_path)
                fresh = await self._respool_ids.get(respool_path)
                if fresh == pool_id:
                    raise
                pool_id = request.config.respoolID.value = fresh
                continue
            except AlreadyExists:
                if job_id is not None:
                    raise
                return chosen  # our id, fresh: an earlier send of ours went through
            except (DeadlineExceeded, Unavailable) as error:
                if isinstance(error, ClusterUnreachable) or not _is_transport_error(error):
                    raise
                if attempt == CREATE_ATTEMPTS:
                    raise DeadlineExceeded(create_unanswered(chosen, error)) from None
                log.info("create of job %s: %s; sending it again", chosen, error)
                continue
            return str(reply.jobId.value or chosen)

    async def send_create(self, request: job_pb2.CreateRequest | bytes,
                          job_id: str = "") -> job_pb2.CreateResponse:
        """One ``JobManager.Create`` (``request.id`` set), sent to the jobmgr
        that owns the job's shard when an earlier answer said which
        (``ShardOwners``), else as any call: the one it reaches forwards it.
        ``request`` may be the request's bytes, ``job_id`` its id."""
        if not isinstance(request, bytes):
            job_id = request.id.value
        elif not job_id:
            raise ValueError("a serialized CreateRequest is sent with its job_id")
        metadata: dict[bytes, bytes] = {}
        try:
            return await self.jobs.call("Create", request, metadata=metadata,  # type: ignore[no-any-return]
                                        prefer=self._owners.address(job_id))
        finally:
            self._owners.learn(job_id, metadata)

    async def get_job(self, job_id: str) -> job_pb2.JobInfo:
        reply = await self.jobs.call("Get", job_pb2.GetRequest(id=peloton_pb2.JobID(value=job_id)))
        return reply.jobInfo

    async def wait_for_job(self, job_id: str, states: Iterable[str | int], *,
                           timeout: float, poll: float = 0.5) -> job_pb2.JobInfo:
        """Poll until the job's state is one of ``states`` (names or numbers).

        Raises DeadlineExceeded after ``timeout`` seconds, naming the last state.
        """
        wanted = _state_names(states)
        last = "UNKNOWN"
        with trio.move_on_after(timeout):
            while True:
                info = await self.get_job(job_id)
                last = job_pb2.JobState.Name(info.runtime.state)
                if last in wanted:
                    return info
                await trio.sleep(poll)
        raise DeadlineExceeded(f"job {job_id} is still {last} after {timeout:g}s "
                               f"(waiting for {', '.join(sorted(wanted))})")

    # -- tasks -------------------------------------------------------------------
    async def read_task_file(self, job_id: str, instance: int, path: str = "stdout",
                             run: str = "") -> bytes:
        """The whole of a sandbox file of ``instance``'s run ``run`` (the
        current run when empty), read in chunks."""
        chunks: list[bytes] = []
        offset = 0
        while True:
            reply = await self.tasks.call("ReadSandboxFile", task_pb2.ReadSandboxFileRequest(
                jobId=peloton_pb2.JobID(value=job_id), instanceId=instance, taskId=run,
                path=path, offset=offset, length=READ_CHUNK))
            if reply.data:
                chunks.append(reply.data)
                offset += len(reply.data)
            if not reply.data or offset >= reply.size:
                return b"".join(chunks)
