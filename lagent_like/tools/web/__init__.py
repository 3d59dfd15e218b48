"""The web tools: search engines, arXiv, Bing Maps and the web browser.

They share one HTTP layer (:mod:`lagent_like._net`) and ``_web_api``'s handling of
keys, endpoints and failures.
"""
