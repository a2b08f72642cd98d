# Peloton-in-Python task runner. `just --list` shows every recipe.

# Start the local cluster (3 resmgr, 2 jobmgr, 2 placement, 1 hostmgr) on loopback.
up *ARGS:
    peloton minicluster up {{ARGS}}

# Stop the local cluster.
down:
    peloton minicluster down

# Run the test suite.
test *ARGS:
    python -m pytest {{ARGS}}

# Lint, type-check, and verify that generated protobuf code is current.
check:
    ruff check peloton tests tools loadtest
    mypy
    python tools/genproto.py --check

# Run a load-test scenario (loadtest/scenarios/NAME.yaml or a path) on real daemons.
loadtest SCENARIO *ARGS:
    python -m loadtest {{SCENARIO}} {{ARGS}}

# Regenerate protobuf and grpclib modules from peloton/api/**/*.proto.
proto:
    python tools/genproto.py

# SIGKILL random daemons under a load of real processes; count lost and repeated runs.
chaos *ARGS:
    python -m loadtest.chaos {{ARGS}}

# How long `peloton --help`, `job get`, `task list` and `job create` take (medians, p90) on a local cluster.
cli-latency *ARGS:
    python -m loadtest.cli_latency {{ARGS}}
