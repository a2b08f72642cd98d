"""The ``peloton`` command line (``peloton.cli.main``)."""
