"""Mutation testing of definitions (``kartalint test --mutants``, docs/fixtures.md): how much of a
definition its fixtures pin.

``operators`` make small changes of a definition (``mutant``), ``run`` evaluates each on the
definition's cases (``judge``: killed, noticed by no ``expect``, or equivalent; ``probes``: objects
that tell a mutant apart when no fixture object does), ``score`` holds the results.
"""
