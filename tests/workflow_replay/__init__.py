"""A replay of the GitHub workflows (``.github/workflows/*.yml``) as written, offline.

:mod:`.platform` plays GitHub (a repository served over HTTP, its REST API, forks, pull
requests, merges, events, environments), :mod:`.runner` runs a workflow job by job and
step by step, :mod:`.actions` stands in for the ``uses:`` actions, :mod:`.expressions`
evaluates ``${{ }}``, :mod:`.triggers` reads ``on:``, :mod:`.pip_shim` stands in for
``pip install``.  See ``docs/organizers.md``, "Rehearse a season locally".
"""
