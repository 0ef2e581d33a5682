"""The leaderboard site: ``build_site(repo, out)`` renders ``site_templates/`` and ``docs/``
with ``results/`` into a static site (``python -m scorer build``); see ``docs/site.md``.

* :mod:`scorer.site.results`: the one reader of ``results/``;
* :mod:`scorer.site.boards`, :mod:`scorer.site.drilldown`: tables of the pages;
* :mod:`scorer.site.tables`: the table view shared by pages, CSV and JSON downloads;
* :mod:`scorer.site.charts`: SVG geometry; :mod:`scorer.site.docs`: Markdown docs;
* :mod:`scorer.site.inputs`: commit, build input date, window status;
* :mod:`scorer.site.build`: the pages; :mod:`scorer.site.archive`: ``results.zip``.
"""
from scorer.site.build import BuildSummary, build_site

__all__ = ["build_site", "BuildSummary"]
