"""The leaderboard site: :func:`scorer.site.build.build_site` (``build_site(repo, out)``)
renders ``site_templates/`` and ``docs/`` with ``results/`` into a static site
(``python -m scorer build``); see ``docs/site.md``.

* :mod:`scorer.site.results`: the one reader of ``results/``;
* :mod:`scorer.site.boards`, :mod:`scorer.site.drilldown`: tables of the pages;
* :mod:`scorer.site.tables`: the table view shared by pages, CSV and JSON downloads;
* :mod:`scorer.site.charts`: SVG geometry; :mod:`scorer.site.docs`: Markdown docs;
* :mod:`scorer.site.inputs`: commit, build input date, window status;
* :mod:`scorer.site.build`: the build (inputs, staging, order of the pages);
  :mod:`scorer.site.context`: what every page reads; :mod:`scorer.site.writer`: Jinja2
  and the writing of files; the pages: :mod:`scorer.site.static` (assets, schemas, docs),
  :mod:`scorer.site.board_pages`, :mod:`scorer.site.team_pages`,
  :mod:`scorer.site.run_pages`, :mod:`scorer.site.home`;
  :mod:`scorer.site.archive`: ``results.zip``.

The package itself imports nothing: its modules import one another (``from scorer.site
import labels``), so an ``__init__`` that imported :mod:`scorer.site.build` would close an
import cycle through every page module.
"""
