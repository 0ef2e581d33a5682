"""JSON Schemas (draft 2020-12) of every file format, shipped as package data."""
