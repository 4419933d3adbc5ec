"""What vulture (dead code: .ci/run and tests/test_architecture.py run it) cannot see used: names
reached by registration or by a framework, and what the tests read. Anything else in kartalint/
that nothing uses is dead code: delete it. (Read by vulture, never run.)"""

from kartalint import __getattr__ as lazy_api
from kartalint.jqlang.runner import BoundedRunner
from kartalint.load import definitions, pipe
from kartalint.lsp import server
from kartalint.model import Generic, Record
from kartalint.project import parse_config
from kartalint.report import (
    describe,
    explore_ci,
    github,
    json,
    junit,
    output,
    rules_check,
    sarif,
    summary,
    summary_compare,
    text,
)
from kartalint.scaffold import release
from kartalint.scaffold.fixture import QuotingDumper
from kartalint.testing import update, written

# Registered by name ("module:name" in kartalint.report's REPORTERS, TEST_REPORTERS, DOCUMENTS,
# SUMMARIES and COMPARISONS), loaded when used
text.TextReporter
json.JsonReporter
github.GithubReporter
sarif.SarifReporter
junit.JUnitTestReporter
describe.render_trees
describe.render_yaml
rules_check.render_github
explore_ci.render_sarif
explore_ci.render_junit
summary.TableSummary
summary.CsvSummary
summary.JsonSummary
summary.MarkdownSummary
summary_compare.TableComparison
summary_compare.CsvComparison
summary_compare.JsonComparison
summary_compare.MarkdownComparison

# Language-server handlers: pygls calls what its @server.feature decorator registers
server.did_open
server.did_change
server.did_save
server.did_close
server.on_hover
server.on_completion
server.on_code_action
server.on_definition
server.on_symbols
server.on_code_lens
server.on_shutdown

# Called or read by a library: io's writable(), PyYAML's increase_indent(flow, indentless),
# ruamel.yaml's preserve_quotes, the module __getattr__ of the lazy Python API
output.GuardedStream.writable
QuotingDumper.increase_indent.indentless
update.YAML.preserve_quotes
lazy_api

# Called by Python when a class is made (a record class: kartalint.model)
Record.__init_subclass__
# Called by Python when a generic class is subscripted (Lifecycle["LintResult"]): typing's Generic at run time
Generic.__class_getitem__

# Read by the tests, and the Python API (docs/api.md)
BoundedRunner.restarts
definitions.default_index
parse_config
written.unwritten

# Loaded by path by setup.py (the build knows its revision from the Action's ref)
release.revision_from_ref

# Called by io and the YAML/JSON readers on a stream (load/pipe.py's reader of stdin and kubectl's output)
pipe.Replayable.seekable
pipe.Replayable.tell
pipe.Replayable.readinto
