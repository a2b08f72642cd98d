"""Load tests of a whole Peloton cluster: real daemons, simulated hosts.

``python -m loadtest SCENARIO`` (or ``peloton-loadtest``, ``just loadtest``)
starts a local cluster for a scenario (``loadtest/scenarios/*.yaml``),
drives its workload through the API and reports throughput, latency, cost
and correctness. See ``loadtest/README.md``.
"""
