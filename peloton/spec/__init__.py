"""YAML/JSON <-> protobuf for user-facing configs, with validation that names
the offending path (``defaultconfig.resource.cpulimit``, ``resources[1].kind``).
"""

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
