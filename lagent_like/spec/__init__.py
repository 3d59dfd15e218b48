"""Describing: from a function's source to its frozen ApiSpec."""
