"""Objects valid for a CRD version, as hypothesis strategies, shaped for one definition.

The CRD's ``openAPIV3Schema`` says which fields exist, which are required, which have defaults,
which values are allowed and which lists are keyed. Generation follows it, with choices that keep
objects small and pointed at what the definition reads (docs/explore.md lists them):

* required fields are always there; a field with a schema ``default`` is there with the default
  or another value, or (on a path the definition reads) left out, as in a manifest;
* an optional field without a default is generated, or left out, only on the paths the
  definition's jq expressions read (``kartalint.jqlang.paths``); elsewhere it is left out;
* the labels and annotations the definition reads, and the keys it reads in a map, are drawn
  present or absent; free strings take values that parse as what their field holds (``values``);
* CEL rules (``x-kubernetes-validations``) that ``cel`` translates, and the project's
  ``explore.assume`` (``assume``), filter the values drawn;
* pod templates are small realistic pods (one or two containers, GPU/CPU/memory limits), not
  the full ``PodTemplateSpec`` schema; free-form subtrees are empty objects;
* strings, lists and what one object requires are capped (``TooLarge`` beyond), and drawing reads
  the clock (``OutOfTime``).

``status`` follows the CRD's status schema; conditions carry the types the definition matches
on (and the CRD's enum), a phase field the definition reads takes the values it matches on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from kartalint import karta
from kartalint.explore import values
from kartalint.explore.assume import merged, validator
from kartalint.explore.cel import predicate
from kartalint.explore.values import NAMES
from kartalint.jqlang import parse_cached, paths
from kartalint.load.crds import CrdVersion

MAX_DEPTH = 14
FIXED_METADATA = {"name": "explore", "namespace": "default", "uid": "00000000-explore"}
LABEL_VALUES = ("a", "worker", "true")  # what labels the definition reads hold, besides what it compares
ANNOTATION_VALUES = ("true", "2026-01-01T00:00:00Z", "1")  # flags, timestamps, counts
# Size limits: what a CRD asks for beyond them is not generated (an optional field is left out; a
# required one makes the CRD version unexplorable: ``TooLarge``), so one object stays small.
MAX_STRING = 253  # characters: the longest name Kubernetes takes (a DNS subdomain)
MAX_ITEMS = 16  # entries of a list
MAX_REQUIRED_SIZE = 64 * 1024  # estimated JSON characters of what the CRD requires in one object


class TooLarge(Exception):
    """The CRD requires more than explore generates (a huge ``minLength``, ``minItems``...)."""

    def __init__(self, path: tuple[str, ...], message: str) -> None:
        """The CRD's schema at ``path`` is too large to draw from: ``message`` says how."""
        super().__init__(f"{'.'.join(path)}: {message}")
        self.path = path


class OutOfTime(KeyboardInterrupt):
    """The time budget is spent (checked as objects are drawn and evaluated). An interruption, as
    far as hypothesis knows: it stops at once and records nothing of the half-drawn object (any
    other exception raised while drawing is taken for a failure, replayed and shrunk, and a clock
    read while drawing makes that replay inconsistent). ``explore`` catches it."""


@dataclass
class Focus:
    """What the definition reads: the paths of its workload expressions, and the condition
    types and phases it matches on."""

    reads: set[tuple[str, ...]] = field(default_factory=set)
    whole: set[tuple[str, ...]] = field(default_factory=set)  # subtrees read as a whole (a template)
    condition_types: list[str] = field(default_factory=list)
    phases: list[str] = field(default_factory=list)
    phase_path: tuple[str, ...] | None = None
    constants: dict[tuple[str, ...], list[str]] = field(default_factory=dict)  # `P == "s"`: strings P is compared with

    def relevant(self, path: tuple[str, ...]) -> bool:
        """A field on (or under, or above) a path the definition reads."""
        for read in self.reads:
            if _prefix(path, read) or _prefix(read, path):
                return True
        return any(_prefix(whole, path) for whole in self.whole)


def _norm(path: Iterable[str]) -> tuple[str, ...]:
    return tuple("[]" if part.startswith("[") else part for part in path)


