"""Internals of ``lagent_like``; nothing here is public API."""
