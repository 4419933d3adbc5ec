"""``kubectl-karta``: kartalint as a kubectl plugin (``kubectl karta ...``).

kubectl runs any executable named ``kubectl-<name>`` on the PATH as ``kubectl <name>`` (its plugin
convention; ``kubectl plugin list`` shows it). The plugin speaks kubectl's dialect and hands over to
kartalint's commands:

    kubectl karta describe jobset demo -n ml             # kartalint describe --kubectl jobset demo -n ml
    kubectl karta describe --summary -A                  # kartalint describe --summary --kubectl -A
    kubectl karta describe -f job.yaml                   # kartalint describe job.yaml
    kubectl get jobset demo -o yaml | kubectl karta describe -f -
    kubectl karta describe -f job.yaml -o json           # kartalint describe job.yaml -f json
    kubectl karta lint definitions/                      # every other command as is

For ``describe``, ``-f/--filename`` names the object file (repeatable; ``-`` for stdin) and
``-o/--output`` the format (``tree``, ``json``, ``yaml``; ``wide`` is the tree), as in
``kubectl get``; kartalint's own ``--format`` and ``--output FILE`` are accepted too. Without
``-f``, the object comes from the cluster: ``KIND NAME`` or ``KIND/NAME`` in kubectl's word order,
``-n/--namespace``, ``-A/--all-namespaces``, ``--context`` and ``--kubeconfig`` passed through to
the user's kubectl (``kartalint describe --kubectl``, docs/kubectl.md).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from kartalint.cli import EXIT_USAGE
from kartalint.cli import main as kartalint_main

USAGE = """usage: kubectl karta COMMAND [ARGS...]

kartalint as a kubectl plugin: objects from the cluster (through your kubectl), files or stdin.

  kubectl karta describe KIND NAME [-n NS] [--context C] [--kubeconfig K] [-o tree|json|yaml]
  kubectl karta describe --summary [-A | -n NS] [--rows role] [-o table|csv|json|markdown]
  kubectl karta describe -f OBJECT.yaml [-o tree|json|yaml] [--pods PODS.yaml]
  kubectl get jobset demo -o yaml | kubectl karta describe -f -
  kubectl karta lint|test|diff|explore|new|catalog|rules ...   (as `kartalint COMMAND`)

`kubectl karta COMMAND --help` shows a command's options; `kubectl karta --version` the version.
"""

_FORMATS = {"tree": "tree", "wide": "tree", "json": "json", "yaml": "yaml"}
_SUMMARY_FORMATS = {"table": "table", "wide": "table", "csv": "csv", "json": "json", "markdown": "markdown"}


class UsageError(Exception):
    """A kubectl-style argument kartalint cannot take."""


def _value(argv: list[str], i: int, flag: str) -> tuple[str, int]:
    """The value of the option at ``argv[i]`` (``-f X``, ``-fX``, ``--filename=X``) and the next index."""
    arg = argv[i]
    if "=" in arg and arg.startswith("--"):
        return arg.split("=", 1)[1], i + 1
    if not arg.startswith("--") and len(arg) > 2:
        return arg[2:], i + 1
    if i + 1 >= len(argv):
        raise UsageError(f"option {flag} needs a value")
    return argv[i + 1], i + 2


def _is(arg: str, short: str, long: str) -> bool:
    """Whether ``arg`` is the option ``short``/``long`` (``-f X``, ``-fX``, ``--filename X``, ``--filename=X``)."""
    return arg in (short, long) or arg.startswith(long + "=") or (arg.startswith(short) and not arg.startswith("--"))


def translate(argv: Sequence[str]) -> list[str]:
    """kartalint's arguments for a ``kubectl karta`` command line."""
    argv = list(argv)
    if not argv or argv[0] != "describe":
        return argv
    files: list[str] = []
    rest: list[str] = []
    fmt: str | None = None
    formats = _SUMMARY_FORMATS if "--summary" in argv else _FORMATS
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        if _is(arg, "-f", "--filename"):
            value, i = _value(argv, i, "-f/--filename")
            files.append(value)
        elif _is(arg, "-o", "--output"):
            value, i = _value(argv, i, "-o/--output")
            if value not in formats:
                raise UsageError(f"-o/--output must be one of {', '.join(formats)} (got {value!r})")
            fmt = formats[value]
        elif arg in ("-R", "--recursive"):
            raise UsageError("-R/--recursive is not supported: name the files, or pipe `kubectl get ... -o yaml`")
        else:
            rest += ["-n", arg[3:]] if arg.startswith("-n=") and len(arg) > 3 else [arg]  # kubectl's -n=NS
            i += 1
    out = ["describe", *files, *rest] if files else ["describe", "--kubectl", *rest]
    return [*out, "--format", fmt] if fmt else out


def main(argv: Sequence[str] | None = None) -> int:
    """``kubectl karta ARGS`` (the kubectl plugin): kartalint's describe, on live objects when no file is named; its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        (sys.stdout if args else sys.stderr).write(USAGE)
        return 0 if args else EXIT_USAGE
    try:
        translated = translate(args)
    except UsageError as exc:
        sys.stderr.write(f"kubectl karta: error: {exc}\n")
        return EXIT_USAGE

    return kartalint_main(translated, prog="kubectl karta")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
