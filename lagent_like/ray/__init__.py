"""Ray-backed execution."""
