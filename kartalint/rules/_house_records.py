"""What the house rules' engine (``kartalint.rules._house_jq``) holds of each definition: what its
rules gave (``Outcome``), a definition sent and not read yet (``Pending``), a definition or a
file's end queued for a batch (``Queued``)."""

from __future__ import annotations

from collections.abc import Callable

from kartalint.model import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kartalint.load.house_rules import Failure, HouseRule
    from kartalint.rules._house_memo import Recall


class Outcome(Record):
    """What the house rules gave on one definition: per rule, its findings (unit index, message),
    and the rules that failed on it."""

    __slots__ = ("failed", "hits")
    hits: dict[HouseRule, list[tuple[int, str]]]
    failed: dict[HouseRule, Failure]

    def __init__(
        self,
        hits: dict[HouseRule, list[tuple[int, str]]] | None = None,
        failed: dict[HouseRule, Failure] | None = None,
    ) -> None:
        """Nothing found and nothing failed, unless given."""
        self.hits = {} if hits is None else hits
        self.failed = {} if failed is None else failed


class Pending(Record):
    """A definition sent to the worker (``HouseEngine.start``), its results not read yet."""

    __slots__ = ("rules", "sent", "text")
    rules: list[HouseRule]
    text: str
    sent: bool  # sent joined: ``finish`` reads the reply (the engine is held until then)

    def __init__(self, rules: list[HouseRule], text: str, sent: bool = False) -> None:
        """``text`` for ``rules``, not sent yet."""
        self.rules = rules
        self.text = text
        self.sent = sent


class Queued(Record):
    """A definition queued for its house rules (``HouseEngine.queue``), or, with no ``text``, the
    end of a file (its ``failed`` then says which rules had failed by then, as a lint of the files
    one by one would say it). ``locate`` places a failure on the definition (its file, its unit)."""

    __slots__ = ("failed", "locate", "memo", "outcome", "rules", "text")
    rules: list[HouseRule]
    text: str | None
    locate: Callable[[HouseRule, Failure], Failure] | None
    memo: tuple[Recall, ...]  # its units' findings remembered, per kind (``_house_memo``)
    outcome: Outcome | None  # set once run
    failed: dict[HouseRule, Failure]

    def __init__(
        self,
        rules: list[HouseRule],
        text: str | None,
        locate: Callable[[HouseRule, Failure], Failure] | None = None,
        memo: tuple[Recall, ...] = (),
        outcome: Outcome | None = None,
        failed: dict[HouseRule, Failure] | None = None,
    ) -> None:
        """A definition's ``text`` queued for ``rules`` (None: a file's end)."""
        self.rules = rules
        self.text = text
        self.locate = locate
        self.memo = memo
        self.outcome = outcome
        self.failed = {} if failed is None else failed

    @property
    def done(self) -> bool:
        """Whether it has been read (a file's end: whether every definition before it has)."""
        return self.outcome is not None
