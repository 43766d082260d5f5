"""The default accountant's rule (``synthamp.accountant._choice``): when the unlimited
release's exact profile is weighed against a finite release's accounting, and which wins.

``release``, ``account`` and ``calibrate`` share this rule; their numbers are tested in
tests/cli/test_cli_account_unlimited.py and tests/test_generator.py.
"""

from __future__ import annotations

import pytest

from synthamp.accountant._choice import (
    accountant_reason,
    choose_accountant,
    finite_or_unlimited,
    weighs_unlimited_profile,
)


@pytest.mark.parametrize(
    ("accountant", "out_dim", "n_syn", "method", "weighed"),
    [
        (None, 1, 100, "exact", True),
        ("rdp", 1, 100, "exact", False),  # explicit means explicit
        ("pld", 1, 100, "exact", False),
        (None, 2, 100, "exact", False),  # k > 1: no exact profile
        (None, 1, None, "exact", False),  # unlimited: the profile is the release's own
        (None, 1, 100, "global", False),  # the accounting asked for
        (None, 1, 100, "post-processing", False),
    ],
)
def test_the_unlimited_profile_is_weighed_for_k1_finite_exact_default(
    accountant, out_dim, n_syn, method, weighed
):
    assert weighs_unlimited_profile(accountant, out_dim, n_syn, method) is weighed
    if weighed:  # the rule completes the default, which alone would be rdp here
        assert choose_accountant(accountant, out_dim, n_syn, method) == "rdp"


def test_the_smaller_wins_and_the_note_says_which_and_why():
    used, note = finite_or_unlimited(0.66, 0.60, symbol="ε", n_syn=100_000)
    assert used
    assert note == (
        "The unlimited-release guarantee (exact privacy profile, valid for any number of "
        "records) is tighter here than the rdp accounting of exactly 100,000 records "
        "(ε = 0.6 against 0.66), so it is used."
    )
    used, note = finite_or_unlimited(0.31, 0.53, symbol="σ", n_syn=100)
    assert not used
    assert note.startswith("The rdp accounting of exactly 100 records is at least as tight")
    assert "(σ = 0.31 against 0.53)" in note


def test_a_tie_keeps_the_finite_accounting_and_values_can_be_left_out():
    used, note = finite_or_unlimited(0.0, 0.0, symbol="ε", n_syn=10, show_values=False)
    assert not used and "against" not in note


def test_a_fallback_leads_the_note():
    used, note = finite_or_unlimited(
        2.0, 1.0, symbol="ε", n_syn=10, finite_accounting="that bound's RDP accounting",
        fallback="finite-release accounting stopped at its time budget.",
    )  # fmt: skip
    assert used and note.startswith("finite-release accounting stopped at its time budget. The")
    assert "tighter here than that bound's RDP accounting (ε = 1 against 2)" in note


@pytest.mark.parametrize(
    ("accountant", "out_dim", "n_syn", "method", "chosen", "why"),
    [
        ("rdp", 1, None, "exact", "rdp", "requested"),
        (None, 1, None, "exact", "pld", "exact privacy profile"),
        (None, 2, None, "exact", "rdp", "k > 1"),
        (None, 1, 100, "exact", "rdp", "finite n_syn"),
        (None, 1, None, "global", "rdp", "--accounting global"),
        (None, 1, None, "post-processing", "rdp", "--accounting post-processing"),
    ],
)
def test_the_reason_matches_the_choice(accountant, out_dim, n_syn, method, chosen, why):
    assert choose_accountant(accountant, out_dim, n_syn, method) == chosen
    assert why in accountant_reason(accountant, out_dim, n_syn, method)
