"""The demo release: scikit-learn's diabetes data, publicly scaled, released end to end.

:func:`run_demo` is the library entry point of ``synthamp demo``: it fits a private
ridge generator on :func:`demo_dataset` (d = 65 public polynomial features, k = 1),
calibrated to (ε, δ) for exactly the N records released (or any number), measures the
utility at both calibrations beside the Gaussian-mechanism baseline (docs/theory.md
§16), and writes the records and the report (JSON, Markdown, HTML) into a directory,
together or not at all.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp._output._io import OutputTransaction, check_writable
from synthamp._output._journal import LockBusy
from synthamp._parameters import validated, validated_one
from synthamp._validation import (
    InputError,
)
from synthamp.release import _tabular
from synthamp.release._monitor import ReleaseMonitor, stale_messages
from synthamp.release._options import DEMO_DIR, release_mode
from synthamp.report import PrivacyReport, WrittenRecords, build_report, write_report
from synthamp.utility import gaussian_gram_sigma

__all__ = ["DEMO_FILES", "DEMO_RANGES", "DemoRelease", "demo_dataset", "run_demo"]

DEMO_FILES = (
    "synthetic.csv",
    "privacy-report.json",
    "privacy-report.md",
    "privacy-report.html",
)

#: Public, domain-knowledge ranges of the raw diabetes variables (clinical units), used to
#: map each feature to [-1, 1]. They are not computed from the data.
DEMO_RANGES: dict[str, tuple[float, float]] = {
    "age": (18.0, 90.0),  # years (adult patients)
    "sex": (1.0, 2.0),  # coded 1 / 2
    "bmi": (15.0, 50.0),  # kg/m²
    "bp": (60.0, 140.0),  # mean arterial pressure, mmHg
    "s1": (100.0, 350.0),  # total cholesterol, mg/dL
    "s2": (30.0, 250.0),  # LDL, mg/dL
    "s3": (20.0, 100.0),  # HDL, mg/dL
    "s4": (1.0, 10.0),  # total cholesterol / HDL
    "s5": (3.5, 7.0),  # log triglycerides (log mg/dL)
    "s6": (50.0, 150.0),  # glucose, mg/dL
}
#: Documented range of the target (disease progression one year after baseline).
DEMO_TARGET_RANGE = (0.0, 400.0)
#: Ridge penalty of the demo.
DEMO_RIDGE = 0.05
#: Repetitions of the utility evaluation.
DEMO_REPEATS = 200
#: Φ⁻¹(3/4): the median of |X| for X ~ N(0, 1).
MEDIAN_ABS_NORMAL = 0.6744897501960817


def demo_dataset() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The demo's features and target: scikit-learn's diabetes data, publicly scaled.

    Each raw variable is mapped affinely from its public range (``DEMO_RANGES``)
    to [-1, 1]; the features are those 10 values and their 55 pairwise products
    and squares (d = 65), divided by √65 so that every row has norm ≤ 1
    without clipping. The target (disease progression) is mapped from
    ``DEMO_TARGET_RANGE`` to [-1, 1] (B = 1). No constant is learned from the
    data.

    Returns
    -------
    features : ndarray of shape (442, 65)
    target : ndarray of shape (442, 1)
    feature_names : list of str
    """
    # heavy: scikit-learn, only for the built-in dataset
    from sklearn.datasets import load_diabetes

    raw = load_diabetes(scaled=False, as_frame=True).frame
    names = list(DEMO_RANGES)
    cols = []
    for name in names:
        low, high = DEMO_RANGES[name]
        cols.append(np.clip((raw[name].to_numpy(float) - low) / (high - low) * 2 - 1, -1, 1))
    base = np.column_stack(cols)
    products, product_names = [], []
    for i in range(len(names)):
        for j in range(i, len(names)):
            products.append(base[:, i] * base[:, j])
            product_names.append(f"{names[i]}*{names[j]}")
    features = np.column_stack([base, *products])
    features /= math.sqrt(features.shape[1])
    low, high = DEMO_TARGET_RANGE
    target = np.clip((raw["target"].to_numpy(float) - low) / (high - low) * 2 - 1, -1, 1)
    return features, target[:, None], names + product_names


@dataclass(frozen=True)
class DemoRelease:
    """What :func:`run_demo` wrote and measured.

    Attributes
    ----------
    paths : tuple of Path
        The synthetic table, then the JSON, Markdown and HTML reports.
    records : int
        Records written (N).
    privacy : PrivacyReport
        The release's report (the guarantee and σ at both calibrations).
    utility : dict
        Median relative error of the debiased ‖v‖² estimate at the amplification-aware
        σ (``amplified``) and at the post-processing σ (``post_processing``), and of the
        Gaussian mechanism on ‖v‖² (``baseline``).
    repeats : int
        Simulated releases behind each median.
    m, d : int
        Records and features of the data.
    unlimited : bool
        The guarantee covers any number of records.
    """

    paths: tuple[Path, ...]
    records: int
    privacy: PrivacyReport
    utility: dict
    repeats: int
    m: int
    d: int
    unlimited: bool


def _check_directory(out_dir, force: bool) -> tuple[Path, list[Path]]:
    directory = Path(out_dir)
    if directory.exists() and not directory.is_dir():
        raise InputError("out", f"{directory} exists and is not a directory")
    paths = [directory / name for name in DEMO_FILES]
    if directory.is_dir():
        for path in paths:
            check_writable(path, force=force, param="out")
    else:
        check_writable(directory, force=False, param="out")
    return directory, paths


