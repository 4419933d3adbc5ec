"""The rule registry: every rule kartalint can report, in one place.

A rule is metadata: a stable id, a default severity, a category, a one-line description (the doc
line shown by ``kartalint rules`` and in ``docs/rules.md``) and a default fix hint. Checks report
findings by rule id; the registry is the single source for severities, docs and SARIF metadata.
Categories:

* ``yaml``: reading the file;
* ``schema``: the Karta JSON Schema generated from the CRD (what the API server would reject);
* ``parity``: upstream validator rules (``KartaValidator.Validate``); upstream rejects the
  definition when one of them fires;
* ``jq``: jq expressions (parsing, compiling, Karta's restrictions, portability, safety);
* ``practice``: kartalint's own checks for definitions that upstream accepts but that misbehave;
* ``gang``: readiness for KAI Scheduler's gang scheduling;
* ``crd``: CRD-aware checks, active when the CRD of the root kind is given (``--crd``, ``crds:``);
* ``fixture``: fixture files of ``kartalint test`` (checked by ``kartalint lint`` too);
* ``test``: test-time rules, which need objects and pods: reported by ``kartalint test``;
* ``outcome``: the outcomes of ``kartalint test`` cases (a mismatch, a case that cannot run, a
  refused file, ``--require-fixtures``, ``--min-coverage``), named in SARIF and JUnit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List

from .model import Severity


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    category: str
    summary: str
    hint: str = ""
    security_severity: str = ""  # CVSS-like score for code scanning ("" when the rule is not about security)


@dataclass(frozen=True)
class RuleExample:
    """Why a rule exists, a definition fragment that triggers it and the fixed fragment."""

    why: str
    bad: str
    good: str


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO

_ALL: List[Rule] = [
    # --- reading files ---------------------------------------------------------------------
    Rule("yaml-syntax-error", E, "yaml", "The file is not valid YAML.", "fix the YAML syntax at the position shown"),
    Rule("yaml-duplicate-key", E, "yaml", "A mapping repeats a key; Kubernetes keeps the last one silently.", "remove or merge the duplicate key"),
    Rule("yaml-non-string-key", W, "yaml", "A mapping key is not a string (a number, boolean or null).", "quote the key"),
    Rule("yaml-encoding", E, "yaml", "The file is not UTF-8.", "save the file as UTF-8"),
    Rule("yaml-empty", W, "yaml", "The file contains no YAML document.", "remove the file or add a definition"),
    Rule("yaml-too-large", E, "yaml", "The file is over the size limit and was not read.", "split the file, or raise `max-file-size` in the configuration"),
    Rule("yaml-alias-bomb", E, "yaml", "Anchors and aliases expand the document beyond the node limit (billion laughs), or an alias is recursive.", "remove the anchors and aliases"),
    Rule("yaml-bad-value", E, "yaml", "A scalar cannot become a JSON value: an explicit tag it does not fit (`!!int abc`, `!!bool maybe`, `!!timestamp` that is no date), `!!binary`, `!!set`, `!!omap`, `!!pairs`, NaN or infinity, or an integer of more than 4,300 digits.", "write the value as a plain string or number"),
    Rule("yaml-too-deep", E, "yaml", "The document is nested deeper than 256 levels and was not read.", "flatten the document"),
    Rule("file-unreadable", E, "yaml", "The file cannot be read, or is not a regular file (a FIFO, a device).", "check the path and its permissions"),
    # --- schema -----------------------------------------------------------------------------
    Rule("karta-api-version", E, "schema", "A Karta document must have `apiVersion: run.ai/v1alpha1` and `kind: Karta`.", "set apiVersion: run.ai/v1alpha1 and kind: Karta"),
    Rule("unknown-field", E, "schema", "A field the Karta CRD does not define; upstream drops it silently, so its content is ignored.", "check the spelling against the Karta CRD"),
    Rule("missing-required-field", E, "schema", "A field the Karta CRD requires is missing.", "add the field"),
    Rule("wrong-type", E, "schema", "A field has the wrong type for the Karta CRD.", "use the type the CRD declares"),
    Rule("null-value", W, "schema", "A field is set to null; the API server drops it and Go reads it as empty.", "remove the key or give it a value"),
    Rule("invalid-value", E, "schema", "A value breaks a CRD constraint (enum, pattern, length, minimum items or properties, uniqueness).", "change the value to satisfy the constraint"),
    Rule("duplicate-list-key", E, "schema", "Two entries of a keyed list share their key (the API server rejects the object).", "give each entry a distinct key"),
    # --- upstream validator parity -------------------------------------------------------------
    Rule("duplicate-component-name", E, "parity", "Two components share a name (root included).", "rename one of the components"),
    Rule("empty-component-name", E, "parity", "A component has an empty or missing name.", "give the component a name"),
    Rule("root-incomplete-kind", E, "parity", "The root component needs a full kind: group, version and kind (group may be empty only for Pod).", "set kind.group, kind.version and kind.kind on the root component"),
    Rule("root-has-owner-ref", E, "parity", "The root component must not have an ownerRef (not even an empty one).", "remove ownerRef from the root component"),
    Rule("root-missing-status-definition", E, "parity", "The root component must have a statusDefinition.", "add statusDefinition with statusMappings to the root component"),
    Rule("child-missing-owner-ref", E, "parity", "A child component has no (or an empty) ownerRef.", "set ownerRef to the name of the parent component"),
    Rule("unknown-owner-ref", E, "parity", "A child's ownerRef names a component that does not exist.", "set ownerRef to an existing component name"),
    Rule("multiple-pod-spec-definitions", E, "parity", "More than one of podTemplateSpecPath, podSpecPath and fragmentedPodSpecDefinition is set.", "keep exactly one way of locating the pod spec"),
    Rule("selector-empty-match-labels", E, "parity", "componentTypeSelector.matchLabels is an empty map.", "add labels to matchLabels or remove it"),
    Rule("selector-missing-key", E, "parity", "componentTypeSelector has neither keyPath nor matchLabels.", "set keyPath or matchLabels"),
    Rule("selector-value-without-key-path", E, "parity", "componentTypeSelector.value is set without keyPath.", "add keyPath or remove value"),
    Rule("selector-invalid-match-labels", E, "parity", "componentTypeSelector.matchLabels has a key or value that is not a valid Kubernetes label.", "use label keys like `example.com/name` and values of at most 63 alphanumeric, '-', '_' or '.' characters"),
    Rule("instance-id-without-instance-selector", E, "parity", "instanceIdPath is set but podSelector.componentInstanceSelector is not.", "add podSelector.componentInstanceSelector.idPath"),
    Rule("instance-selector-without-instance-id", E, "parity", "podSelector.componentInstanceSelector is set but instanceIdPath is not.", "add instanceIdPath or remove the instance selector"),
    Rule("ownership-cycle", E, "parity", "ownerRef chains form a cycle.", "make the ownerRefs form a tree rooted at the root component"),
    Rule("unknown-gang-member", E, "parity", "A podGroups member names a component that does not exist.", "name an existing component"),
    Rule("jq-syntax-error", E, "parity", "A jq expression does not parse.", "fix the jq syntax at the position shown"),
    # --- jq ---------------------------------------------------------------------------------
    Rule("jq-compile-error", E, "jq", "A jq expression parses but does not compile (unknown function, wrong arity, undefined variable); upstream only parses, so it fails at run time in every consumer.", "define or correct the function or variable"),
    Rule("jq-forbidden-function", E, "jq", "Karta forbids `del`, and `range`, `paths`, `recurse`, `walk`, `repeat` at any arity.", "rewrite the expression without the forbidden function"),
    Rule("jq-recursive-descent", E, "jq", "Karta forbids the recursive descent operator `..`.", "use explicit paths instead of `..`"),
    Rule("jq-assignment", E, "jq", "Karta forbids assignment and update operators (`=`, `|=`, `+=`, `-=`, `*=`, `/=`, `%=`, `//=`) in read expressions.", "read values without modifying them; write-back paths are plain paths"),
    Rule("jq-not-portable", W, "jq", "A jq builtin or construct that libjq accepts but gojq (what Karta, KAI and Run:ai run) lacks or evaluates differently.", "use a construct that gojq supports (see docs/jq.md)"),
    Rule("jq-unsafe", E, "jq", "A jq construct that reads the environment, files or input, or writes to stderr (`env`, `$ENV`, `input`, `inputs`, `debug`, `stderr`, `input_filename`, `halt`, `halt_error`, `import`, `include`).", "remove the construct; definitions must depend only on the object", security_severity="8.0"),
    Rule("jq-unbounded-recursion", E, "jq", "A recursive jq function without a visible base case never terminates.", "add a base case (an `if ... then ... else ... end` that does not recurse)"),
    Rule("not-assignable-path", W, "jq", "A write-back path (pod template, pod spec, fragmented field, suspend action) is not a plain assignable path.", "use a plain path such as `.spec.template`; move defaults (`//`) out of write-back paths"),
    # --- kartalint's own best practices ---------------------------------------------------------------
    Rule("conditions-without-definition", E, "practice", "A byConditions matcher is used but statusDefinition has no conditionsDefinition, so it never matches.", "add statusDefinition.conditionsDefinition"),
    Rule("phase-without-definition", E, "practice", "A byPhase matcher is used but statusDefinition has no phaseDefinition, so it never matches.", "add statusDefinition.phaseDefinition"),
    Rule("condition-without-expectation", W, "practice", "A byConditions entry sets neither status nor reason, so it only checks that the condition exists.", "add status (e.g. \"True\") or reason"),
    Rule("condition-field-name-missing", W, "practice", "conditionsDefinition omits a field name; the CRD defaults it in a cluster, but file-based tools (kli validate, karta-verify) see an empty name and never match.", "spell out typeFieldName, statusFieldName (and reasonFieldName/messageFieldName when used)"),
    Rule("empty-scale-definition", E, "practice", "scaleDefinition is empty, so replica extraction always fails (0 results for 1 instance).", "set replicasPath (or remove scaleDefinition)"),
    Rule("empty-fragmented-spec", E, "practice", "fragmentedPodSpecDefinition is empty, so pod spec extraction always fails.", "set at least one fragmented path, or remove the block"),
    Rule("metadata-without-pod-spec", W, "practice", "metadataPath is meant to be used with podSpecPath only.", "use metadataPath together with podSpecPath"),
    Rule("duplicate-additional-kind", W, "practice", "additionalChildKinds repeats a group/version/kind.", "remove the duplicate entry"),
    Rule("additional-kind-overlaps-component", W, "practice", "additionalChildKinds repeats a kind already used by a component.", "remove the entry; components' kinds are already known"),
    Rule("child-status-definition", W, "practice", "statusDefinition on a child component is ignored by every consumer.", "move the status definition to the root component"),
    Rule("child-incomplete-kind", W, "practice", "A child component's kind has an empty version or kind.", "fill in kind.version and kind.kind, or remove kind for a logical component"),
    Rule("always-matching-status", W, "practice", "An empty status matcher `{}` always matches, so the status is reported for every object.", "add byPhase, byConditions or byExpression to the matcher"),
    Rule("scale-path-not-null-safe", W, "practice", "A scale path does arithmetic on a field that may be absent, without a `//` default; objects without the field make the whole extraction fail.", "add a default, e.g. `(.template.spec.parallelism // 1)`"),
    Rule("condition-status-never-matches", W, "practice", "A byConditions entry expects a condition status other than `True`, `False` or `Unknown` (compared exactly, so `true` or `'true'` never matches).", "write True, False or Unknown"),
    Rule("expected-result-never-matches", W, "practice", "A byExpression ends in a test (a comparison, `and`/`or`, `not`, `any`, `has`, ...), so its result prints as true or false, but expectedResult is something else: it never matches.", "write expectedResult: \"true\" (or \"false\")"),
    Rule("no-pod-component", W, "practice", "No component has a specDefinition: the definition describes no pods, so GPUs, CPU and memory are never counted and no pod is ever placed.", "add a specDefinition (podTemplateSpecPath or podSpecPath) to the component that creates pods"),
    Rule("draft-placeholder", W, "practice", "A `TODO` placeholder or the draft header of `kartalint new --crd` is still in the definition: a guess nobody confirmed.", "replace the placeholder with the real value (the operator's docs, a real object), then remove the draft header"),
    # --- gang scheduling (KAI Scheduler) ------------------------------------------------------
    Rule("gang-unknown-subgroup-component", E, "gang", "podGroup.subGroups names a component that does not exist (upstream does not check; KAI fails).", "name an existing component"),
    Rule("gang-subgroup-without-scale", E, "gang", "A podGroup sub-group component (and its subtree) has no scaleDefinition; KAI requires a minimum above 0.", "add scaleDefinition.replicasPath to the component"),
    Rule("gang-subgroup-without-selector", W, "gang", "A podGroup sub-group component and its descendants have no componentTypeSelector, so no pod is ever placed in the sub-group.", "add podSelector.componentTypeSelector"),
    Rule("gang-topology-incomplete", E, "gang", "A topology constraint needs a topologyName and at least one of preferredTopologyLevel and requiredTopologyLevel.", "set topologyName and a topology level"),
    # --- CRD-aware (when the CRD of the root kind is known) --------------------------------------
    Rule("path-not-in-crd", E, "crd", "An expression reads a field that the CRD of the root kind does not define (a typo, or another version's field): it always reads null.", "use the field name from the CRD"),
    Rule("crd-optional-arithmetic", W, "crd", "A scale path does arithmetic on a field the CRD marks optional, without a `//` default.", "add the default the CRD declares, e.g. `(.parallelism // 1)`"),
    Rule("path-not-followed", I, "crd", "An expression passes its input through a construct that builds new values (`to_entries`, `keys`, an object, arithmetic), so the fields it reads after that cannot be checked against the CRD.", "nothing to fix; check those fields by hand, or read them before the construct"),
    Rule("crd-free-form", I, "crd", "An expression reads into a subtree the CRD declares free-form (`x-kubernetes-preserve-unknown-fields` without properties, or an object without fields): paths under it are not checked.", "nothing to fix; fixtures with real objects are the check there"),
    Rule("phase-never-matches", W, "crd", "A byPhase value is not in the enum the CRD declares for the phase field (`SUCCEEDED` where the operator writes `FINISHED`): it never matches.", "use a value of the enum (the hint names the closest)"),
    Rule("enum-comparison-never-matches", W, "crd", "A byExpression compares a field with a string its CRD enum does not allow (`.status.state == \"Suspended\"` where the enum says `SUSPENDED`): the comparison is never true.", "compare with a value of the enum"),
    Rule("condition-type-not-in-crd", W, "crd", "A byConditions type is not among the condition types the CRD declares (an enum on the conditions' type, or printer columns): it never matches.", "use a condition type the operator writes"),
    # --- fixture files ------------------------------------------------------------------------
    Rule("fixture-invalid", E, "fixture", "A fixture file does not follow the fixture format (docs/fixtures.md).", "fix the field named in the message"),
    # --- test-time rules (need objects and pods) ---------------------------------------------------
    Rule("selectors-not-exclusive", W, "test", "A pod is selected by more than one pod-bearing component, so consumers may place it in either.", "make the componentTypeSelectors exclusive (e.g. key existence vs. a value)"),
    Rule("pod-unmatched", W, "test", "A pod of the workload is selected by no component; kli hides it and schedulers cannot group it.", "add or widen a componentTypeSelector"),
    Rule("contradictory-statuses", W, "test", "Statuses that exclude each other matched together (Running with Failed or Completed, Failed with Completed, Suspended with Running).", "tighten the status mappings so that only one of them holds"),
    Rule("instances-out-of-step", E, "test", "Instance ids and extracted results do not line up (count mismatch or duplicate ids that collapse).", "make every path of the component emit one value per instance id, in the same order"),
    # --- outcomes of `kartalint test` (SARIF, JUnit and annotations name them) ---------------------
    Rule("fixture-mismatch", E, "outcome", "What the definition makes of a fixture's object differs from the fixture's `expect` (a status, role, replica count, GPU total, pod placement or error), or an `xfail` case passed.", "fix the definition; if the change is intended, rewrite the expectation with `kartalint test --update`"),
    Rule("fixture-error", E, "outcome", "A test case cannot run: its object, pods or definition cannot be read or found, its file is not valid, or its `expect` is empty.", "the message names the file and the place; fix it"),
    Rule("fixture-path-outside", E, "outcome", "A fixture names a file (`objectFile`, `podsFile`, `definition`) or is a symbolic link that resolves outside the project; it is refused, so a pull request cannot make CI print a file of the machine.", "keep fixture files inside the project, or allow a folder deliberately with `--allow-outside DIR`", security_severity="7.5"),
    Rule("definition-without-fixture", E, "outcome", "A project definition that no test case exercises (`--require-fixtures`).", "add a fixture for it (`kartalint new fixture OBJECT`)"),
    Rule("coverage-below-minimum", E, "outcome", "A definition's status mappings matched by its fixtures are below `--min-coverage`.", "add fixtures whose objects reach the status mappings never matched"),
]

RULES: Dict[str, Rule] = {rule.id: rule for rule in _ALL}
if len(RULES) != len(_ALL):  # pragma: no cover - guarded by tests too
    raise RuntimeError("duplicate rule id in the registry")

CATEGORIES = ("yaml", "schema", "parity", "jq", "practice", "gang", "crd", "fixture", "test", "outcome")


def get(rule_id: str) -> Rule:
    return RULES[rule_id]


def iter_rules(categories: Iterable[str] = CATEGORIES) -> List[Rule]:
    wanted = set(categories)
    return [rule for rule in _ALL if rule.category in wanted]


# Why, a bad and a good example, rendered in docs/rules.md (every rule added since the
# analysis follows jq everywhere has one; the rest get theirs as they are rewritten as units).
EXAMPLES: Dict[str, RuleExample] = {
    "condition-status-never-matches": RuleExample(
        "Kubernetes writes condition statuses as the strings True, False and Unknown, and matchers compare them exactly: "
        "a lower-case or quoted-boolean status is a matcher that silently never fires.",
        "failed:\n- byConditions:\n  - {type: Failed, status: 'true'}",
        "failed:\n- byConditions:\n  - {type: Failed, status: 'True'}"),
    "expected-result-never-matches": RuleExample(
        "upstream compares the expression's first result, printed as a string, with expectedResult: a test prints as "
        "true or false, so any other expectedResult never matches.",
        "byExpression:\n  expression: .status.readyReplicas > 0\n  expectedResult: \"yes\"",
        "byExpression:\n  expression: .status.readyReplicas > 0\n  expectedResult: \"true\""),
    "no-pod-component": RuleExample(
        "without a specDefinition nothing describes the pods: every consumer counts 0 GPUs and places no pod in any role. "
        "Rarely right (an operator that builds the pod spec itself): then suppress it with a reason.",
        "childComponents:\n- name: worker\n  kind: {group: '', version: v1, kind: Pod}\n  ownerRef: trainer",
        "childComponents:\n- name: worker\n  kind: {group: '', version: v1, kind: Pod}\n  ownerRef: trainer\n"
        "  specDefinition:\n    podTemplateSpecPath: .spec.template"),
    "draft-placeholder": RuleExample(
        "`kartalint new --crd` marks every guess it cannot confirm from the CRD; a placeholder label key selects no pod.",
        "componentTypeSelector:\n  keyPath: .metadata.labels[\"TODO/role\"]",
        "componentTypeSelector:\n  keyPath: .metadata.labels[\"trainer.example.com/role\"]"),
    "phase-never-matches": RuleExample(
        "the CRD lists every value the phase field can take; a byPhase outside that list (a different case, another "
        "operator's word) never matches.",
        "# the CRD: status.state enum [PENDING, RUNNING, FINISHED, FAILED]\ncompleted:\n- byPhase: SUCCEEDED",
        "completed:\n- byPhase: FINISHED"),
    "enum-comparison-never-matches": RuleExample(
        "a comparison with a value the field can never hold is always false, so the status it should detect is never reported.",
        "# the CRD: status.lifecycleState enum [RUNNING, SUSPENDED]\nexpression: .status.lifecycleState == \"Suspended\"",
        "expression: .status.lifecycleState == \"SUSPENDED\""),
    "condition-type-not-in-crd": RuleExample(
        "when the CRD declares the condition types (an enum), a type outside it is never written by the operator.",
        "# the CRD: status.conditions[].type enum [Ready, Failed]\n- byConditions:\n  - {type: Errored, status: 'True'}",
        "- byConditions:\n  - {type: Failed, status: 'True'}"),
    "path-not-followed": RuleExample(
        "after a construct that builds new values the reads cannot be mapped to the CRD's fields, so a typo there "
        "is not found by path-not-in-crd.",
        "replicasPath: .spec | to_entries | map(.value.replicas) | add",
        "replicasPath: .spec.roles | map(.replicas // 1) | add"),
    "crd-free-form": RuleExample(
        "a free-form subtree declares no fields, so nothing can be checked under it; fixtures with real objects are the check.",
        "# the CRD: inference.template is x-kubernetes-preserve-unknown-fields without properties\n"
        "podTemplateSpecPath: .inference.template",
        "(nothing to change; add a fixture with a real object)"),
}
