"""synthamp.report._privacy: the privacy report, its JSON round trip and its Markdown rendering."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from synthamp.report import ADJACENCY, REPORT_SCHEMA, SCHEMA_VERSION, PrivacyReport


def _report(**changes) -> PrivacyReport:
    fields = {
        "epsilon": 1.0,
        "delta": 1e-5,
        "optimal_order": 12.5,
        "sigma": 0.75,
        "sensitivity": 0.2,
        "norm_bound": 1.5,
        "dim": 10,
        "out_dim": 1,
        "n_records": 20_000,
        "n_syn": None,
        "ridge": 3.0,
        "label_bound": 1.0,
        "seed_scale": 1.0,
        "accounting_method": "exact",
        "accounting_kind": "exact",
        "sigma_post_processing": 1.0,
        "epsilon_post_processing": 2.5,
        "model_released": False,
        "adjacency": ADJACENCY,
        "objective": "min ‖Xv − y‖² + λ‖v‖²",
        "feature_scaling": "declared bounds",
        "seed_policy": "noise and seeds from OS entropy",
        "noise_secret": True,
        "released": ("synthetic records",),
        "not_released": ("the model V", "the seeds Z"),
        "synthamp_version": "0.0.test",
    }
    return PrivacyReport(**{**fields, **changes})


def test_noise_saved_is_one_minus_the_sigma_ratio():
    assert _report().noise_saved == pytest.approx(0.25, rel=1e-15)
    assert _report(sigma=1.0).noise_saved == 0.0
    assert _report(sigma_post_processing=0.0).noise_saved == 0.0
    assert _report(sigma_post_processing=math.nan).noise_saved == 0.0
    # never negative: a method needing more noise than post-processing saves nothing
    assert _report(sigma=1.2).noise_saved == 0.0


def test_guarantee_is_unconditional_only_without_seed_or_notes():
    assert _report().guarantee_is_unconditional
    assert not _report(noise_secret=False).guarantee_is_unconditional
    assert not _report(notes=("data-dependent scaling",)).guarantee_is_unconditional


def test_json_round_trip_is_exact():
    report = _report(n_syn=1000, notes=("a caveat",))
    data = json.loads(report.to_json())
    assert data["schema"] == REPORT_SCHEMA
    assert data["document"] == "privacy-report" and data["schema_version"] == SCHEMA_VERSION
    assert data["noise_saved"] == report.noise_saved
    assert data["released"] == ["synthetic records"]
    assert PrivacyReport.from_dict(data) == report


def test_json_holds_plain_public_values_only():
    # no array (a model, noise or seeds) can hide in the report: every value is a
    # number, a string, a boolean, None or a list of strings
    for key, value in _report().to_dict().items():
        if isinstance(value, list):
            assert all(isinstance(item, str) for item in value), key
        else:
            assert value is None or isinstance(value, bool | int | float | str), key


def test_json_refuses_non_finite_numbers():
    with pytest.raises(ValueError, match="JSON"):
        _report(epsilon=math.inf).to_json()


def test_from_dict_ignores_unknown_keys():
    data = _report().to_dict() | {"something_new": 1}
    assert PrivacyReport.from_dict(data) == _report()


def test_the_report_is_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        _report().epsilon = 0.5  # type: ignore[misc]


def test_markdown_states_the_guarantee_and_its_table():
    text = _report().to_markdown()
    assert text.startswith("# Privacy report\n")
    # the first sentence says plainly what is guaranteed
    first = text.split("\n")[2]
    assert first.startswith(
        "**Whatever anyone concludes from the published synthetic records (any number of them)"
    )
    assert (
        f"at most {math.exp(1.0):.4g} times as likely, plus a probability of at most 1e-05" in first
    )
    assert "(1, 1e-05)-differentially private under replace-one adjacency" in first
    assert "only" not in first
    assert "| σ | 0.75 |" in text and "| noise saved | 25.0% |" in text
    assert "| m | 20,000 |" in text
    assert "Warning" not in text and "Note" not in text
    assert "- the seeds Z" in text.split("## Not released", 1)[1]
    assert text.endswith(f"_synthamp 0.0.test, report schema {REPORT_SCHEMA}_\n")


def test_markdown_warns_about_a_user_seed_and_shows_notes():
    text = _report(noise_secret=False, seed_policy="user seed: research only", notes=("n1",))
    md = text.to_markdown()
    assert "> **Warning.** user seed: research only" in md
    assert "provided the user seed of this run stays secret" in md.split("\n")[2]
    assert "> **Note.** n1" in md


def test_markdown_numbers_for_humans():
    md = _report(n_syn=1_000_000, optimal_order=None, epsilon=0.123456789).to_markdown()
    assert "synthetic records (up to 1,000,000 of them)" in md
    assert "| optimal Rényi order α | — |" in md
    assert "| ε | 0.1235 |" in md
    assert "noisy model V and synthetic records" in _report(model_released=True).to_markdown()
    assert "| ε (post-processing) | ∞ |" in _report(epsilon_post_processing=math.inf).to_markdown()
