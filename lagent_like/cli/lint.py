"""The lint API under the command line's path; it lives in :mod:`lagent_like.lint`."""

from ..lint import (
    LARGE_DESCRIPTION_TOKENS,
    SEVERITIES,
    LintFinding,
    format_findings,
    lint_action,
    lint_actions,
    lint_targets,
)

__all__ = [
    "LARGE_DESCRIPTION_TOKENS",
    "SEVERITIES",
    "LintFinding",
    "format_findings",
    "lint_action",
    "lint_actions",
    "lint_targets",
]
