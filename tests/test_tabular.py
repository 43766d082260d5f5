"""synthamp.release._tabular: reading private tables and writing synthetic ones (CSV, Parquet)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthamp import InputError
from synthamp.release import (
    check_table_output,
    parse_columns,
    read_table,
    select_numeric,
    table_format,
    write_table,
)


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("a.csv", "csv"), ("a.CSV", "csv"), ("a.parquet", "parquet"), ("a.pq", "parquet")],
)
def test_table_format_by_extension(name, fmt):
    assert table_format(name, param="data") == fmt


@pytest.mark.parametrize("name", ["a.txt", "a", "a.csv.gz"])
def test_unknown_extension_is_an_input_error_naming_the_parameter(name):
    with pytest.raises(InputError, match="unsupported file extension") as info:
        table_format(name, param="data")
    assert info.value.param == "data"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_write_then_read_round_trips_exactly_in_chunks(tmp_path, suffix):
    rng = np.random.default_rng(0)
    chunks = [rng.standard_normal((n, 3)) for n in (5, 0, 7)]
    path = tmp_path / f"syn{suffix}"
    assert write_table(path, iter(chunks), ["x0", "x1", "y"]) == 12
    frame = read_table(path)
    assert list(frame.columns) == ["x0", "x1", "y"]
    values = select_numeric(frame, ["x0", "x1", "y"], param="data")
    # CSV goes through text: pyarrow writes the shortest repr, which reads back exactly
    np.testing.assert_array_equal(values, np.concatenate(chunks))
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_an_empty_release_still_has_its_header(tmp_path):
    path = tmp_path / "empty.csv"
    assert write_table(path, [], ["a", "b"]) == 0
    assert path.read_text(encoding="utf-8").splitlines()[0].replace('"', "") == "a,b"


def test_a_bad_chunk_leaves_no_file(tmp_path):
    path = tmp_path / "syn.parquet"
    chunks = [np.zeros((2, 2)), np.zeros((2, 3))]
    with pytest.raises(InputError, match="chunk 2 has shape") as info:
        write_table(path, chunks, ["a", "b"])
    assert info.value.param == "chunks"
    assert list(tmp_path.iterdir()) == []


def test_check_table_output_checks_extension_then_clobbering(tmp_path):
    with pytest.raises(InputError, match="unsupported"):
        check_table_output(tmp_path / "out.json", force=False)
    existing = tmp_path / "out.csv"
    existing.write_text("a\n1\n", encoding="utf-8")
    with pytest.raises(InputError, match="--force"):
        check_table_output(existing, force=False)
    assert check_table_output(existing, force=True) == existing


def test_read_errors_are_one_line_input_errors(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_table(tmp_path / "missing.csv")
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="the file is empty"):
        read_table(tmp_path / "empty.csv")
    (tmp_path / "bad.parquet").write_text("not parquet", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read") as info:
        read_table(tmp_path / "bad.parquet", param="train")
    assert info.value.param == "train" and "\n" not in str(info.value)
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        read_table(tmp_path / "dir.csv")


def test_parse_columns():
    assert parse_columns(None, param="features") is None
    assert parse_columns(" a, b ,c", param="features") == ["a", "b", "c"]
    assert parse_columns(["x", "y"], param="features") == ["x", "y"]
    with pytest.raises(InputError, match="comma-separated"):
        parse_columns("a,,b", param="features")
    with pytest.raises(InputError, match="listed twice") as info:
        parse_columns("a,b,a", param="target")
    assert info.value.param == "target"


def test_select_numeric_names_column_and_row_never_the_value():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.5, 1234.5678, np.nan], "s": list("xyz")})
    np.testing.assert_array_equal(
        select_numeric(frame, ["a"], param="data"), np.array([[1.0], [2.0], [3.0]])
    )
    with pytest.raises(InputError, match=r"column 'b' has a missing \(NaN\) value in row 3"):
        select_numeric(frame, ["a", "b"], param="data")
    frame.loc[1, "a"] = np.inf
    with pytest.raises(InputError, match="column 'a' has an infinite value in row 2") as info:
        select_numeric(frame, ["a"], param="data")
    assert "inf" not in str(info.value).replace("infinite", "")
    with pytest.raises(InputError, match="column 's' is not numeric"):
        select_numeric(frame, ["s"], param="data")
    with pytest.raises(InputError, match="column 'zz' is not in the data"):
        select_numeric(frame, ["zz"], param="data")


def test_boolean_columns_are_not_numeric():
    frame = pd.DataFrame({"flag": [True, False]})
    with pytest.raises(InputError, match="not numeric"):
        select_numeric(frame, ["flag"], param="data")


def test_selected_values_are_a_contiguous_float64_copy():
    frame = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    values = select_numeric(frame, ["b", "a"], param="data")
    assert values.dtype == np.float64 and values.flags.c_contiguous
    np.testing.assert_array_equal(values, [[3.0, 1.0], [4.0, 2.0]])
