"""Stage 3: lint. Between the rules (``kartalint.rules``: what each check reports on one document)
and evaluation: which files are linted and how.

* ``pipeline``: ``lint_source``, the one lint of a loaded file under a configuration (checks with
  the configuration's CRDs, severities, ``per-file-ignores``, suppression comments, the files
  skipped), called by ``kartalint lint``, the language server, ``explore``, ``diff`` and ``test``;
  ``crd_index``, the configured CRDs' index, built once per process;
* ``paths``: ``lint_paths`` (discovery, each file once, worker processes);
* ``result``: ``LintResult``, what a run found; ``baseline``: ``--baseline``, ``--write-baseline``;
"""

from kartalint.lint.paths import lint_paths
from kartalint.lint.pipeline import FileOutcome, lint_file, lint_source
from kartalint.lint.result import LintResult

__all__ = ["FileOutcome", "LintResult", "lint_file", "lint_paths", "lint_source"]