def _complete_interrupted(directory: Path, monitor: ReleaseMonitor) -> None:
    """Before the existence checks: complete a commit a killed demo left half done there."""
    if not directory.is_dir():
        return
    transaction = OutputTransaction()
    try:
        with transaction:  # locks all four files, recovers, unlocks
            transaction.lock([(directory / name, "out") for name in DEMO_FILES])
    except LockBusy:
        raise
    except InputError:
        return  # an unwritable folder: the checks that follow say so, in their words
    finally:
        stale_messages(transaction, monitor)


def run_demo(
    out_dir: str | os.PathLike = DEMO_DIR,
    *,
    epsilon: float = 1.0,
    delta: float = 1e-5,
    n_syn: int = 10_000,
    seed: int | None = None,
    accounting: str = "exact",
    unlimited: bool = False,
    force: bool = False,
    mode: str | int | None = None,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    monitor: ReleaseMonitor | None = None,
) -> DemoRelease:
    """Release N synthetic records of the diabetes data into ``out_dir`` (see module doc).

    Parameters are those of :func:`~synthamp.jobs.release_table`; ``out_dir`` is
    created if missing, and removed again (only if empty) when the release fails.

    Returns
    -------
    DemoRelease
    """
    epsilon, delta, n_syn = validated(epsilon=epsilon, delta=delta, n_syn=n_syn)
    if seed is not None:
        validated_one("seed", seed)
    mode = release_mode(mode, seed)
    monitor = monitor or ReleaseMonitor()
    _complete_interrupted(Path(out_dir), monitor)
    directory, paths = _check_directory(out_dir, force)
    # heavy: scikit-learn (the estimator), loaded after the checks so that an error is quick
    from synthamp.release._generator import PrivateLinearGenerator

    features, target, _ = demo_dataset()
    with monitor.stage(f"calibrating σ ({accounting} accounting) and fitting"):
        generator = PrivateLinearGenerator(
            label_bound=1.0,
            ridge=DEMO_RIDGE,
            epsilon=epsilon,
            delta=delta,
            n_syn=None if unlimited else n_syn,
            accounting=accounting,
            time_budget=time_budget,
            random_state=seed,
        ).fit(features, target)
    privacy = generator.privacy_
    with monitor.stage("evaluating utility"):
        utility = demo_utility(features, target, privacy, n_syn, seed)
    privacy = _write(generator, privacy, directory, paths, n_syn, force, mode, monitor)
    m, d = features.shape
    return DemoRelease(tuple(paths), n_syn, privacy, utility, DEMO_REPEATS, m, d, unlimited)


def _write(generator, privacy, directory, paths, n_syn, force, mode, monitor):
    """The records and the reports, in one transaction (a folder created is removed on failure).

    Returns the report written (its utility at the ``n_syn`` records written)."""
    # heavy: scipy (the ridge mathematics under the writer), loaded after the checks
    from synthamp.jobs._release_table import WRITE_CHUNK

    created = not directory.is_dir()
    try:
        with OutputTransaction(replace=force, mode=mode) as transaction:
            if created:
                with transaction.writing("out"):
                    directory.mkdir()
            transaction.lock([(path, "out") for path in paths])  # one commit: all four
            synthetic_tmp, *report_tmps = (transaction.add(path, param="out") for path in paths)
            stale_messages(transaction, monitor, recovered=False)
            with transaction.writing("out"):
                chunks = generator.iter_samples(n_syn, chunk_size=WRITE_CHUNK)
                _tabular.write_rows(synthetic_tmp, chunks, ["progression"], fmt="csv")
                privacy = build_report(
                    generator.accounting_, WrittenRecords(n_syn, ("progression",))
                )
                write_report(privacy, report_tmps)
            transaction.commit()
        return privacy
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only if empty: never a folder with other files
        raise


def demo_utility(features, target, privacy, n_syn, seed) -> dict[str, float]:
    """Median relative error of the debiased ‖v‖² estimate at both calibrations.

    Uses the non-private ridge solution v (of public data) inside this function
    only, to report aggregate errors; v itself is never printed or written.
    """
    # heavy: scipy.linalg (the ridge mathematics), loaded after the checks
    from synthamp.release._ridge import (
        clip_rows,
        gram_estimate_errors,
        project_frobenius,
        ridge_fit,
    )

    reference = project_frobenius(
        ridge_fit(clip_rows(features, 1.0), clip_rows(target, privacy.label_bound), privacy.ridge),
        privacy.norm_bound,
    )
    out = {}
    for offset, (name, sigma) in enumerate(
        (("amplified", privacy.sigma), ("post_processing", privacy.sigma_post_processing))
    ):
        errors = gram_estimate_errors(
            reference,
            sigma=sigma,
            n_syn=n_syn,
            repeats=DEMO_REPEATS,
            random_state=None if seed is None else seed + 1 + offset,
        )
        out[name] = float(np.median(errors))
    # the Gaussian mechanism on ‖v‖²: |N(0, σ_G²)| has median σ_G·Φ⁻¹(3/4) (exact, k = 1)
    sigma_gram = gaussian_gram_sigma(
        privacy.epsilon,
        privacy.delta,
        norm_bound=privacy.norm_bound,
        sensitivity=privacy.sensitivity,
    )
    out["baseline"] = MEDIAN_ABS_NORMAL * sigma_gram / float(np.sum(reference**2))
    del reference
    return out
