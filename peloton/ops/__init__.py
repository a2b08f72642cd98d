"""Operating a cluster: the local minicluster (``peloton minicluster``)."""
