"""``plan_table``: the plan of a table from its shape, as ``plan_release`` makes it."""

from __future__ import annotations

import pytest

from synthamp import InputError
from synthamp.jobs import plan_table
from synthamp.release import plan_release
from test_planning import _write


def test_plan_table_reads_the_shape_and_plans_like_plan_release(tmp_path):
    path = tmp_path / "t.csv"
    _write(path, m=300, d=6)
    plan = plan_table(
        path, "y0", label_bound=1.0, epsilon=1.0, delta=1e-5, ridges=[1.0], widths=[6.0, 40.0]
    )
    direct = plan_release(
        n_records=300, n_features=6, n_targets=1, label_bound=1.0, epsilon=1.0, delta=1e-5,
        ridges=[1.0], widths=[6, 40],
    )  # fmt: skip
    assert plan.plan == direct
    data = plan.to_dict()
    assert data["data"] == {
        "path": str(path), "n_records": 300, "n_features": 6, "n_targets": 1, "values_read": False,
    }  # fmt: skip
    assert len(data["rows"]) == 2 and data["best"] == direct.best
    lines = plan.lines()
    assert lines[0].endswith("k = 1 target (shape only: no value was read)")
    assert sum(line.startswith("*") for line in lines) == 2  # the best row and its legend
    assert plan.warnings == ()


@pytest.mark.parametrize(
    ("kwargs", "param"), [({"widths": [2.5]}, "width"), ({"targets": "nope"}, "targets")]
)
def test_plan_table_names_the_bad_parameter(tmp_path, kwargs, param):
    path = tmp_path / "t.csv"
    _write(path, m=30, d=3)
    args = {"targets": "y0", "label_bound": 1.0, "epsilon": 1.0, "delta": 1e-5, **kwargs}
    with pytest.raises(InputError) as caught:
        plan_table(path, **args)
    assert caught.value.param == param


def test_all_targets_of_a_parquet_table_are_its_numeric_columns_read_from_the_schema(tmp_path):
    """``plan --targets all``: the columns release takes (numeric, not boolean), from the
    Parquet schema alone; with target bounds the constant column is counted and B = 1."""
    import numpy as np
    import pandas as pd

    from synthamp.release._plan_targets import plan_targets

    frame = pd.DataFrame(
        {"a": np.arange(5.0), "name": list("vwxyz"), "b": np.arange(5), "flag": [True] * 5}
    )
    path = tmp_path / "t.parquet"
    frame.to_parquet(path)
    chosen = plan_targets(
        path, ["all"], bounds={"a": (0, 4), "b": (0, 4)}, design="orthogonal", label_bound=None
    )
    assert chosen.names == ("a", "b") and chosen.released == 3 and chosen.label_bound == 1.0
    csv = tmp_path / "t.csv"
    frame.to_csv(csv, index=False)
    with pytest.raises(InputError, match="name the numeric target columns"):
        plan_targets(
            csv, ["all"], bounds={"a": (0, 4), "b": (0, 4)}, design="orthogonal", label_bound=None
        )
    plain = plan_targets(csv, ["a"], bounds=None, design="orthogonal", label_bound=2.0)
    assert plain.names == ("a",) and plain.released == 1 and plain.label_bound == 2.0
