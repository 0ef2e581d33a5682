"""The pull-request pipeline: everything between a participant's pull request and the
published leaderboard.

``policy``   the submission rules (paths, ownership, windows, quotas, sizes) as pure decisions
``check``    ``ci check``: judge a pull request's changes in a Git checkout, write its report
``github``   ``ci report``: judge every open pull request of a commit through the REST API,
             comment and set the commit status (PyGithub)
``gitrepo``  the one Git adapter (hardened environment) and the repository Protocol that
             the API-backed repository implements too
``publish``  ``ci publish``: record arrival times, ``score-all``, commit and push ``results/``
"""
