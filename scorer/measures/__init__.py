"""Measures: small pure functions over typed records, one module per family.

Nothing here reads files, knows Git or writes HTML.
"""
