"""Releases on a public design: random seeds, random features or an orthogonal design.

The regression design X is public and generated from a recorded public seed; only the
labels are private, and the release is accounted at the level of the Gram statistic
(docs/theory.md §19, docs/gram-adjacency.md). The package stands beside
:mod:`synthamp.release` on the applications floor and uses its ridge mathematics, plan
and partitions; :mod:`synthamp.release` never imports it.

``import synthamp.design`` is light: the names below are loaded on first use.

.. currentmodule:: synthamp.design

.. autosummary::
   :toctree: generated/

   design_release    -- one release on public random seeds or features, Gram-accounted
   DesignRelease     -- its result: the bounds, σ under both adjacencies, the records
   plan_design       -- before the data: certified Δ, C, s₂ and σ of a random-seeds design
   DesignPlanRow     -- one row of that plan
   PublicDesign      -- a public design, generated block by block from a recorded seed
   design_bounds     -- certified Δ, C and s₂ of a public design
   orthogonal_bounds -- the orthogonal design's closed-form Δ, C and s₂, rounded up exactly
   compare_design_accounting -- concrete adjacent datasets: a lower bound beside the curve
   check_design_memory -- the memory a design's m × m work needs, refused up front
   DESIGNS           -- the public designs
   ADJACENCIES       -- the adjacencies a design release is accounted under (gram, norm)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from synthamp._lazy import lazy_attributes

if TYPE_CHECKING:  # loaded on first use, see __getattr__
    from synthamp.design._designs import ADJACENCIES, DESIGNS, PublicDesign, design_bounds
    from synthamp.design._memory import check_design_memory
    from synthamp.design._orthogonal import ORTHOGONAL, orthogonal_bounds
    from synthamp.design._pairs import DesignPairComparison, compare_design_accounting
    from synthamp.design._plan import DesignPlanRow, plan_design
    from synthamp.design._release import DesignRelease, design_release

_SOURCES: dict[str, str] = {
    **dict.fromkeys(
        ["ADJACENCIES", "DESIGNS", "PublicDesign", "design_bounds"], "synthamp.design._designs"
    ),
    "check_design_memory": "synthamp.design._memory",
    **dict.fromkeys(["ORTHOGONAL", "orthogonal_bounds"], "synthamp.design._orthogonal"),
    **dict.fromkeys(
        ["DesignPairComparison", "compare_design_accounting"], "synthamp.design._pairs"
    ),
    **dict.fromkeys(["DesignPlanRow", "plan_design"], "synthamp.design._plan"),
    **dict.fromkeys(["DesignRelease", "design_release"], "synthamp.design._release"),
}

__all__ = [
    "ADJACENCIES",
    "DESIGNS",
    "ORTHOGONAL",
    "DesignPairComparison",
    "DesignPlanRow",
    "DesignRelease",
    "PublicDesign",
    "check_design_memory",
    "compare_design_accounting",
    "design_bounds",
    "design_release",
    "orthogonal_bounds",
    "plan_design",
]

__getattr__, __dir__ = lazy_attributes(__name__, _SOURCES, public=__all__)
