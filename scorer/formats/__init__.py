"""Readers: JSON files -> typed records, every problem located (file, pointer, line:col)."""
