"""The built-in tools."""
