"""YAML/JSON <-> protobuf for user-facing configs, with validation that names
the offending path (``defaultconfig.resource.cpulimit``, ``resources[1].kind``).

The names below are imported when first used (PEP 562), so importing one
module of the package (``peloton.spec.yamlproto``) does not import the job
spec's field registry too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from peloton.core import lazy

if TYPE_CHECKING:
    from peloton.spec.job import (
        load_job_config,
        merged_task_config,
        task_name,
        validate_job_config,
    )
    from peloton.spec.respool import (
        apply_respool_defaults,
        load_respool_config,
        validate_respool_config,
    )
    from peloton.spec.yamlproto import load_yaml, message_to_dict, parse_message

__all__ = [
    "apply_respool_defaults",
    "load_job_config",
    "load_respool_config",
    "load_yaml",
    "merged_task_config",
    "message_to_dict",
    "parse_message",
    "task_name",
    "validate_job_config",
    "validate_respool_config",
]

_WHERE = {"load_job_config": "job", "merged_task_config": "job", "task_name": "job",
          "validate_job_config": "job", "apply_respool_defaults": "respool",
          "load_respool_config": "respool", "validate_respool_config": "respool",
          "load_yaml": "yamlproto", "message_to_dict": "yamlproto",
          "parse_message": "yamlproto"}

__getattr__ = lazy.exports(__name__, _WHERE)
