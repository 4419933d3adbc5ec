"""``kartalint explore`` for CI: SARIF 2.1.0 (one result per failure, at the field it blames, and
one per path the definition reads that no object tried reached, at the place it is read) and JUnit
XML (a suite per definition: a case per property checked, and a ``paths exercised`` case that
fails below ``--min-path-coverage``). The same reports as ``report.explore``'s text and JSON."""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from typing import Any

import yaml

from kartalint import karta
from kartalint.explore.properties import PROPERTIES
from kartalint.jqlang import parse_cached
from kartalint.jqlang.paths import path_facts, path_text
from kartalint.load.documents import load_file
from kartalint.report.explore import Explored, below_line, paths_line
from kartalint.report.junit import _hostname, _timestamp
from kartalint.report.sarif import SarifLog
from kartalint.report.xml_escape import xml_element

PATH_NOT_EXERCISED = "path-not-exercised"
PATH_COVERAGE_BELOW_MINIMUM = "path-coverage-below-minimum"
_PROPERTY_DOCS = "https://github.com/kartalint/kartalint/blob/main/docs/explore.md"


def _descriptors() -> list[dict[str, Any]]:
    """The explore properties and the path coverage, as SARIF ``reportingDescriptor``s."""

    out = []
    for name, check in PROPERTIES.items():
        summary = " ".join((check.__doc__ or name).split())
        out.append(_descriptor(name, summary, "error"))
    out.append(
        _descriptor(
            PATH_NOT_EXERCISED,
            "A path the definition reads that no object explore tried had (a free-form or schema-less "
            "field, an enum value no object took): what it decides went untested.",
            "note",
        )
    )
    out.append(
        _descriptor(
            PATH_COVERAGE_BELOW_MINIMUM,
            "The objects explore tried reached fewer of the paths the definition reads than "
            "--min-path-coverage (explore.min-path-coverage) asks.",
            "error",
        )
    )
    return out


def _descriptor(name: str, text: str, level: str) -> dict[str, Any]:
    return {
        "id": name,
        "shortDescription": {"text": text.split(". ")[0].rstrip(".") + "."},
        "fullDescription": {"text": text},
        "helpUri": f"{_PROPERTY_DOCS}#properties",
        "defaultConfiguration": {"level": level},
        "properties": {"category": "explore", "tags": ["explore"]},
    }


def render_sarif(explored: Explored) -> str:
    """A SARIF log of one run (``automationDetails`` ``kartalint/explore/``)."""

    log = SarifLog("explore")
    for report in explored.reports:
        places = _Places(report["definition"])
        for failure in report["failures"]:
            message = f"{failure['field']}: {failure['message']}" + (
                f" (hint: {failure['hint']})" if failure["hint"] else ""
            )
            message += f"; minimal object: {json.dumps(failure['object'], sort_keys=True)}"
            log.add_result(
                failure["property"],
                "error",
                message,
                report["definition"],
                failure["field"],
                *places.field(failure["field"]),
            )
        paths = report["paths"]
        for path in paths["unreached"]:
            log.add_result(
                PATH_NOT_EXERCISED,
                "note",
                f"{path}: no object tried has it ({paths_line(paths)})",
                report["definition"],
                path,
                *places.read(path),
            )
        if paths.get("belowMinimum"):
            log.add_result(PATH_COVERAGE_BELOW_MINIMUM, "error", below_line(paths), report["definition"], "paths")
    document = log.document()
    run = document["runs"][0]
    descriptors = _descriptors()
    run["tool"]["driver"]["rules"] = descriptors
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    for result in run["results"]:
        result["ruleIndex"] = index[result["ruleId"]]
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_junit(explored: Explored) -> str:
    """JUnit XML: a suite per definition, a case per property checked and one for the paths exercised."""

    suites = ET.Element("testsuites", name="kartalint")
    totals = {"tests": 0, "failures": 0}
    for report in explored.reports:
        cases: list[tuple[str, str, str]] = []  # (name, failure message, body)
        checked = explored.properties or tuple(PROPERTIES)
        for name in checked:
            failures = [f for f in report["failures"] if f["property"] == name]
            body = "\n\n".join(_failure_text(f) for f in failures)
            cases.append((name, f"{failures[0]['field']}: {failures[0]['message']}" if failures else "", body))
        paths = report["paths"]
        unreached = "\n".join(f"not exercised: {p}" for p in paths["unreached"])
        cases.append(("paths exercised", below_line(paths), f"{paths_line(paths)}\n{unreached}".rstrip()))
        failed = sum(1 for _, message, _ in cases if message)
        suite = xml_element(
            suites,
            "testsuite",
            name=report["definition"],
            tests=len(cases),
            failures=failed,
            errors=0,
            skipped=0,
            time="0.000",
            timestamp=_timestamp(time.time()),
            hostname=_hostname(),
            file=report["definition"],
        )
        for name, message, body in cases:
            case = xml_element(suite, "testcase", classname=report["definition"], name=name, time="0.000")
            if message:
                xml_element(case, "failure", body or message, message=message, type=name)
            elif body:
                xml_element(case, "system-out", body)
        totals["tests"] += len(cases)
        totals["failures"] += failed
    suites.set("tests", str(totals["tests"]))
    suites.set("failures", str(totals["failures"]))
    suites.set("errors", "0")
    suites.set("time", "0.000")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _failure_text(failure: dict[str, Any]) -> str:
    hint = f"\nhint: {failure['hint']}" if failure["hint"] else ""
    shown = yaml.safe_dump(failure["object"], sort_keys=False, width=120).rstrip("\n")
    return f"{failure['field']}: {failure['message']}{hint}\nminimal object:\n{shown}"


class _Places:
    """Where a failing field is written in a definition file, and where a path is read."""

    def __init__(self, path: str) -> None:
        try:
            documents = load_file(path).karta_documents
        except OSError:
            documents = []
        self.document = documents[0] if len(documents) == 1 else None

    def field(self, field: str) -> tuple[int, int, int, int]:
        """The span of ``component.field.sub[0]`` (the component's own when the field is absent)."""

        if self.document is None:
            return (1, 1, 0, 0)
        name, _, rest = field.partition(".")
        refs = {str(ref.name): ref.path for ref in karta.components(self.document.data)}
        where = (*refs[name], *field_segments(rest)) if name in refs else ("spec", *field_segments(field))
        span = self.document.span(where)
        return (span.line, span.column, span.end_line, span.end_column)

    def read(self, shown: str) -> tuple[int, int, int, int]:
        """The characters of the first expression that reads the path ``shown`` (as jq)."""

        if self.document is None:
            return (1, 1, 0, 0)
        for jq_field in karta.jq_fields(self.document.data):
            tree, _ = parse_cached(jq_field.expression)
            for read in path_facts(tree).reads if tree is not None else []:
                if path_text(tuple("[]" if p.startswith("[") else p for p in read.path)) == shown:
                    span = self.document.scalar_span(jq_field.path, read.start, read.end)
                    return (span.line, span.column, span.end_line, span.end_column)
        return (1, 1, 0, 0)


def field_segments(dotted: str) -> tuple[Any, ...]:
    """``statusMappings.running[0].byPhase`` -> ("statusMappings", "running", 0, "byPhase")."""
    out: list[Any] = []
    for part in dotted.split(".") if dotted else []:
        name, *indexes = re.split(r"\[(\d+)\]", part)
        out.extend([name] if name else [])
        out.extend(int(i) for i in indexes if i)
    return tuple(out)
