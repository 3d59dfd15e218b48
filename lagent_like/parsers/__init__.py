"""Reading what models write."""
