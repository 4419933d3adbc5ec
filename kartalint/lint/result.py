"""What a lint run found (``LintResult``), for the reporters and the exit code."""

from __future__ import annotations

from kartalint.model import Finding, Record, Rule, Severity


class LintResult(Record):
    """What a lint run found: files checked, findings, missing paths, skipped files and documents."""

    __slots__ = (
        "baselined",
        "checked",
        "excluded",
        "findings",
        "fixture_documents",
        "house_rules",
        "karta_documents",
        "missing",
        "skipped_documents",
        "skipped_file_documents",
        "skipped_files",
        "skipped_paths",
        "stale",
        "suppressed",
        "templates",
        "wrote_baseline",
    )
    checked: list[str]
    findings: list[Finding]
    missing: list[str]
    karta_documents: int
    fixture_documents: int
    skipped_documents: int  # documents of another kind, in every input
    skipped_file_documents: int  # those of them in the files without Karta (skipped_files)
    skipped_files: list[str]  # neither Karta nor fixture (not with --strict-files)
    skipped_paths: list[str]  # FIFOs, devices, unreadable folders met in a walk
    templates: list[str]  # Go/Helm templates skipped (a yaml-template note each)
    excluded: list[str]  # files named on the command line that `exclude` selects
    suppressed: int
    baselined: int | None  # findings the baseline absorbed (None: no baseline given)
    stale: int  # entries of the baseline no finding of the checked files matches any more
    wrote_baseline: str | None  # the baseline file written (--write-baseline)
    house_rules: list[Rule]  # the configuration's house rules (SARIF's descriptors)

    def __init__(
        self,
        checked: list[str] | None = None,
        findings: list[Finding] | None = None,
        missing: list[str] | None = None,
        karta_documents: int = 0,
        fixture_documents: int = 0,
        skipped_documents: int = 0,
        skipped_files: list[str] | None = None,
        skipped_paths: list[str] | None = None,
        templates: list[str] | None = None,
        excluded: list[str] | None = None,
        suppressed: int = 0,
        baselined: int | None = None,
        stale: int = 0,
        wrote_baseline: str | None = None,
        house_rules: list[Rule] | None = None,
    ) -> None:
        """A result of nothing found yet (or of what is given)."""
        self.checked = [] if checked is None else checked
        self.findings = [] if findings is None else findings
        self.missing = [] if missing is None else missing
        self.karta_documents = karta_documents
        self.fixture_documents = fixture_documents
        self.skipped_documents = skipped_documents
        self.skipped_file_documents = 0
        self.skipped_files = [] if skipped_files is None else skipped_files
        self.skipped_paths = [] if skipped_paths is None else skipped_paths
        self.templates = [] if templates is None else templates
        self.excluded = [] if excluded is None else excluded
        self.suppressed = suppressed
        self.baselined = baselined
        self.stale = stale
        self.wrote_baseline = wrote_baseline
        self.house_rules = [] if house_rules is None else house_rules

    @property
    def nothing_checked(self) -> bool:
        """No Karta definition and no fixture was found in the paths given."""
        return self.karta_documents == 0 and self.fixture_documents == 0

    def count(self, severity: Severity) -> int:
        """How many findings have ``severity``."""
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def counts(self) -> dict[str, int]:
        """The number of findings per severity name."""
        return {
            "error": self.count(Severity.ERROR),
            "warning": self.count(Severity.WARNING),
            "info": self.count(Severity.INFO),
        }

    def exit_code(self, strict: bool = False, allow_empty: bool = False) -> int:
        """The exit code of ``kartalint lint``: 2 for a missing path; after ``--write-baseline`` 0;
        1 for an error (or a warning when ``strict``); 2 when nothing was checked (0 with
        ``allow_empty``: a hook that passes every YAML file), else 0."""
        if self.missing:
            return 2
        if self.wrote_baseline is not None:
            return 0
        if self.count(Severity.ERROR) or (strict and self.count(Severity.WARNING)):
            return 1
        if self.nothing_checked:
            return 0 if allow_empty else 2
        return 0

    def summary(self) -> str:
        """The run in one line: what was checked and skipped, what was found, suppressed and absorbed
        by the baseline."""
        counts = self.counts
        others = self.skipped_documents - self.skipped_file_documents  # (a file without Karta is said once)
        skipped = f", {others} other document(s) skipped" if others else ""
        if self.skipped_files:
            skipped += f", {len(self.skipped_files)} file(s) without Karta skipped"
        if self.templates:
            skipped += f", {len(self.templates)} template(s) skipped"
        if self.excluded:
            skipped += f", {given_words(self.excluded)} given excluded by the configuration"
        suppressed = f", {self.suppressed} suppressed" if self.suppressed else ""
        if self.baselined is not None:
            suppressed += f", {self.baselined} in the baseline"
        if self.stale:
            suppressed += f", {self.stale_note()}"
        fixtures = f", {self.fixture_documents} fixture(s)" if self.fixture_documents else ""
        return (
            f"{len(self.checked)} file(s), {self.karta_documents} Karta definition(s){fixtures}{skipped}: "
            f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info{suppressed}"
        )

    @property
    def baseline_counts(self) -> dict[str, int] | None:
        """``{"absorbed", "stale"}``: the findings the baseline held (left out of the report and
        the exit code) and its stale entries; None when no baseline was applied."""
        return None if self.baselined is None else {"absorbed": self.baselined, "stale": self.stale}

    def stale_note(self) -> str:
        """The stale baseline entries in words (every format says them)."""
        entries = "entry" if self.stale == 1 else "entries"
        return f"{self.stale} stale baseline {entries} (fixed since: rewrite it with --write-baseline)"

    def problems(self, strict: bool = False, allow_empty: bool = False) -> list[str]:
        """What went wrong besides the findings: nothing checked (unless ``allow_empty``, or when
        the findings already say why: a file that failed to load)."""
        silent = self.missing or allow_empty or self.wrote_baseline is not None or self.exit_code(strict) == 1
        if self.nothing_checked and not silent:
            why = f": {given_words(self.excluded)} given are excluded by the configuration" if self.excluded else ""
            return [f"no Karta definition or fixture found in the given paths (nothing was checked{why})"]
        return []


def given_words(paths: list[str]) -> str:
    """How many files and folders (``folder/``) ``paths`` hold, in words: ``2 file(s)``,
    ``1 folder(s)``, ``1 file(s) and 1 folder(s)``."""
    folders = sum(1 for path in paths if path.endswith("/"))
    words = [f"{len(paths) - folders} file(s)"] if len(paths) > folders else []
    return " and ".join([*words, f"{folders} folder(s)"] if folders else words)
