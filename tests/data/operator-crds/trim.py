"""Trim an operator's CRD for tests/data/operator-crds (see README.md there).

    python3 tests/data/operator-crds/trim.py ORIGINAL.yaml > tests/data/operator-crds/NAME.yaml

Every ``description`` is dropped; a PodSpec (an object schema with ``containers``) keeps only its
containers, init containers and the fields the operator adds to it, and becomes free-form
(``x-kubernetes-preserve-unknown-fields``); a Container keeps its name, image, command, args and
resources; the large Kubernetes core types found elsewhere (volumes, affinity, tolerations, probes,
lifecycle, security contexts, environment) become free-form. What kartalint reads of a CRD (the
operator's own fields, types, defaults, enums, list keys, CEL rules and the place of pod
templates) is kept.
"""

from __future__ import annotations

import sys
from typing import Any

import yaml

# corev1.PodSpec's fields (Kubernetes 1.33): what a pod spec schema drops, beside its containers
POD_SPEC_FIELDS = {
    "activeDeadlineSeconds",
    "affinity",
    "automountServiceAccountToken",
    "containers",
    "dnsConfig",
    "dnsPolicy",
    "enableServiceLinks",
    "ephemeralContainers",
    "hostAliases",
    "hostIPC",
    "hostNetwork",
    "hostPID",
    "hostUsers",
    "hostname",
    "hostnameOverride",
    "imagePullSecrets",
    "initContainers",
    "nodeName",
    "nodeSelector",
    "os",
    "overhead",
    "preemptionPolicy",
    "priority",
    "priorityClassName",
    "readinessGates",
    "resourceClaims",
    "resources",
    "restartPolicy",
    "runtimeClassName",
    "schedulerName",
    "schedulingGates",
    "securityContext",
    "serviceAccount",
    "serviceAccountName",
    "setHostnameAsFQDN",
    "shareProcessNamespace",
    "subdomain",
    "terminationGracePeriodSeconds",
    "tolerations",
    "topologySpreadConstraints",
    "volumes",
}
CONTAINER_KEPT = {"name", "image", "command", "args", "resources", "restartPolicy"}
CONTAINER_FIELDS = {
    "args",
    "command",
    "env",
    "envFrom",
    "image",
    "imagePullPolicy",
    "lifecycle",
    "livenessProbe",
    "name",
    "ports",
    "readinessProbe",
    "resizePolicy",
    "resources",
    "restartPolicy",
    "restartPolicyRules",
    "securityContext",
    "startupProbe",
    "stdin",
    "stdinOnce",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "tty",
    "volumeDevices",
    "volumeMounts",
    "workingDir",
}
# core types made free-form wherever they appear (by field name)
FREE_FIELDS = {
    "volumes",
    "volumeMounts",
    "volumeClaimTemplates",
    "ephemeral",
    "affinity",
    "tolerations",
    "lifecycle",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "securityContext",
    "podSecurityContext",
    "env",
    "envFrom",
    "dnsConfig",
    "topologySpreadConstraints",
    "persistentVolumeClaims",
}
FREE_CONTAINER = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def _is_container(node: dict[str, Any], props: dict[str, Any]) -> bool:
    return set(props) <= CONTAINER_FIELDS and "name" in (node.get("required") or []) and "image" in props


def _free(node: dict[str, Any]) -> dict[str, Any]:
    if node.get("type") == "array":
        return {"type": "array", "items": FREE_CONTAINER}
    return {"type": node.get("type", "object"), "x-kubernetes-preserve-unknown-fields": True}


def trim(node: Any) -> Any:
    """A schema node trimmed (``description`` keywords dropped, core types free-form)."""
    if isinstance(node, list):
        return [trim(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: trim(value) for key, value in node.items() if key not in ("description", "properties")}
    props = node.get("properties")
    if isinstance(props, dict):  # field names (a field may be called "description")
        out["properties"] = {
            key: _free(value) if key in FREE_FIELDS and isinstance(value, dict) else trim(value)
            for key, value in props.items()
        }
    if isinstance(props, dict) and "containers" in props and node.get("type") == "object":
        kept = {key: out["properties"][key] for key in props if key not in POD_SPEC_FIELDS}
        for key in ("containers", "initContainers"):
            if key in props:
                kept[key] = {"type": "array", "items": FREE_CONTAINER}
        out["properties"] = kept
        out["x-kubernetes-preserve-unknown-fields"] = True
        if isinstance(node.get("required"), list):
            out["required"] = [key for key in node["required"] if key in kept]
    elif isinstance(props, dict) and _is_container(node, props):
        out["properties"] = {key: out["properties"][key] for key in props if key in CONTAINER_KEPT}
        out["x-kubernetes-preserve-unknown-fields"] = True
        if isinstance(node.get("required"), list):
            out["required"] = [key for key in node["required"] if key in out["properties"]]
    return out


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        documents = [doc for doc in yaml.safe_load_all(handle) if doc]
    sys.stdout.write(yaml.safe_dump_all([trim(doc) for doc in documents], sort_keys=False, width=120))


if __name__ == "__main__":
    main()
