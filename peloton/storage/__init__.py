"""Storage gateway: the rows jobmgr persists, fenced by shard epoch.

``gateway`` holds the interface (:class:`Storage`) and the row types;
``sqlite`` the default backend (:func:`open_sqlite`). ``tests/storage/conformance.py``
is the contract every backend passes.
"""

from peloton.storage.gateway import (
    ACTIVE_EXCLUDED_JOB_STATES,
    JobRow,
    ShardRow,
    Storage,
    TaskEventRow,
    TaskRow,
    UpdateRow,
)
from peloton.storage.sqlite import SCHEMA_VERSION, SQLiteStorage, open_sqlite

__all__ = [
    "ACTIVE_EXCLUDED_JOB_STATES",
    "SCHEMA_VERSION",
    "JobRow",
    "SQLiteStorage",
    "ShardRow",
    "Storage",
    "TaskEventRow",
    "TaskRow",
    "UpdateRow",
    "open_sqlite",
]
