"""A small local HTTP server that answers the Kubernetes API endpoints kubectl reads for `kubectl get`,
from objects given to it (the recorded objects of the tests): no API server can run on these
machines, and the tests run the real kubectl against this one.

What it answers, as the API server does (k8s.io/apiserver, k8s.io/apimachinery's discovery types):

- discovery: ``/api`` (APIVersions), ``/apis`` (APIGroupList; kubectl asks for the aggregated
  form first and falls back to this one when the answer is a plain APIGroupList), ``/api/v1`` and
  ``/apis/GROUP/VERSION`` (APIResourceList: the resources of the objects given, plus ``pods``),
  ``/version``;
- list: ``GET .../RESOURCE`` (all namespaces) and ``.../namespaces/NS/RESOURCE``: a ``KindList``
  whose items carry their apiVersion and kind;
- get: ``.../namespaces/NS/RESOURCE/NAME`` (and cluster-scoped ``.../RESOURCE/NAME``);
- errors as ``Status`` objects: 404 ``NotFound``, and 403 ``Forbidden`` for every resource in
  ``forbidden`` (the message the API server's RBAC authorizer writes).

``requests`` records each path asked for, so a test can say which calls kubectl made. The server
runs in a process of its own (``KubeServer`` starts it): kartalint forks its jq worker, which is
not safe in a process that runs threads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

PLURALS = {"Pod": "pods"}


def plural(kind: str) -> str:
    """The resource name of a kind (lowercase, plural), as CRDs and the built-in types name them."""
    if kind in PLURALS:
        return PLURALS[kind]
    lower = kind.lower()
    return lower + ("es" if lower.endswith(("s", "x", "ch", "sh")) else "s")


def _status(code: int, reason: str, message: str, details: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "details": details, "code": code}  # fmt: skip


class Answers:
    """What the server answers for ``objects``; ``forbidden``: resources (plural.group, e.g.
    ``jobsets.jobset.x-k8s.io``) whose list and get are refused with 403."""

    def __init__(self, objects: Iterable[dict[str, Any]], forbidden: Iterable[str] = ()) -> None:
        self.objects = list(objects)
        self.forbidden = set(forbidden)
        self.resources: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}  # (group, version) -> plural -> resource
        for obj in self.objects:
            group, _, version = obj["apiVersion"].rpartition("/")
            self._resource(group, version, obj["kind"])
        self._resource("", "v1", "Pod")

    def _resource(self, group: str, version: str, kind: str) -> None:
        name = plural(kind)
        self.resources.setdefault((group, version), {})[name] = {
            "name": name, "singularName": kind.lower(), "namespaced": True, "kind": kind,
            "verbs": ["get", "list", "watch"],
        }  # fmt: skip

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        parts = [p for p in path.split("/") if p]
        if parts == ["version"]:
            return 200, {"major": "1", "minor": "32", "gitVersion": "v1.32.0", "platform": "linux/amd64"}
        if parts == ["api"]:
            return 200, {"kind": "APIVersions", "versions": ["v1"],
                         "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}  # fmt: skip
        if parts == ["apis"]:
            return 200, self._groups()
        if parts[:1] == ["api"] and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[:1] == ["apis"] and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return 404, _status(404, "NotFound", "the server could not find the requested resource", {})
        if (group, version) not in self.resources:
            return 404, _status(404, "NotFound", "the server could not find the requested resource", {})
        if not rest:
            resources = list(self.resources[(group, version)].values())
            return 200, {"kind": "APIResourceList", "apiVersion": "v1",
                         "groupVersion": f"{group}/{version}" if group else version, "resources": resources}  # fmt: skip
        namespace = None
        if (group, rest[0]) == ("", "namespaces") and len(rest) == 2:  # kubectl asks after a NotFound
            if any(o.get("metadata", {}).get("namespace") == rest[1] for o in self.objects):
                return 200, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": rest[1]}}
            return 404, _status(
                404, "NotFound", f'namespaces "{rest[1]}" not found', {"name": rest[1], "kind": "namespaces"}
            )
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        resource = self.resources[(group, version)].get(rest[0])
        if resource is None:
            return 404, _status(404, "NotFound", "the server could not find the requested resource", {})
        qualified = f"{rest[0]}.{group}" if group else rest[0]
        if qualified in self.forbidden:
            verb = "get" if len(rest) > 1 else "list"
            where = f' in the namespace "{namespace}"' if namespace else " at the cluster scope"
            message = (f'{qualified} is forbidden: User "dev" cannot {verb} resource "{rest[0]}" '
                       f'in API group "{group}"{where}')  # fmt: skip
            return 403, _status(403, "Forbidden", message, {"group": group, "kind": rest[0]})
        api_version = f"{group}/{version}" if group else version
        items = [
            o for o in self.objects
            if o["apiVersion"] == api_version and o["kind"] == resource["kind"]
            and (namespace is None or o.get("metadata", {}).get("namespace") == namespace)
        ]  # fmt: skip
        if len(rest) > 1:
            found = [o for o in items if o.get("metadata", {}).get("name") == rest[1]]
            if not found:
                message = f'{qualified} "{rest[1]}" not found'
                return 404, _status(404, "NotFound", message, {"name": rest[1], "group": group, "kind": rest[0]})
            return 200, found[0]
        return 200, {"apiVersion": api_version, "kind": f"{resource['kind']}List",
                     "metadata": {"resourceVersion": "1"}, "items": items}  # fmt: skip

    def _groups(self) -> dict[str, Any]:
        groups: dict[str, list[str]] = {}
        for group, version in sorted(self.resources):
            if group:
                groups.setdefault(group, []).append(version)
        return {
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": [
                {
                    "name": group,
                    "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in versions],
                    "preferredVersion": {"groupVersion": f"{group}/{versions[-1]}", "version": versions[-1]},
                }
                for group, versions in groups.items()
            ],
        }


def serve(answers: Answers, log: str) -> None:
    """Serve ``answers`` on 127.0.0.1 (a free port, printed on stdout) until killed, each path asked
    for appended to ``log``."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(path + "\n")
            code, body = answers.answer(path)
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


