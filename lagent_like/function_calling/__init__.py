"""Native function calling: exports, dialects and tool calls."""
