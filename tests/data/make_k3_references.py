"""Make tests/data/references/hyp0f1_3x3.json: log ₀F₁(b; diag(x)) of 3 × 3 arguments by mpmath.

An mpmath sum (40 digits) of the Koev–Edelman series Σ_κ C_κ(X)/([b]_κ |κ|!) with
the zonal polynomials written from the definitions in tests/divergence/test_wishart3.py
(Jack polynomials of parameter 2 by Stanley's branching rule, normalised by
Σ_{|κ|=k} C_κ = (tr X)^k, which that test checks), summed until a layer is below
1e-38 of the total. Also stores the exact k = 2 engine's value of two embedded
pairs (renyi_plateau_gram, docs/theory.md §15) for the k = 3 estimator's test.

Run from the repository root: ``python tests/data/make_k3_references.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS / "divergence")]

CASES = [
    (1.5, (0.5, 0.2, 0.1)),
    (2.0, (3.0, 1.0, 0.5)),
    (5.0, (10.0, 4.0, 1.0)),
    (5.0, (20.0, 19.5, 19.0)),
    (15.0, (30.0, 5.0, 2.0)),
    (50.0, (60.0, 40.0, 20.0)),
]
#: (d, α, Ω_v, Ω_w) of k = 2 pairs, embedded in 3 × 3 by a zero row and column.
K2_PAIRS = [(6, 2.0, [[3.0, 0.5], [0.5, 1.0]], [[2.0, 0.0], [0.0, 1.5]])]


def main() -> None:
    import mpmath as mp
    import numpy as np
    from test_wishart3 import mp_log_hyp0f1_3x3

    from synthamp.divergence import renyi_plateau_gram

    out = {"mpmath": mp.__version__, "hyp0f1_3x3": [], "k2_embedded": []}
    for b, x in CASES:
        out["hyp0f1_3x3"].append({"b": b, "x": list(x), "log": mp_log_hyp0f1_3x3(b, x)})
    for dim, alpha, gv, gw in K2_PAIRS:
        gv, gw = np.array(gv), np.array(gw)
        res = renyi_plateau_gram([alpha], dim, gv, gw, full_output=True)
        out["k2_embedded"].append(
            {
                "dim": dim,
                "alpha": alpha,
                "gram_v": gv.tolist(),
                "gram_w": gw.tolist(),
                "value": float(res.value[0]),
                "error": float(res.error[0]),
            }
        )
    path = TESTS / "data" / "references" / "hyp0f1_3x3.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
