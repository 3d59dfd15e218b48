"""Lint: what a model would stumble on in a tool's description, found before it does.

The checks (``_checks``) read the same descriptions the executors give a model;
``_lint`` runs them on actions, classes and modules and formats the findings. The
command line (``lagent-like lint``) and the inspector show them.
"""

from ._lint import (
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
