"""The demo challenge's generator, split by concern (the entry point is scripts/make_demo.py).

- :mod:`demo.world`: the made-up vocabulary (genes, drugs, diseases, ...) and the facts drawn from it;
- :mod:`demo.questions`: Task B questions built from those facts;
- :mod:`demo.config`: the challenge's calendar, teams, systems and their TOML files;
- :mod:`demo.text`: JSON, TOML and time-stamp text;
- :mod:`demo.taskb`, :mod:`demo.taska`, :mod:`demo.mcqa`: test sets, gold and runs of each task.
"""

