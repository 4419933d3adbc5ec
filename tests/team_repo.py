"""A platform team's repository, as a team has it (issue 28): Karta definitions next to a Helm
chart that renders a Karta, CloudFormation with ``!Ref``, a GitHub workflow, the team's CRD and a
``.kartalint.yaml`` that turns a rule off and excludes the chart.

What it is built to show: the definition's ``replicasPath`` multiplies by ``.replicas`` without a
default. Without the project's CRD that is ``scale-path-not-null-safe``; the team's CRD makes
``replicas`` required, which withdraws it. The CRD leaves ``spec`` optional, so the CRD-aware
``crd-optional-iteration`` fires, and the configuration turns that rule off. With the project's
configuration the definition is clean; with the default configuration it is not.
"""

from __future__ import annotations

import copy
import os

import yaml
from conftest import BASE_DEFINITION, ROOT, git

TEAM_DEFINITION = BASE_DEFINITION.replace(
    "replicasPath: .spec.roles[] | (.replicas // 1)", "replicasPath: .spec.roles[] | .replicas * 2"
)
assert TEAM_DEFINITION != BASE_DEFINITION

HELM_KARTA = """\
{{- if .Values.karta.enabled }}
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: {{ include "trainer.fullname" . }}
  labels:
    {{- include "trainer.labels" . | nindent 4 }}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind:
        group: example.com
        version: {{ .Values.apiVersion | default "v1" }}
        kind: Trainer
      statusDefinition:
        phaseDefinition:
          path: .status.phase
        statusMappings:
          running:
          - byPhase: Running
{{- end }}
"""

CLOUDFORMATION = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Name:
    Type: String
Resources:
  Bucket:
    Type: AWS::S3::Bucket
    Properties:
      BucketName: !Ref Name
  Policy:
    Type: AWS::S3::BucketPolicy
    Properties:
      Bucket: !Ref Bucket
      PolicyDocument:
        Statement:
        - Effect: Allow
          Resource: !Sub "arn:aws:s3:::${Bucket}/*"
          Principal: !GetAtt Role.Arn
"""

WORKFLOW = """\
name: deploy
on:
  push:
    branches: [main]
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
    - uses: actions/checkout@v4
    - run: helm upgrade --install trainer charts/trainer --set image.tag=${{ github.sha }}
"""

CONFIG = """\
definitions: [definitions]
fixtures: [fixtures]
crds: [crds]
rules:
  crd-optional-iteration: off   # our objects always have a spec
exclude:
  - charts/
"""

OBJECT = {
    "apiVersion": "example.com/v1",
    "kind": "Trainer",
    "metadata": {"name": "mnist", "namespace": "ml", "uid": "1f0c"},
    "spec": {
        "roles": [{"name": "worker", "replicas": 3, "template": {"spec": {"containers": [{"name": "c"}]}}}],
    },
    "status": {"phase": "Running"},
}


def team_crd() -> str:
    """tests/data/crds/example.com_trainers.yaml with ``replicas`` required (no default)."""
    with open(os.path.join(ROOT, "tests", "data", "crds", "example.com_trainers.yaml"), encoding="utf-8") as handle:
        crd = yaml.safe_load(handle)
    crd = copy.deepcopy(crd)
    version = crd["spec"]["versions"][0]
    role = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["roles"]["items"]
    role["required"] = ["name", "template", "replicas"]
    role["properties"]["replicas"].pop("default", None)
    return yaml.safe_dump(crd, sort_keys=False)


def fixture(expect: dict | None = None, **fields) -> str:
    doc = {"apiVersion": "kartalint/v1", "kind": "KartaFixture", "name": "mnist running", "source": "kubectl get"}
    doc.update(fields)
    if "objectFile" not in fields:
        doc["object"] = OBJECT
    doc["expect"] = expect or {"statuses": ["Running"], "components": {"worker": {"replicas": 6}}}
    return yaml.safe_dump(doc, sort_keys=False)


def make_team_repo(repo, *, config: str = CONFIG, fixtures: bool = True, commit: bool = True):
    """The team's repository in ``repo`` (a fresh git repository, committed)."""
    files = {
        ".kartalint.yaml": config,
        "definitions/trainer.yaml": TEAM_DEFINITION,
        "crds/trainers.yaml": team_crd(),
        "charts/trainer/Chart.yaml": "apiVersion: v2\nname: trainer\nversion: 0.1.0\n",
        "charts/trainer/values.yaml": "karta:\n  enabled: true\napiVersion: v1\n",
        "charts/trainer/templates/karta.yaml": HELM_KARTA,
        "infra/stack.yaml": CLOUDFORMATION,
        ".github/workflows/deploy.yml": WORKFLOW,
        "objects/mnist.yaml": yaml.safe_dump(OBJECT, sort_keys=False),
    }
    if fixtures:
        files["fixtures/example-com-trainer-v1/running.yaml"] = fixture()
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "init", "-q", "-b", "main")
    if commit:
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "the team's repository")
    return repo