class KubeServer:
    """The server, in a process of its own, answering ``objects`` until ``close()``."""

    def __init__(self, objects: Iterable[dict[str, Any]], forbidden: Iterable[str] = ()) -> None:
        self.objects = list(objects)
        self.folder = tempfile.mkdtemp(prefix="kube-server-")
        self.log = os.path.join(self.folder, "requests.log")
        with open(os.path.join(self.folder, "objects.json"), "w", encoding="utf-8") as handle:
            json.dump({"objects": self.objects, "forbidden": sorted(forbidden)}, handle)
        open(self.log, "w").close()
        self.process = subprocess.Popen([sys.executable, __file__, self.folder], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[str]:
        """Every path asked for so far, in order."""
        with open(self.log, encoding="utf-8") as handle:
            return handle.read().splitlines()

    def forget(self) -> None:
        """Start the record of requests anew."""
        open(self.log, "w").close()

    def kubeconfig(self, context: str = "test") -> str:
        """A kubeconfig (YAML is a superset of JSON) whose ``context`` talks to this server."""
        return json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": context,
            "clusters": [{"name": "local", "cluster": {"server": self.url}}],
            "users": [{"name": "dev", "user": {"token": "not-a-secret"}}],
            "contexts": [{"name": context, "context": {"cluster": "local", "user": "dev", "namespace": "default"}}],
        })  # fmt: skip

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> KubeServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


if __name__ == "__main__":
    with open(os.path.join(sys.argv[1], "objects.json"), encoding="utf-8") as given:
        spec = json.load(given)
    serve(Answers(spec["objects"], spec["forbidden"]), os.path.join(sys.argv[1], "requests.log"))