def _prefix(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    return len(short) <= len(long) and long[: len(short)] == short


def focus_of(definition: Any) -> Focus:
    """What ``definition`` reads: the paths of its workload expressions, the subtrees read whole, and the condition
    types and phases its status mappings match."""
    focus = Focus()
    for jq_field in karta.jq_fields(definition):
        if jq_field.target != "workload":
            continue
        tree, error = parse_cached(jq_field.expression)
        if error is not None or tree is None:
            continue
        facts = paths.path_facts(tree)
        for path, constant, _, _ in facts.comparisons:
            listed = focus.constants.setdefault(_norm(path), [])
            if constant not in listed:
                listed.append(constant)
        for read in facts.reads:
            focus.reads.add(_norm(read.path))
            # a template is read whole; after a construct (to_entries, keys, ...) the reads cannot
            # be followed, so everything under what was read may matter
            if jq_field.kind in ("podTemplateSpecPath", "podSpecPath") or facts.not_followed:
                focus.whole.add(_norm(read.path))
    root = karta.components(definition)[0].data if karta.components(definition) else {}
    status = karta.as_dict(karta.as_dict(root).get("statusDefinition"))
    for matchers in karta.as_dict(status.get("statusMappings")).values():
        for matcher in karta.as_list(matchers):
            matcher = karta.as_dict(matcher)
            for entry in karta.as_list(matcher.get("byConditions")):
                kind = karta.as_dict(entry).get("type")
                if isinstance(kind, str) and kind not in focus.condition_types:
                    focus.condition_types.append(kind)
            phase = matcher.get("byPhase")
            if isinstance(phase, str) and phase not in focus.phases:
                focus.phases.append(phase)
    phase_expression = karta.as_dict(status.get("phaseDefinition")).get("path")
    if isinstance(phase_expression, str):
        tree, error = parse_cached(phase_expression)
        out = paths.output_path(tree) if error is None and tree is not None else None
        focus.phase_path = _norm(out) if out else None
    return focus


def _is_pod_template(node: dict[str, Any]) -> bool:
    props = _mapping(node.get("properties"))
    spec = _mapping(props.get("spec"))
    spec_props = _mapping(spec.get("properties"))
    return "containers" in spec_props or "containers" in props


def pod_spec() -> st.SearchStrategy[dict[str, Any]]:
    """A strategy of small pod specs: one or two containers, with GPU, CPU and memory limits or none."""
    quantity = st.sampled_from(["100m", "500m", "1", "2"])
    memory = st.sampled_from(["256Mi", "1Gi", "4Gi"])
    limits = st.fixed_dictionaries(
        {}, optional={"nvidia.com/gpu": st.integers(0, 4), "cpu": quantity, "memory": memory}
    )
    container = st.fixed_dictionaries(
        {"name": st.sampled_from(["main", "sidecar"]), "image": st.just("registry.example.com/app:1")},
        optional={"resources": st.fixed_dictionaries({"limits": limits})},
    )
    return st.fixed_dictionaries(
        {"containers": st.lists(container, min_size=1, max_size=2, unique_by=lambda c: str(c["name"]))}
    )


def pod_template() -> st.SearchStrategy[dict[str, Any]]:
    """A strategy of pod templates: a pod spec, with labels or without."""
    labels = st.dictionaries(st.sampled_from(["app", "role"]), st.sampled_from(NAMES), max_size=2)
    return st.fixed_dictionaries({"spec": pod_spec()}, optional={"metadata": st.fixed_dictionaries({"labels": labels})})


class Generator:
    """The strategies of objects of a CRD version, shaped by what a definition reads (``Focus``), bounded in size
    and in time."""

    def __init__(
        self,
        version: CrdVersion,
        focus: Focus,
        deadline: float | None = None,
        assume: dict[tuple[str, ...], dict[str, Any]] | None = None,
    ) -> None:
        """Draw objects of ``version`` for a definition that reads ``focus``, until ``deadline``
        (``time.monotonic()``), with the project's ``assume`` (path -> JSON Schema) narrowing fields."""
        self.version = version
        self.focus = focus
        self.assume = assume or {}  # the project's explore.assume: path -> JSON Schema
        self.deadline = deadline  # time.monotonic() after which drawing stops (OutOfTime)
        self.allowed: dict[tuple[str, ...], list[str]] = {}  # strings CEL rules allow (`self.x in [...]`)

    def _clock(self, value: Any) -> Any:
        """Drawing counts toward the time budget: a composite value is checked as it is drawn."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise OutOfTime
        return value

    def object(self) -> st.SearchStrategy[dict[str, Any]]:
        """Objects of the CRD version; ``TooLarge`` when what it requires exceeds the limits."""
        schema = self.version.schema
        props = _mapping(schema.get("properties"))
        head = {
            "apiVersion": st.just(f"{self.version.group}/{self.version.version}".lstrip("/")),
            "kind": st.just(self.version.kind),
            "metadata": self.metadata(),
        }
        optional = {}
        for key in ("spec", "status"):
            if not isinstance(props.get(key), dict):
                continue
            if key == "spec" or key in (schema.get("required") or []):  # a workload always has a spec
                head[key] = self.node(props[key], (key,), 1)
                if required_size(props[key]) > MAX_REQUIRED_SIZE:  # each field fits, not all together
                    what = f"requires more than the {MAX_REQUIRED_SIZE} characters explore generates in one object"
                    raise TooLarge((key,), f"{what} (minLength, minItems of required fields)")
            elif required_size(props[key]) <= MAX_REQUIRED_SIZE:
                drawn = self.optional(props[key], (key,), 1)
                if drawn is not None:
                    optional[key] = drawn
        return st.fixed_dictionaries(head, optional=optional)

    def metadata(self) -> st.SearchStrategy[dict[str, Any]]:
        """A fixed name, namespace and uid; the labels and annotations the definition reads, each
        present or absent (the strings it compares them with, or realistic values); a generation
        when it reads one."""
        fixed: dict[str, Any] = {key: st.just(value) for key, value in FIXED_METADATA.items()}
        optional: dict[str, Any] = {}
        for kind, keys in self._meta_keys().items():
            fixed[kind] = st.fixed_dictionaries(
                {}, optional={k: st.sampled_from(self._meta_values(kind, k)) for k in keys}
            )
        if any(r[:2] == ("metadata", "generation") for r in self.focus.reads):
            optional["generation"] = st.integers(1, 3)
        return st.fixed_dictionaries(fixed, optional=optional)

    def full_metadata(self) -> dict[str, Any]:
        """The metadata with every label and annotation the definition reads, at its first value."""
        out: dict[str, Any] = dict(FIXED_METADATA)
        for kind, keys in self._meta_keys().items():
            out[kind] = {key: self._meta_values(kind, key)[0] for key in keys}
        return out

    def _meta_keys(self) -> dict[str, list[str]]:
        """Per ``labels``/``annotations``: the keys the definition reads (a generic one when it
        reads the whole map)."""
        out = {}
        for kind in ("labels", "annotations"):
            keys = sorted(
                {r[2] for r in self.focus.reads if len(r) > 2 and r[:2] == ("metadata", kind) and r[2] != "[]"}
            )
            if not keys and any(r[:2] == ("metadata", kind) for r in self.focus.reads | self.focus.whole):
                keys = ["app.kubernetes.io/name"]
            if keys:
                out[kind] = keys
        return out

    def _meta_values(self, kind: str, key: str) -> list[str]:
        compared = [c for c in self.focus.constants.get(("metadata", kind, key), []) if c]
        realistic = ANNOTATION_VALUES if kind == "annotations" else LABEL_VALUES
        return compared + [v for v in realistic if v not in compared]

    def node(self, node: dict[str, Any], path: tuple[str, ...], depth: int) -> st.SearchStrategy[Any]:
        """Values for a schema node that its CEL rules accept (those ``cel`` can translate)."""
        rules = [r.get("rule") for r in node.get("x-kubernetes-validations") or [] if isinstance(r, dict)]
        for rule in rules:  # fields a rule asks about are worth generating, present or absent
            for name in re.findall(r"has\(self\.(\w+)", str(rule)):
                self.focus.reads.add((*path, name))
            for name, listed in re.findall(r"self(?:\.(\w+))? in \[([^\]]*)\]", str(rule)):
                allowed = [a or b for a, b in re.findall(r"'([^']*)'|\"([^\"]*)\"", listed)]
                if allowed:  # values a rule allows: drawn from, so the rule rarely refuses
                    self.allowed[(*path, name) if name else path] = allowed
        assumed = self.assume.get(path)
        if assumed is not None:
            node = merged(node, assumed)
        strategy = self._node(node, path, depth)
        tests = [test for test in (predicate(rule) for rule in rules) if test is not None]
        if assumed is not None:
            tests.append(validator(assumed))
        if tests:
            strategy = strategy.filter(lambda value: all(test(value) for test in tests))
        if node.get("type") in ("object", "array") or "properties" in node:
            strategy = strategy.map(self._clock)
        return strategy

    def optional(self, node: dict[str, Any], path: tuple[str, ...], depth: int) -> st.SearchStrategy[Any] | None:
        """A field that may be left out: None (left out) when the CRD asks for more than the limits."""
        if required_size(node) > MAX_REQUIRED_SIZE:
            return None
        try:
            return self.node(node, path, depth)
        except TooLarge:
            return None

    def _node(self, node: dict[str, Any], path: tuple[str, ...], depth: int) -> st.SearchStrategy[Any]:
        if path in self.allowed and node.get("type") == "string":
            return st.sampled_from(self.allowed[path])
        if "enum" in node and isinstance(node["enum"], list) and node["enum"]:
            return st.sampled_from(node["enum"])
        if path == self.focus.phase_path and self.focus.phases:
            return st.sampled_from([*self.focus.phases, "Unknown"])
        if node.get("x-kubernetes-int-or-string"):
            texts = values.int_or_string(_name(path), node)
            return st.one_of(st.integers(0, 4), st.sampled_from(texts)) if texts else st.integers(0, 4)
        kind = node.get("type")
        if kind == "object" or "properties" in node:
            return self._object(node, path, depth)
        if kind == "array":
            return self._array(node, path, depth)
        if kind == "string":
            return self._string(node, path)
        if kind == "integer":
            low = node.get("minimum", 0)
            high = node.get("maximum", max(low, 0) + 4)
            return st.integers(int(low), int(high))
        if kind == "number":
            return st.sampled_from([0, 0.5, 1, 2])
        if kind == "boolean":
            return st.booleans()
        return st.just({}) if node.get("x-kubernetes-preserve-unknown-fields") else st.none()

    def _object(self, node: dict[str, Any], path: tuple[str, ...], depth: int) -> st.SearchStrategy[Any]:
        if _is_pod_template(node):
            return pod_template() if "spec" in (node.get("properties") or {}) else pod_spec()
        props = _mapping(node.get("properties"))
        if not props:
            extra = node.get("additionalProperties")
            if isinstance(extra, dict) and self.focus.relevant(path) and depth < MAX_DEPTH:
                return self._map(extra, path, depth)
            return st.just({})
        if self._conditions(node, path):
            return self._condition_entry()
        required = set(node.get("required") or [])
        fixed, optional = {}, {}
        for key, child in props.items():
            if not isinstance(child, dict):
                continue
            sub = (*path, key)
            if key in required or "default" in child:
                if depth >= MAX_DEPTH:
                    fixed[key] = st.just(child["default"]) if "default" in child else st.just(None)
                    continue
                if "default" not in child:
                    fixed[key] = self.node(child, sub, depth + 1)
                    continue
                drawn = self.optional(child, sub, depth + 1)
                strategy = st.just(child["default"]) if drawn is None else st.one_of(st.just(child["default"]), drawn)
                if key not in required and self.focus.relevant(sub):
                    # defaults applied (an object read from the cluster) or omitted (a manifest)
                    optional[key] = strategy
                else:
                    fixed[key] = strategy
            elif depth < MAX_DEPTH and self.focus.relevant(sub):
                drawn = self.optional(child, sub, depth + 1)
                if drawn is not None:
                    optional[key] = drawn
        return st.fixed_dictionaries(fixed, optional=optional)

    def _map(self, extra: dict[str, Any], path: tuple[str, ...], depth: int) -> st.SearchStrategy[Any]:
        """A map (``additionalProperties``): the keys the definition reads, each present or absent
        with values fit for that key (``sparkConf["spark.executor.instances"]``: a count), and a
        couple of other keys."""
        named: dict[str, st.SearchStrategy[Any]] = {}
        for read in sorted(self.focus.reads):
            key = read[len(path)] if len(read) > len(path) and read[: len(path)] == path else "[]"
            if key != "[]" and key not in named:
                drawn = self.optional(extra, (*path, key), depth + 1)
                if drawn is not None:
                    named[key] = drawn
        others = self.optional(extra, (*path, "[]"), depth + 1)
        listed = st.dictionaries(st.sampled_from(NAMES), others, max_size=2) if others is not None else st.just({})
        if not named:
            return listed
        return st.tuples(listed, st.fixed_dictionaries({}, optional=named)).map(lambda pair: {**pair[0], **pair[1]})

    def _array(self, node: dict[str, Any], path: tuple[str, ...], depth: int) -> st.SearchStrategy[Any]:
        items = _mapping(node.get("items"))
        low = int(node.get("minItems", 0))
        if low > MAX_ITEMS:
            raise TooLarge(path, f"minItems {low} is above the {MAX_ITEMS} entries explore generates")
        high = max(low, min(int(node.get("maxItems", 3)), 3))
        if depth >= MAX_DEPTH or (low == 0 and not self.focus.relevant(path)):
            return st.just([]) if low == 0 else st.lists(st.just({}), min_size=low, max_size=low)
        element = self.node(items, (*path, "[]"), depth + 1)
        keys = node.get("x-kubernetes-list-map-keys")
        conditions = self._conditions(items, (*path, "[]"))
        if conditions:
            keys = ["type"]
        if isinstance(keys, list) and keys:
            listed = st.lists(
                element,
                min_size=low,
                max_size=high,
                unique_by=lambda item: tuple(repr(item.get(k)) if isinstance(item, dict) else "" for k in keys),
            )
            if conditions:  # an operator sets at most one of the conditions a definition tells apart
                matched = set(self.focus.condition_types)
                return listed.filter(
                    lambda items: sum(1 for c in items if c.get("type") in matched and c.get("status") == "True") <= 1
                )
            return listed
        return st.lists(element, min_size=low, max_size=high)

    def _string(self, node: dict[str, Any], path: tuple[str, ...]) -> st.SearchStrategy[Any]:
        shortest = int(node.get("minLength", 0))
        if shortest > MAX_STRING:
            raise TooLarge(path, f"minLength {shortest} is above the {MAX_STRING} characters explore generates")
        candidates = values.strings(_name(path), node, self.focus.constants.get(path, []))
        return st.sampled_from(candidates or ["a" * max(1, shortest)])

    def _conditions(self, node: dict[str, Any], path: tuple[str, ...]) -> bool:
        props = _mapping(node.get("properties"))
        return path[:1] == ("status",) and "type" in props and "status" in props

    def _condition_entry(self) -> st.SearchStrategy[dict[str, Any]]:
        types = [*self.focus.condition_types, "Ready"]
        return st.fixed_dictionaries(
            {"type": st.sampled_from(types), "status": st.sampled_from(["True", "False", "Unknown"])},
            optional={"reason": st.sampled_from(["Explored"])},
        )


def required_size(node: Any, depth: int = 0) -> int:
    """About how many JSON characters what a schema node requires takes (stops counting above
    ``MAX_REQUIRED_SIZE``): ``minLength``, ``minItems`` and required fields, nested."""
    if not isinstance(node, dict) or depth > MAX_DEPTH:
        return 1
    kind = node.get("type")
    if kind == "string":
        total = 2 + _number(node.get("minLength"))
    elif kind == "array":
        count = _number(node.get("minItems"))
        total = 2 + (count * (1 + required_size(node.get("items"), depth + 1)) if count else 0)
    else:
        props = _mapping(node.get("properties"))
        total = 2
        for key in node.get("required") or []:
            if isinstance(key, str) and total <= MAX_REQUIRED_SIZE:
                total += len(key) + 4 + required_size(props.get(key), depth + 1)
    return min(total, MAX_REQUIRED_SIZE + 1)


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _name(path: tuple[str, ...]) -> str:
    """The name a value goes by: its field or map key (a list's entries go by the list's name)."""
    named = [part for part in path if part != "[]"]
    return named[-1] if named else ""


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
