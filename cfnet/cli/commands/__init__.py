"""One module per `cfnet` sub-command.

Each module defines ``HELP`` (a one-line summary), ``add_arguments(parser)`` and
``run(args) -> int`` (the exit code). Heavy imports belong inside ``run`` so that
``cfnet --help`` and quick commands start fast.
"""
