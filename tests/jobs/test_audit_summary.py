"""``audit_summary``: the audit beside the guarantee room's ε, its files and its notes."""

from __future__ import annotations

import pytest

from synthamp import InputError
from synthamp.accountant import GaussianRelease, SyntheticDataRelease, account, profile_epsilon
from synthamp.jobs import MECHANISMS, AuditSummary, audit_summary

SMALL = dict(sensitivity=1.0, sigma=1.0, trials=2_000, seed=1)


def test_audit_summary_upper_bound_is_the_guarantee(tmp_path):
    csv = tmp_path / "t.csv"
    summary = audit_summary(50, 2.0, **SMALL, tradeoff=str(csv))
    assert isinstance(summary, AuditSummary)
    data = summary.to_dict()
    guarantee = account(SyntheticDataRelease(50, 1, 2.0, 1.0, 1.0), 1e-5)
    assert data["epsilon_upper"] == guarantee.epsilon and data["accountant"] == guarantee.accountant
    assert data["consistent"] and 0 <= data["epsilon_lower"] <= data["epsilon_upper"]
    assert data["seeded"] and data["family"]["family"]
    rows = csv.read_text().splitlines()
    assert rows[0] == "curve,fpr,fnr" and {r.split(",")[0] for r in rows[1:]} == {
        "exact",
        "empirical",
    }
    lines = summary.lines()
    assert lines[0].startswith(f"epsilon_lower = {data['epsilon_lower']:.4g} (family estimator")
    assert any(line.startswith("consistent: yes") for line in lines)


def test_audit_summary_of_the_gaussian_mechanism_needs_no_width():
    assert MECHANISMS == ("synthetic", "gaussian")
    summary = audit_summary(None, None, **SMALL, mechanism="gaussian", estimator="threshold")
    data = summary.to_dict()
    assert data["epsilon_upper"] == pytest.approx(
        profile_epsilon(GaussianRelease(1.0, 1.0), 1e-5).epsilon
    )
    assert data["accountant"] == "pld" and data["family"] is None
    assert "threshold estimator" in summary.lines()[0]


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [({"dim": None}, "dim"), ({"norm_bound": None}, "norm_bound"), ({"seed": -1}, "seed")],
)
def test_audit_summary_names_the_bad_parameter(kwargs, param):
    args = {"dim": 50, "norm_bound": 2.0, **SMALL, **kwargs}
    with pytest.raises(InputError) as caught:
        audit_summary(**args)
    assert caught.value.param == param


def test_audit_summary_checks_its_files_before_any_work(tmp_path):
    with pytest.raises(InputError) as caught:
        audit_summary(50, 2.0, **SMALL, plot=str(tmp_path))  # a directory: not writable as a file
    assert caught.value.param == "plot"
