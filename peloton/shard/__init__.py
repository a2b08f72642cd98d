"""The jobmgr shard protocol: which jobmgr acts for which jobs, and when.

1. **Partition** (``partition``): a job belongs to shard
   ``blake2b(job_id) mod S``. S is fixed when the cluster bootstraps: the
   first heartbeat pins the leader's ``num_shards`` in resmgr's Raft state,
   and a jobmgr whose own ``num_shards`` differs refuses to act (the
   assignment passes it over).
2. **Assignment** (``assignment``, applied inside resmgr's state machine):
   every shard has one owner among the live jobmgrs that agree on S, and an
   epoch that grows at each change; a newcomer gets shards moved to it until
   counts differ by at most one. While no shard has a live owner (a new
   cluster, or every jobmgr gone), a heartbeat assigns nothing and the next
   tick (every 0.5 s) does: jobmgrs that start together then share the
   first map at once, where the first to heartbeat would take every shard
   and the others would wait out its lease for theirs (4).
3. **Lease** (``lease``): a jobmgr's heartbeat renews its membership for
   MEMBER_LEASE seconds from when resmgr applied it. The jobmgr counts its
   own lease from the moment it *sent* that heartbeat, so its lease ends no
   later than resmgr's, and it stops acting FENCE_MARGIN before that, by a
   timer, whether or not a heartbeat failed.
4. **Hand-over**: a shard taken from an owner may be acted on by its new
   owner only once the old owner's membership has run out (``act_from``);
   the new owner claims the shard's epoch in storage, and every storage
   write is fenced by the epoch, so a stale owner is refused, not trusted.
5. **Routing** (``routing``): any jobmgr forwards a job's writes to the
   owner of the job's shard, as the latest cluster view names it.

``owner.ShardOwner`` is the trio loop that does 3-4 for one jobmgr; the
rest is pure.
"""
