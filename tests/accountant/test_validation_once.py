"""Validation once, at the public boundary (issue #22, item 3; docs/architecture.md rule 4).

Each public accountant entry point validates each of its arguments once with
:mod:`synthamp._validation`, then calls private kernels that trust them; library
code inside calls the kernels. The test counts every entry into a public
function of ``synthamp._validation`` from outside that module during one call
(each wrapped wherever a synthamp module holds it) and asserts the exact multiset
of parameters validated: an inner public function that re-validates shows up as a
parameter counted twice (or one the entry point does not take).
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections import Counter

import numpy as np
import pytest

import synthamp._validation as validation
from synthamp import accountant as A
from synthamp.accountant import OrderGridWarning, SyntheticDataRelease

DELTA = 1e-5
ORDERS = [1.5, 2.0, 4.0, 8.0, 16.0, 32.0]
SHAPE = dict(dim=10, norm_bound=2.0, sensitivity=0.5)
#: the release's fields, validated once when a calibration builds it at σ = 1
RELEASE = ("dim", "out_dim", "norm_bound", "sensitivity", "sigma", "releases")
K1 = SyntheticDataRelease(**SHAPE, out_dim=1, sigma=1.0)
K1_FINITE = SyntheticDataRelease(**SHAPE, out_dim=1, sigma=1.0, n_syn=50)
K2 = SyntheticDataRelease(**SHAPE, out_dim=2, sigma=1.0)


def validated(call) -> Counter:
    """The parameters validated during ``call()``, each entry into ``_validation`` once.

    Every public function of ``synthamp._validation`` is wrapped wherever a synthamp
    module holds it (the modules import them by name); calls between those functions
    (``check_sigma`` calling ``check_positive``) are not entries and are not counted.
    """
    seen: Counter = Counter()
    depth = [0]
    originals = {getattr(validation, name): name for name in validation.__all__}

    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def counted(*args, **kwargs):
            if depth[0] == 0:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                seen[str(bound.arguments.get("param", fn.__name__))] += 1
            depth[0] += 1
            try:
                return fn(*args, **kwargs)
            finally:
                depth[0] -= 1

        return counted

    wrappers = {fn: wrap(fn) for fn in originals if callable(fn) and not isinstance(fn, type)}
    patched = []
    for module in [m for name, m in sys.modules.items() if name.startswith("synthamp")]:
        for attr, value in list(vars(module).items()):
            if callable(value) and value in wrappers:
                patched.append((module, attr, value))
                setattr(module, attr, wrappers[value])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OrderGridWarning)
            call()
    finally:
        for module, attr, value in patched:
            setattr(module, attr, value)
    return seen


RDP = ("delta", "orders", "time_budget", "search")
PLD = ("delta", "discretization", "tail")
ACCOUNT = ("delta", "orders", "discretization", "time_budget", "search")
CALIBRATE = ("epsilon", "delta", "orders", "rtol", "time_budget", *RELEASE)
CASES = {
    "compute_epsilon rdp k = 1": (
        lambda: A.compute_epsilon(K1, DELTA, ORDERS, accountant="rdp"), RDP),
    "compute_epsilon rdp k = 1 finite": (
        lambda: A.compute_epsilon(K1_FINITE, DELTA, ORDERS, accountant="rdp"), RDP),
    "compute_epsilon rdp k = 2": (
        lambda: A.compute_epsilon(K2, DELTA, ORDERS, accountant="rdp"), RDP),
    "compute_epsilon pld": (lambda: A.compute_epsilon(K1, DELTA, accountant="pld"), PLD),
    "compute_epsilon (rule) k = 1": (lambda: A.compute_epsilon(K1, DELTA, ORDERS), ACCOUNT),
    "compute_epsilon (rule) k = 1 finite": (
        lambda: A.compute_epsilon(K1_FINITE, DELTA, ORDERS), ACCOUNT),
    "account k = 2": (lambda: A.account(K2, DELTA, orders=ORDERS), ACCOUNT),
    "calibrate_sigma rdp": (
        lambda: A.calibrate_sigma(1.0, DELTA, **SHAPE, orders=ORDERS, accountant="rdp"),
        CALIBRATE),
    "calibrate_sigma rdp k = 2": (
        lambda: A.calibrate_sigma(
            1.0, DELTA, **SHAPE, out_dim=2, orders=ORDERS, accountant="rdp"),
        CALIBRATE),
    "calibrate_sigma pld T = 2": (
        lambda: A.calibrate_sigma(1.0, DELTA, **SHAPE, releases=2, accountant="pld"),
        ("epsilon", "delta", "discretization", "rtol", *RELEASE)),
    "calibrate_sigma (rule) k = 1": (
        lambda: A.calibrate_sigma(1.0, DELTA, **SHAPE, orders=ORDERS),
        (*CALIBRATE, "discretization")),
    "calibrate (rule) k = 1 finite": (
        lambda: A.calibrate(1.0, DELTA, **SHAPE, n_syn=50, orders=ORDERS),
        (*CALIBRATE, "discretization", "n_syn")),
    "calibrate k = 2": (
        lambda: A.calibrate(1.0, DELTA, **SHAPE, out_dim=2, orders=ORDERS),
        (*CALIBRATE, "discretization")),
    "rdp_curve k = 2": (lambda: A.rdp_curve(K2, ORDERS), ("orders", "time_budget", "search")),
    "worst_case_rdp": (
        lambda: A.worst_case_rdp(ORDERS, 10, 2.0, 0.5, n_syn=50),
        ("alpha", "dim", "sigma", "norm_bound", "sensitivity", "n_syn")),
    "profile_epsilon": (lambda: A.profile_epsilon(K1, DELTA), ("delta", "rtol", "tail")),
    "privacy_profile": (lambda: A.privacy_profile(K1, [0.5, 1.0]), ("rtol", "tail")),
    "compute_epsilon_pld T = 2": (
        lambda: A.compute_epsilon_pld(SyntheticDataRelease(**SHAPE, out_dim=1, sigma=1.0,
                                                           releases=2), DELTA),
        (*PLD, *RELEASE)),
    "release_curves": (lambda: A.release_curves(K1, DELTA), ("delta",)),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_each_argument_is_validated_once(case):
    call, params = CASES[case]
    assert validated(call) == Counter(params)


def test_the_count_sees_a_revalidation():
    """The hook counts an inner public call: two public calls validate δ twice."""

    def twice():
        A.profile_epsilon(K1, DELTA)
        A.gaussian_epsilon(DELTA, 0.5, np.float64(1.0))

    assert validated(twice) == Counter(["delta", "delta", "rtol", "tail", "sensitivity", "sigma"])
