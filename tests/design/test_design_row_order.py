"""Row order on a public design: the guarantee holds whatever the file's order (theory §19).

A random-seeds design attaches its public seeds to positions. Bound to the records in file
order, replacing one record of a sorted table shifts every record between the old and the
new sort position, and the model moves by more than Δ. ``design_release`` assigns the
records to the design's rows by a uniform permutation drawn from the noise's entropy; the
tests check that it is applied, that it is fresh and never the design seed's, and, on wine
sorted by alcohol, the coupling of docs/theory.md §19: for every permutation π of D, the
permutation π′ = σ⁻¹∘π of D′ (uniform when π is) puts the two datasets one design position
apart, so every pair the mixture is made of moves v by at most Δ.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthamp._validation import InputError
from synthamp.design import _release
from synthamp.design._designs import PublicDesign, design_bounds
from synthamp.design._release import design_release
from synthamp.release._ridge import ridge_fit

RIDGE, WIDTH, DESIGN_SEED = 0.01, 2000, 7


@pytest.fixture(scope="module")
def sorted_wine():
    """Wine sorted by alcohol (target class − 1), and D′: its lowest record replaced by one
    whose alcohol sorts at position 73 (target +1), sorted again as a user would file it.
    σ maps each file position of D′ to the position of the same record in D (the new
    record to the replaced one's)."""
    datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn loads wine")
    frame = datasets.load_wine(as_frame=True).frame
    order = np.argsort(frame["alcohol"].to_numpy(), kind="stable")
    alcohol = frame["alcohol"].to_numpy()[order]
    y = frame["target"].to_numpy()[order] - 1.0
    m = y.size
    # D′ before sorting: records 1 … m−1 of D, then the new record (index m − 1 here, the
    # replaced record 0 of D)
    alcohol2 = np.concatenate([alcohol[1:], [alcohol[73] + 1e-9]])
    source = np.concatenate([np.arange(1, m), [0]])  # the record of D each one stands for
    y2 = np.concatenate([y[1:], [1.0]])
    order2 = np.argsort(alcohol2, kind="stable")
    return y, y2[order2], source[order2]


@pytest.fixture(scope="module")
def design(sorted_wine):
    y, _, _ = sorted_wine
    public = PublicDesign("random-seeds", WIDTH, y.size, DESIGN_SEED)
    x = public.dense()
    return x, design_bounds(x @ x.T, RIDGE, 1.0)


def test_file_order_moves_the_model_beyond_delta(sorted_wine, design):
    """The measurement without the permutation: positions bound to the file's order."""
    y, y2, _ = sorted_wine
    x, bounds = design
    moved = np.linalg.norm(ridge_fit(x, y[:, None], RIDGE) - ridge_fit(x, y2[:, None], RIDGE))
    assert int(np.sum(y != y2)) > 1  # more than one position changed
    assert moved > 1.5 * bounds.sensitivity, (moved, bounds.sensitivity)


def test_the_coupled_permutations_keep_every_pair_within_delta(sorted_wine, design):
    """For each π, π′ = σ⁻¹∘π (a bijection of permutations: uniform when π is) gives
    D′_π′ one position away from D_π: ‖v − w‖ ≤ Δ and |‖v‖² − ‖w‖²| ≤ s₂ for each."""
    y, y2, source = sorted_wine
    x, bounds = design
    m = y.size
    inverse = np.empty(m, dtype=int)
    inverse[source] = np.arange(m)  # σ⁻¹: record of D → its file position in D′
    rng = np.random.default_rng(0)
    worst, worst_gram = 0.0, 0.0
    for _ in range(40):
        pi = rng.permutation(m)
        pi2 = inverse[pi]
        assert sorted(pi2) == list(range(m))
        rows, rows2 = y[pi], y2[pi2]
        assert int(np.sum(rows != rows2)) <= 1  # one design position apart
        v = ridge_fit(x, rows[:, None], RIDGE)
        w = ridge_fit(x, rows2[:, None], RIDGE)
        worst = max(worst, float(np.linalg.norm(v - w)) / bounds.sensitivity)
        worst_gram = max(
            worst_gram, abs(float(np.sum(v**2) - np.sum(w**2))) / bounds.gram_sensitivity
        )
    assert worst <= 1.0 and worst_gram <= 1.0, (worst, worst_gram)


def test_the_release_fits_the_records_in_the_permuted_order(sorted_wine):
    """A shuffled file: the release's factor is σ_z‖v + σN‖ with v fitted on the file's
    records in the order of the permutation drawn from the run's own root."""
    y, _, _ = sorted_wine
    shuffled = y[np.random.default_rng(5).permutation(y.size)]
    out = design_release(
        shuffled, "random-seeds", 300, DESIGN_SEED, epsilon=1.0, delta=1e-5, random_state=11
    )
    noise_seq, _, order_seq = np.random.SeedSequence(11).spawn(3)
    order = np.random.Generator(np.random.PCG64(order_seq)).permutation(y.size)
    x = PublicDesign("random-seeds", 300, y.size, DESIGN_SEED).dense()
    v = ridge_fit(x, shuffled[order, None], RIDGE)
    v += out.sigma * np.random.Generator(np.random.PCG64(noise_seq)).standard_normal(v.shape)
    assert abs(float(out._factor[0, 0])) == pytest.approx(
        out.seed_scale * float(np.linalg.norm(v)), rel=1e-9
    )
    # the same seed without the permutation gives another model
    plain = ridge_fit(x, shuffled[:, None], RIDGE)
    plain += out.sigma * np.random.Generator(np.random.PCG64(noise_seq)).standard_normal(v.shape)
    assert abs(float(out._factor[0, 0])) != pytest.approx(
        out.seed_scale * float(np.linalg.norm(plain)), rel=1e-6
    )
    assert out.to_dict()["row_permutation"] == "seeded" and not out.to_dict()["noise_secret"]


def test_unseeded_runs_draw_fresh_permutations_never_from_the_design_seed(monkeypatch):
    from synthamp.report import seed_policy

    drawn = []
    original = _release.row_permutation

    def spy(entropy, n_records):
        order = original(entropy, n_records)
        drawn.append((entropy, order))
        return order

    monkeypatch.setattr(_release, "row_permutation", spy)
    y = np.linspace(-1.0, 1.0, 40)
    first = design_release(y, "random-seeds", 100, DESIGN_SEED, epsilon=1.0, delta=1e-5)
    design_release(y, "random-seeds", 100, DESIGN_SEED, epsilon=1.0, delta=1e-5)
    (root1, order1), (root2, order2) = drawn
    assert not np.array_equal(order1, order2)  # 40! orders: a collision is 1 in 8e47
    for root in (root1, root2):  # a child of an OS-entropy root, not of the design's seed
        assert root.entropy != DESIGN_SEED and root.entropy.bit_length() > 64
    for public in (
        np.random.default_rng(DESIGN_SEED).permutation(40),
        np.random.default_rng([DESIGN_SEED, 0]).permutation(40),
    ):
        assert not np.array_equal(order1, public)
    numbers = first.to_dict()
    assert numbers["row_permutation"] == "secret" and numbers["noise_secret"] is True
    assert numbers["seed_policy"].startswith(seed_policy(False))
    # the permutation is never written: no field of the JSON holds m integers
    assert not any(isinstance(v, list) and len(v) == 40 for v in numbers.values())


def test_random_features_do_not_depend_on_the_order():
    """Each row of a random-features design is its own record's inputs: v is order-free,
    so the release of a shuffled file is the same (same seed) and says so."""
    rng = np.random.default_rng(1)
    inputs = rng.standard_normal((50, 3))
    y = np.tanh(inputs.sum(axis=1))
    shuffle = rng.permutation(50)
    kwargs = dict(epsilon=1.0, delta=1e-5, random_state=4)
    one = design_release(y, "random-features", 200, 3, inputs=inputs, **kwargs)
    two = design_release(y[shuffle], "random-features", 200, 3, inputs=inputs[shuffle], **kwargs)
    assert float(one._factor[0, 0]) == pytest.approx(float(two._factor[0, 0]), rel=1e-9)
    assert one.to_dict()["row_permutation"] == "order-free"


@pytest.mark.parametrize(
    "targets",
    [
        np.array([True, False] * 10),
        np.ma.masked_array(np.linspace(0, 1, 20), mask=[False] * 19 + [True]),
        np.array(["1.0"] * 20),
    ],
    ids=["bool", "masked", "text"],
)
def test_design_release_checks_its_targets_like_the_generator(targets):
    with pytest.raises(InputError, match="targets"):
        design_release(targets, "random-seeds", 50, 1, epsilon=1.0, delta=1e-5)
