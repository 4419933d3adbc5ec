"""``kartalint init``: set a repository up for kartalint.

Writes, never over an existing file: ``.kartalint.yaml`` (where definitions, fixtures and CRDs
live), ``.pre-commit-config.yaml`` (the two hooks, pinned to the installed kartalint's revision),
``.github/workflows/kartalint.yml`` (the Action), and with ``--crd`` a draft definition plus a
fixture skeleton per CRD.

Layouts: ``definitions`` keeps ``definitions/<name>.yaml`` with its fixtures beside it in
``definitions/<name>/``; ``catalog`` keeps ``catalog/<name>.yaml`` and ``fixtures/<name>/``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kartalint.evaluation import Evaluator
from kartalint.load.confinement import why_not_a_file
from kartalint.load.observed import read_observed
from kartalint.scaffold.drafts import ScaffoldError, drafts_from_crd, review_lines
from kartalint.scaffold.observed_checks import case_fixture
from kartalint.scaffold.observed_draft import drafts_from_objects
from kartalint.scaffold.release import ACTION, REPOSITORY, THIRD_PARTY_ACTIONS, pinned_revision
from kartalint.scaffold.skeleton import skeleton_fixture, skeleton_source

LAYOUTS = {"definitions": ("definitions", "definitions"), "catalog": ("catalog", "fixtures")}


class InitError(Exception):
    """Something ``init`` cannot do (exit 2)."""


@dataclass
class Plan:
    """What ``kartalint init`` writes: the files and copies under ``root``, its notes, what the drafts
    found and the skeletons it could not make."""

    root: str
    files: list[tuple] = field(default_factory=list)  # (relative path, text)
    copies: list[tuple] = field(default_factory=list)  # (source, relative path)
    notes: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)  # what the drafts found (as `new --crd` reports it)
    errors: list[str] = field(default_factory=list)  # skeletons the CRD refuses or the draft cannot evaluate

    def exit_code(self) -> int:
        """The exit code of ``kartalint init`` once written: 1 when a skeleton could not be made
        (the CRD refuses it, the draft cannot evaluate it), else 0."""
        return 1 if self.errors else 0


def _config(layout: str, crds: Sequence[str]) -> str:
    definitions, fixtures = LAYOUTS[layout]
    where = (
        "fixtures live beside their definition,\n#   in definitions/<definition name>/"
        if layout == "definitions"
        else "fixtures live in fixtures/<definition name>/"
    )
    lines = [
        "---",
        "# kartalint configuration (docs/configuration.md).",
        f"# Layout '{layout}': {where}.",
        "definitions:",
        f"  - {definitions}",
        "fixtures:",
        f"  - {fixtures}",
    ]
    if crds:
        lines += ["# CRD-aware lint: every path an expression reads is checked against these", "crds:"]
        lines += [f"  - {c}" for c in crds]
    lines += [
        "rules: {}  # rule-id: off | error | warning | info (`kartalint rules`)",
        "# gitignore patterns relative to this folder: files never read (charts/)",
        "exclude: []",
        "",
    ]
    return "\n".join(lines)


def _precommit(repository: str, revision: str, how: str) -> str:
    return "\n".join(
        [
            "---",
            "# pre-commit hooks (https://pre-commit.com): `pre-commit install` once, then",
            "# they run on every commit. kartalint-lint checks the Karta definitions and",
            "# fixtures among the changed YAML files (other YAML is skipped);",
            "# kartalint-test runs every fixture of the project when any YAML file",
            "# changes. Each prints the failures and its summary only.",
            "repos:",
            f"  - repo: {repository}",
            f"    # {how}",
            f"    rev: {revision}",
            "    hooks:",
            "      - id: kartalint-lint",
            "        # (`--`: the staged files follow, even one named -x.yaml)",
            '        args: [--strict, "--"]',
            "      - id: kartalint-test",
            "",
        ]
    )


def _uses(indent: str, item: bool, action: str, revision: str, comment: str) -> list[str]:
    """A step's ``uses:`` line (``- uses:`` with ``item``) pinned to ``revision`` with ``comment``
    (what update bots read on the line itself); one that runs past 80 columns (a full commit)
    is told to yamllint on the line above."""
    line = f"{indent}{'- ' if item else '  '}uses: {action}@{revision}  # {comment}"
    above = f"{indent}{'' if item else '  '}# yamllint disable-line rule:line-length"
    return [above, line] if len(line) > 80 else [line]


def _workflow(action: str, revision: str, how: str) -> str:
    checkout, upload_sarif, upload_artifact = (
        (name, *THIRD_PARTY_ACTIONS[name])
        for name in ("actions/checkout", "github/codeql-action/upload-sarif", "actions/upload-artifact")
    )
    return "\n".join(
        [
            "---",
            "# kartalint on every pull request: lint (annotations, SARIF), fixtures (JUnit,",
            "# annotations at the differing field) and what a definition change does to",
            "# every fixture (job summary). Third-party actions are pinned to a full commit,",
            "# their release in the comment (Dependabot and Renovate update both).",
            "name: kartalint",
            '"on":  # quoted: YAML 1.1 readers (yamllint) read a bare `on` as true',
            "  pull_request:",
            "  push:",
            "    branches: [main]",
            "permissions:",
            "  contents: read",
            "  security-events: write",
            "jobs:",
            "  kartalint:",
            "    runs-on: ubuntu-latest",
            "    timeout-minutes: 15",
            "    steps:",
            *_uses("      ", True, *checkout),
            "        with:",
            "          fetch-depth: 0",
            "      - id: kartalint",
            *_uses("      ", False, action, revision, how),
            "        with:",
            "          diff-base: >-",
            "            ${{ github.event_name == 'pull_request'",
            "            && format('origin/{0}', github.base_ref) || '' }}",
            *_uses("      ", True, *upload_sarif),
            "        if: always() && steps.kartalint.outputs.sarif != ''",
            "        with:",
            "          sarif_file: ${{ steps.kartalint.outputs.sarif }}",
            *_uses("      ", True, *upload_artifact),
            "        if: always() && steps.kartalint.outputs.junit != ''",
            "        with:",
            "          name: kartalint-junit",
            "          path: ${{ steps.kartalint.outputs.junit }}",
            "          if-no-files-found: ignore",
            "",
        ]
    )


def plan(
    root: str,
    layout: str = "definitions",
    crd_paths: Sequence[str] = (),
    repository: str | None = None,
    action: str | None = None,
    revision: str | None = None,
    sources: Sequence[str] = (),
) -> Plan:
    """What ``init`` would write under ``root`` (nothing is written). With ``sources`` (``--from``),
    each draft explains the objects of its kind and their pods, and gets one fixture per state seen."""
    if layout not in LAYOUTS:
        raise InitError(f"unknown layout {layout!r} (choose from {', '.join(LAYOUTS)})")
    how = "given with --rev"
    if revision is None:
        revision, how = pinned_revision()
    root = os.path.abspath(root)
    result = Plan(root)
    definitions_dir, fixtures_dir = LAYOUTS[layout]
    with Evaluator() as evaluator:  # the same skeleton, checks and fixtures as `new --crd`
        crd_refs = _drafts(result, crd_paths, sources, evaluator, definitions_dir, fixtures_dir)
    result.files[:0] = [
        (".kartalint.yaml", _config(layout, crd_refs)),
        (".pre-commit-config.yaml", _precommit(repository or REPOSITORY, revision, how)),
        (os.path.join(".github", "workflows", "kartalint.yml"), _workflow(action or ACTION, revision, how)),
    ]
    result.notes.append(f"hooks and Action pinned to {revision} ({how})")
    return result


def _drafts(
    result: Plan, crd_paths: Sequence[str], sources: Sequence[str], evaluator: Any, definitions: str, fixtures: str
) -> list[str]:
    """Each CRD's drafts and fixtures in ``result`` (one fixture per observed state with
    ``sources``, else the skeleton); the CRDs as the configuration names them (a copy in crds/ for
    one outside the root)."""

    observed = read_observed(sources) if sources else None
    if observed is not None and observed.problems:
        raise InitError("; ".join(observed.problems))
    crd_refs: list[str] = []
    for crd in crd_paths:
        if not os.path.isfile(crd):
            raise InitError(f"--crd {crd}: {why_not_a_file(crd)}")
        try:
            found = drafts_from_crd(crd) if observed is None else drafts_from_objects(crd, observed, evaluator)
        except ScaffoldError as exc:
            raise InitError(str(exc)) from None
        absolute = os.path.abspath(crd)
        if absolute.startswith(result.root + os.sep):
            crd_refs.append(os.path.relpath(absolute, result.root))
        else:  # keep a copy in the repository so that the hooks and CI can read it
            target = os.path.join("crds", os.path.basename(crd))
            result.copies.append((absolute, target))
            crd_refs.append(target)
        for draft in found:
            result.review.extend(review_lines(draft, crd))
            result.files.append((os.path.join(definitions, f"{draft.name}.yaml"), draft.text))
            folder = os.path.join(fixtures, draft.name)
            for case in draft.cases:  # the folder names the definition: no reference needed
                text = case_fixture(case, draft.data, evaluator, None)
                result.files.append((os.path.join(folder, f"{case.slug}.yaml"), text))
            if draft.cases:
                continue
            skeleton = skeleton_fixture(draft, evaluator, source=skeleton_source(crd))
            result.errors.extend(skeleton.errors)
            if skeleton.text is not None:
                result.files.append((os.path.join(folder, "minimal.yaml"), skeleton.text))
    return crd_refs


def write(result: Plan) -> list[str]:
    """Write the plan, all or nothing, and nothing outside the root: refuses (writing nothing) when
    a target exists or a folder on its way is a symbolic link out of the root; every file goes to
    a temporary file in its folder first, then each is linked into place (never over a file that
    appeared meanwhile); on any failure what was written (files, folders made) is removed."""
    targets = [path for path, _ in result.files] + [path for _, path in result.copies]
    existing = [t for t in targets if os.path.lexists(os.path.join(result.root, t))]
    if existing:
        raise InitError(f"refusing to overwrite {', '.join(existing)} (move them away, or edit them by hand)")
    contents: list[tuple[str, bytes]] = []
    for source, target in result.copies:
        try:
            with open(source, "rb") as handle:
                contents.append((target, handle.read()))
        except OSError as exc:
            raise InitError(f"cannot read {source}: {exc.strerror or exc}") from None
    contents += [(path, text.encode("utf-8")) for path, text in result.files]
    made: list[str] = []  # folders made, staged and placed files: undone on failure
    staged: list[tuple[str, str]] = []
    placed: list[str] = []
    target = ""
    try:
        if not os.path.isdir(result.root):
            os.makedirs(result.root)
            made.append(result.root)
        for target, data in contents:
            full = os.path.join(result.root, target)
            _make_folders(result.root, os.path.dirname(target), made)
            staged.append((_stage(full, data), full))
        for temporary, full in staged:
            target = os.path.relpath(full, result.root)
            _place(temporary, full)
            placed.append(full)
    except OSError as exc:
        _undo(staged, placed, made)
        raise InitError(f"cannot write {target}: {exc.strerror or exc}; nothing was written") from None
    except BaseException:
        _undo(staged, placed, made)
        raise
    for temporary, _ in staged:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return targets


def _make_folders(root: str, folder: str, made: list[str]) -> None:
    """Make ``folder`` (relative to ``root``) and the folders on its way, noting each one made;
    a folder on the way that is a symbolic link leading out of ``root`` is refused."""
    real_root = os.path.realpath(root)
    current = root
    for part in [p for p in folder.split(os.sep) if p]:
        current = os.path.join(current, part)
        if os.path.lexists(current):
            real = os.path.realpath(current)
            if real != real_root and not real.startswith(real_root + os.sep):
                raise InitError(
                    f"refusing to write through {os.path.relpath(current, root)}: it leads to {real}, "
                    "outside the repository; nothing was written"
                )
            if not os.path.isdir(current):
                raise NotADirectoryError(errno.ENOTDIR, "a file is in the way of a folder", current)
        else:
            os.mkdir(current)
            made.append(current)


def _stage(full: str, data: bytes) -> str:
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(full)}.", suffix=".tmp", dir=os.path.dirname(full)
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0o022)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return temporary


def _place(temporary: str, full: str) -> None:
    """The staged file at ``full``, never over a file that exists (a link fails then)."""
    try:
        os.link(temporary, full)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK):
            raise
        if os.path.lexists(full):  # a file system without hard links: rename, unless it exists
            raise FileExistsError(errno.EEXIST, "it exists", full) from None
        os.rename(temporary, full)


def _undo(staged: list[tuple[str, str]], placed: list[str], made: list[str]) -> None:
    for path in [*placed, *(temporary for temporary, _ in staged)]:
        with contextlib.suppress(OSError):
            os.unlink(path)
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


def next_steps(result: Plan, layout: str) -> str:
    """What the author does next after ``init`` (the drafts to finish, the commands to run) for the project's ``layout``."""
    definitions_dir, fixtures_dir = LAYOUTS[layout]
    drafted = [
        p
        for p, _ in result.files
        if p.startswith(definitions_dir + os.sep)
        and p.endswith(".yaml")
        and os.sep not in p[len(definitions_dir) + 1 :]
    ]
    lines = ["Next steps:"]
    if drafted:
        lines.append(
            f"  1. Review every TODO in {', '.join(drafted)}, then remove its draft header "
            "(kartalint lint --strict shows what is left)."
        )
    else:
        lines.append(
            f"  1. Write a definition in {definitions_dir}/ (`kartalint new --crd CRD.yaml -o {definitions_dir}/NAME.yaml`)."
        )
    lines += [
        f"  2. Add fixtures in {fixtures_dir}/<definition name>/ from real objects: "
        f"kubectl get KIND NAME -o yaml | kartalint new fixture - --pods pods.yaml -o {fixtures_dir}/<name>/case.yaml",
        "  3. kartalint lint && kartalint test   (findings from before kartalint? record them in a baseline:",
        "     kartalint lint --write-baseline .kartalint-baseline.json, then baseline: in .kartalint.yaml;",
        "     docs/ci.md, Adopting on a repository with legacy findings)",
        "  4. pre-commit install   (then every commit is checked)",
        "  5. Commit .kartalint.yaml, .pre-commit-config.yaml and .github/workflows/kartalint.yml.",
    ]
    return "\n".join(lines) + "\n"
