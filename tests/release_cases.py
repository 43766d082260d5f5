"""A small private table and the ``synthamp release`` arguments the pipeline tests share.

Not a test module (no ``test_`` prefix); imported by ``test_release_pipeline``
and ``test_distributed``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthamp.cli import main

FEATURES = [f"x{i}" for i in range(6)]
TARGETS = ["y1", "y2"]


def private_frame(m: int = 120, seed: int = 0) -> pd.DataFrame:
    """m records: 6 features, 2 targets linear in them, and a text column."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(m, 6)) / 4
    y = x @ rng.normal(size=(6, 2)) * 0.5 + 0.05 * rng.normal(size=(m, 2))
    frame = pd.DataFrame(np.c_[x, y], columns=FEATURES + TARGETS)
    frame["site"] = "a"
    return frame


def release_args(**overrides) -> list[str]:
    """``synthamp release`` on data.csv, σ given, post-processing; ``None`` drops a flag."""
    base = {
        "--data": "data.csv",
        "--targets": "y1,y2",
        "--features": ",".join(FEATURES),
        "--label-bound": "1",
        "--ridge": "0.1",
        "--sigma": "0.5",
        "--n-syn": "1000",
        "--out": "syn.csv",
        "--accounting": "post-processing",
    }
    base.update(overrides)
    args = ["release"]
    for key, value in base.items():
        if value is None:
            continue
        args += [key] if value is True else [key, str(value)]
    return args


def snapshot(directory) -> dict:
    """Name -> (bytes, mtime) of every file directly in ``directory``."""
    return {
        p.name: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(directory.iterdir())
        if p.is_file()
    }


def run(capsys, args: list[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``synthamp ARGS``."""
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_error_line(err: str, flag: str) -> str:
    """The one ``synthamp: error:`` line of stderr (notes aside), naming ``flag``, no traceback."""
    lines = [line for line in err.strip().splitlines() if not line.startswith("synthamp: note:")]
    assert len(lines) == 1 and lines[0].startswith("synthamp: error:"), err
    assert flag in lines[0] and "Traceback" not in err
    return lines[0]
