"""The runtime: one call of one API, and everything around it."""
