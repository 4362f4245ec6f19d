"""The scorecard's vocabulary: one headline claim of a paper, the paper's value beside dnnmem's.

Each seed folder has ``sweeps/<seed>/claims.py`` with ``claims(tables) -> list[Claim]``: its
paper's headline claims, dnnmem's value of each read from the seed's tables (the results its
scripts write to ``tests/data/seeds/<seed>/``, as its page shows them; never retyped), the
paper's value with the section or figure it comes from. ``sweeps/scorecard.py`` gathers them.

Tolerances (the issue's rule): ``ratio`` claims (ratios, speedups, averages of ratios) are within
when ``|dnnmem / paper - 1| <= 15 %``; ``reduction`` claims (a percentage saved or changed, written
in %) when ``|dnnmem / paper - 1| <= 25 %``. Every claim also has a direction: the sign of
``paper - neutral`` (``neutral`` is 1 for a ratio, 0 for a reduction) must be dnnmem's too.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Kind = Literal["ratio", "reduction"]
TOLERANCE: dict[str, float] = {"ratio": 0.15, "reduction": 0.25}
NEUTRAL: dict[str, float] = {"ratio": 1.0, "reduction": 0.0}


@dataclass(frozen=True)
class Claim:
    """One headline claim: ``paper`` and ``dnnmem`` in the same unit (``unit``)."""

    seed: str  # cdma, mbs, onsram, interleaved
    claim: str  # what is claimed, in a reader's words
    where: str  # the paper's section, table or figure
    paper: float
    dnnmem: float
    kind: Kind
    unit: str = ""  # "×", "%", ...
    note: str = ""  # what dnnmem's value is (configuration), or why it differs
    hypotheses: tuple[str, ...] = field(default=())  # options of issue 28 that this row uses

    @property
    def tolerance(self) -> float:
        return TOLERANCE[self.kind]

    @property
    def relative_error(self) -> float:
        """``dnnmem / paper - 1`` (NaN when the paper's value is 0)."""
        return self.dnnmem / self.paper - 1 if self.paper else math.nan

    @property
    def direction_right(self) -> bool:
        n = NEUTRAL[self.kind]
        return math.copysign(1.0, self.paper - n) == math.copysign(1.0, self.dnnmem - n)

    @property
    def within(self) -> bool:
        return self.direction_right and abs(self.relative_error) <= self.tolerance

    def row(self) -> dict[str, Any]:
        """The claim as a scorecard row (the dataclass's fields and the derived ones)."""
        d = asdict(self)
        d["hypotheses"] = ", ".join(self.hypotheses)
        d.update(
            tolerance=self.tolerance,
            relative_error=self.relative_error,
            direction_right=self.direction_right,
            within=self.within,
        )
        return d
