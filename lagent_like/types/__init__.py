"""The type engine: one table of type families and one JSON Schema validator."""
