"""Host backends: what really runs tasks for a hostmgr shard.

``base`` holds the contract (``Backend``, ``LaunchSpec``, ``StatusUpdate``);
``local`` runs real processes on this machine as several virtual hosts.
"""
