"""Objects of a live cluster, through the user's own kubectl (``describe --kubectl``, docs/kubectl.md).

kartalint never talks to the API server itself: it runs ``kubectl get ... -o json`` (the user's
kubectl, so authentication, contexts, exec plugins and proxies stay kubectl's) and reads its
output as it comes (``objects.stream_pipe``: a List entry by entry). The command lines, each with
``--context`` and ``--kubeconfig`` when given:

- one object: ``kubectl get KIND NAME [-n NS] -o json``;
- a kind: ``kubectl get Kind.version.group (-A | -n NS) -o json`` (``Kind`` alone for the core group);
- pods: ``kubectl get pods (-A | -n NS) -o json``, then their owners, a kind at a time, up to six
  levels (``Job.v1.batch``, ``ReplicaSet.v1.apps``, ...): what kli's live mode follows to find a
  workload's pods. Of an owner only its identity and owner references are kept.

A kubectl that is missing is a ``KubectlError`` (one line); what kubectl refuses is a
``ClusterProblem``: ``forbidden``, ``unknown`` (the cluster does not serve the kind: no CRD),
``not-found`` or ``failed``, with kubectl's own words.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from kartalint.errors import UsageError
from kartalint.karta import as_dict, as_list
from kartalint.load.objects import LoadedObject, LoadProblem, stream_pipe

STDERR_KEPT = 64 * 1024
OWNER_LEVELS = 6


class KubectlError(UsageError):
    """kubectl cannot be run, or cannot give the one object asked for (one line, exit 2)."""


@dataclass(frozen=True)
class ClusterProblem:
    """What kubectl refused, in one line: ``kind`` is ``forbidden``, ``unknown``, ``not-found`` or
    ``failed``; ``command`` the kubectl words; ``message`` kubectl's first line."""

    kind: str
    command: str
    message: str

    @property
    def line(self) -> str:
        """The one line that says it."""
        return f"{self.command}: {self.message}"


