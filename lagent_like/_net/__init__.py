"""HTTP for the web tools and the model clients; nothing here is public API.

``http`` sends requests and sorts every outcome into a result or a failure a model
can read, ``secrets`` keeps API keys out of messages and logs, ``egress`` refuses
connections to private addresses for tools that fetch URLs a model chose.
"""
