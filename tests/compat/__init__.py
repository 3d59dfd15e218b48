"""The Lagent compatibility suite's toolkits and cases, shared with the fixture recorder."""