def classify(command: str, stderr: str) -> ClusterProblem:
    """What kubectl's error output says, as a ``ClusterProblem``."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip() and not line.startswith("Warning:")]
    first = lines[0] if lines else "kubectl failed without a message"
    if "(Forbidden)" in first or " is forbidden: " in first:
        return ClusterProblem("forbidden", command, first)
    if "doesn't have a resource type" in first or "no matches for kind" in first:
        return ClusterProblem("unknown", command, first)
    if "(NotFound)" in first:
        return ClusterProblem("not-found", command, first)
    return ClusterProblem("failed", command, first)


def version_order(version: str) -> tuple[int, int, int, str]:
    """Kubernetes' version priority as a sort key: GA before beta before alpha, higher numbers first
    (v1 > v1beta2 > v1beta1 > v1alpha1), other names last."""
    match = re.fullmatch(r"v(\d+)(?:(beta|alpha)(\d+))?", version)
    if match is None:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[match.group(2)]
    return (stage, -int(match.group(1)), -int(match.group(3) or 0), version)


def resource_of(group: str, version: str, kind: str) -> str:
    """The fully qualified ``kubectl get`` argument of a kind: ``Kind.version.group``."""
    return f"{kind}.{version}.{group}" if group else kind


@dataclass(frozen=True)
class Cluster:
    """How to run the user's kubectl: its path and the options passed through."""

    executable: str
    context: str | None = None
    kubeconfig: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False

    @classmethod
    def find(cls, context: str | None, kubeconfig: str | None, namespace: str | None, all_namespaces: bool) -> Cluster:
        """The cluster of the ``kubectl`` on the PATH; ``KubectlError`` when there is none."""
        executable = shutil.which("kubectl")
        if executable is None:
            raise KubectlError(
                "kubectl is not on the PATH: --kubectl runs your kubectl (install it, e.g. Debian's "
                "kubernetes-client), or give the objects as files (kubectl get ... -o json > dump.json)"
            )
        return cls(executable, context, kubeconfig, namespace, all_namespaces)

    def command(self, words: list[str], scope: bool = True, namespace: str | None = None) -> list[str]:
        """``kubectl get WORDS [--context C] [--kubeconfig K] [-A | -n NS] -o json``."""
        cmd = [self.executable, "get", *words]
        if self.context:
            cmd += ["--context", self.context]
        if self.kubeconfig:
            cmd += ["--kubeconfig", self.kubeconfig]
        namespace = namespace or self.namespace
        if scope and namespace:
            cmd += ["-n", namespace]
        elif scope and self.all_namespaces:
            cmd += ["-A"]
        return [*cmd, "-o", "json"]

    def shown(self, command: list[str]) -> str:
        """A command line as the messages show it (``kubectl get ...``)."""
        return " ".join(["kubectl", *command[1:]])

    def get(self, words: list[str], max_bytes: int) -> dict[str, Any]:
        """The one object ``kubectl get WORDS -o json`` gives; ``KubectlError`` otherwise."""
        command = self.command(words)
        try:
            proc = subprocess.run(command, capture_output=True, timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise KubectlError(f"{self.shown(command)}: {exc}") from None
        if proc.returncode != 0:
            raise KubectlError(classify(self.shown(command), proc.stderr.decode("utf-8", "replace")).line)
        if len(proc.stdout) > max_bytes:
            raise KubectlError(f"{self.shown(command)}: the object is over {max_bytes} bytes (max-file-size)")
        try:
            found = json.loads(proc.stdout)
        except ValueError as exc:
            raise KubectlError(f"{self.shown(command)}: kubectl's output is not JSON: {exc}") from None
        if not isinstance(found, dict) or (found.get("kind") == "List" and len(as_list(found.get("items"))) != 1):
            raise KubectlError(f"{self.shown(command)}: expected one object (describe one at a time, or use --summary)")
        return found if found.get("kind") != "List" else found["items"][0]

    def stream(self, words: list[str], max_bytes: int, problems: list[ClusterProblem], namespace: str | None = None
               ) -> Iterator[LoadedObject | LoadProblem]:  # fmt: skip
        """The objects of ``kubectl get WORDS -o json`` as they come; what kubectl refuses is added
        to ``problems`` (its objects, if any, are still handed out)."""
        command = self.command(words, namespace=namespace)
        try:
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            problems.append(ClusterProblem("failed", self.shown(command), str(exc)))
            return
        assert proc.stdout is not None and proc.stderr is not None
        errors: list[bytes] = []
        drain = threading.Thread(target=_drain, args=(proc.stderr, errors), daemon=True)
        drain.start()
        try:
            yield from stream_pipe(proc.stdout, f"kubectl:{words[0]}", max_bytes)
        finally:
            proc.stdout.close()
            code = proc.wait()
            drain.join()
        if code != 0:
            problems.append(classify(self.shown(command), b"".join(errors).decode("utf-8", "replace")))


def _drain(stream: IO[bytes], kept: list[bytes]) -> None:
    """Read ``stream`` to its end (so kubectl never blocks on it), keeping its first ``STDERR_KEPT`` bytes."""
    size = 0
    for chunk in iter(lambda: stream.read(8192), b""):
        if size < STDERR_KEPT:
            kept.append(chunk[: STDERR_KEPT - size])
            size += len(kept[-1])
    stream.close()


def _slim(obj: dict[str, Any]) -> dict[str, Any]:
    """An owner as the owner chain needs it: its identity and owner references."""
    meta = as_dict(obj.get("metadata"))
    keep = {k: meta[k] for k in ("name", "namespace", "uid", "ownerReferences") if k in meta}
    return {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"), "metadata": keep}


def pods_and_owners(
    cluster: Cluster, max_bytes: int, problems: list[ClusterProblem], namespace: str | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pods of the scope (``namespace``, else the cluster's) and their owners up to
    ``OWNER_LEVELS`` levels (each owner kind listed once, each owner kept slim)."""
    pods: list[dict[str, Any]] = []
    for item in cluster.stream(["pods"], max_bytes, problems, namespace):
        if isinstance(item, LoadedObject):
            pods.append(item.data)
    known = {as_dict(o.get("metadata")).get("uid") for o in pods}
    owners: list[dict[str, Any]] = []
    listed: set[str] = set()
    level = pods
    for _ in range(OWNER_LEVELS):
        wanted: dict[str, None] = {}
        for obj in level:
            for ref in as_list(as_dict(obj.get("metadata")).get("ownerReferences")):
                ref = as_dict(ref)
                api, kind = ref.get("apiVersion"), ref.get("kind")
                if ref.get("uid") not in known and isinstance(api, str) and isinstance(kind, str) and kind:
                    group, _, version = api.rpartition("/")
                    wanted.setdefault(resource_of(group, version, kind), None)
        level = []
        for resource in wanted:
            if resource in listed:
                continue
            listed.add(resource)
            for item in cluster.stream([resource], max_bytes, problems, namespace):
                if isinstance(item, LoadedObject) and as_dict(item.data.get("metadata")).get("uid") not in known:
                    level.append(_slim(item.data))
                    known.add(as_dict(item.data.get("metadata")).get("uid"))
        owners += level
        if not level:
            break
    return pods, owners


def workloads(
    cluster: Cluster,
    covered: dict[tuple[str, str], list[str]],
    max_bytes: int,
    problems: list[ClusterProblem],
    pods: list[dict[str, Any]] | None = None,
) -> Iterator[LoadedObject | LoadProblem]:
    """The objects of every covered (group, kind), each listed once at the most stable of its
    versions that the cluster serves (the API server converts between versions: listing two would
    count every object twice); a kind the cluster serves at none of them is one ``unknown`` problem.
    ``pods``: the pods listed already (core Pods are not asked for again)."""
    for (group, kind), versions in sorted(covered.items()):
        if (group, kind) == ("", "Pod") and pods is not None:
            yield from (LoadedObject(f"kubectl:pods:{i + 1}", pod) for i, pod in enumerate(pods))
            continue
        ordered = sorted(set(versions), key=version_order)
        for i, version in enumerate(ordered):
            before = len(problems)
            yield from cluster.stream([resource_of(group, version, kind)], max_bytes, problems)
            refused = problems[before:]
            if refused and refused[-1].kind == "unknown" and i < len(ordered) - 1:
                del problems[before:]  # not served at this version: the next one
                continue
            break
