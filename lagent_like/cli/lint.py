"""The lint API under the command line's path; it lives in :mod:`lagent_like.lint`."""

from ..lint import *  # noqa: F403 - the same names, listed once in lagent_like.lint
from ..lint import __all__ as __all__
