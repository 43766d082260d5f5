"""Export a release to other accountants: dp_accounting's PLD and prv_accountant's PRV.

Users compose a synthetic data release with other mechanisms (DP-SGD,
Gaussian queries) in the accountant they already use. Both exports carry
the same dominating pair as synthamp's PLD accountant (docs/theory.md §14;
:mod:`synthamp.accountant._pld`):

* :func:`to_dp_accounting_pld` builds a ``dp_accounting.pld.PrivacyLossDistribution``
  from the two directed profiles of the worst pair on the grid ε_i = i·h by
  dp_accounting's own ``pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap``
  (pessimistic; ``pmf_remove`` and ``pmf_add`` kept apart), composed over the
  release's T; it composes with ``from_gaussian_mechanism(...)`` of the same
  ``value_discretization_interval``.
* a k ≥ 2 release on a public design (:class:`PublicDesignRelease`) exports the
  orthogonal node's PLD at width d − k and c* (docs/theory.md §20) to dp_accounting;
* :func:`to_prv` returns a ``prv_accountant.PrivacyRandomVariable`` whose cdf is
  the privacy loss of one direction (remove or add) of the worst pair (module
  docstring of :class:`SyntheticReleasePRV`); a k ≥ 2 release on a public design
  returns the *two* PRVs of its orthogonal node, the remove and the add direction of
  the k = 1 pair (χ²_{d−k}(c*²/σ²), χ²_{d−k}(0)): one run of the node's privacy loss
  is one draw of each (docs/theory.md §20, "The orthogonal node"), so prv_accountant
  composes the two, T times each.

Both need optional packages: ``pip install 'synthamp[export]'``.
"""

from __future__ import annotations

import importlib

import numpy as np

from synthamp._parameters import validated
from synthamp._validation import InputError
from synthamp.accountant._angle_reduction import _orthogonal_node_pld
from synthamp.accountant._k_certificate import PublicDesignRelease
from synthamp.accountant._pld import DEFAULT_DISCRETIZATION
from synthamp.accountant._pld_grid import SubsampledGaussianRelease, directed_grid
from synthamp.accountant._profile import DEFAULT_TAIL, _WorstCase
from synthamp.accountant._releases import GaussianRelease, SyntheticDataRelease

__all__ = ["MissingExtraError", "to_dp_accounting_pld", "to_prv"]


class MissingExtraError(ImportError):
    """An optional dependency is missing; the message names the extra to install."""


def _require(module: str, package: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"{package} is not installed: pip install 'synthamp[export]' (or pip install {package})"
        ) from None


def to_dp_accounting_pld(
    release: SyntheticDataRelease
    | GaussianRelease
    | SubsampledGaussianRelease
    | PublicDesignRelease,
    *,
    discretization: float = DEFAULT_DISCRETIZATION,
    tail: float = DEFAULT_TAIL,
    swapped: bool = False,
):
    """The release as a ``dp_accounting.pld.PrivacyLossDistribution`` (pessimistic).

    Both directions are carried: ``pmf_remove`` and ``pmf_add`` are
    dp_accounting's connect-the-dots of the two directed profiles
    (:mod:`synthamp.accountant._pld_grid`), composed apart over the release's
    T (the same adjacent pair in every run; for a k = 1 release the worst pair,
    guarded for every T, or the directed envelope of the scan after a
    fallback).

    Which direction of a synthetic data release goes with an added record
    depends on the data. Composed with symmetric mechanisms (Gaussian, or
    other releases alone) one export suffices; composed with an asymmetric one
    (a subsampled Gaussian), compose both ``swapped=False`` and
    ``swapped=True`` exports and take the larger ε (as
    :func:`synthamp.accountant.compute_epsilon_pld` does).

    Parameters
    ----------
    release : SyntheticDataRelease, GaussianRelease, SubsampledGaussianRelease, PublicDesignRelease
        Composed over its ``releases`` (dp_accounting's ``self_compose``). A k ≥ 2
        release on a public design exports its orthogonal node's PLD (docs/theory.md
        §20; the post-processing bound is the Gaussian release with Δ).
    discretization : float, default 1e-4
        dp_accounting's ``value_discretization_interval``; compose only with
        PLDs of the same value.
    swapped : bool, default False
        Exchange remove and add (the release's other orientation).

    Returns
    -------
    dp_accounting.pld.PrivacyLossDistribution
    """
    pld_module = _require("dp_accounting.pld.privacy_loss_distribution", "dp-accounting")
    pld_pmf = _require("dp_accounting.pld.pld_pmf", "dp-accounting")
    h, tail = validated(discretization=discretization, tail=tail)
    if isinstance(release, PublicDesignRelease):
        return _design_release_pld(release, h, tail, pld_module, pld_pmf)
    # the thresholds of the native accountant's (companion=True): the same curves, the same ε
    grid = directed_grid(release, h, tail, companion=True)
    lo = grid.lower

    def pmf(upper):
        return pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(
            h, lo, lo + upper.size - 1, upper
        )

    remove, add = pmf(grid.remove_upper), pmf(grid.add_upper)
    if swapped:
        remove, add = add, remove
    pld = pld_module.PrivacyLossDistribution(remove, add)
    return pld.self_compose(release.releases) if release.releases > 1 else pld


def _design_release_pld(release: PublicDesignRelease, h: float, tail: float, pld_module, pld_pmf):
    """A k ≥ 2 release on a public design: the orthogonal node's PLD (the angle theorem of
    docs/theory.md §20; symmetric, so ``swapped`` changes nothing), as dp_accounting's
    pessimistic dense PMF of synthamp's pessimistic masses, composed over T."""
    amp = release.canonical_norm / release.sigma
    node = _orthogonal_node_pld(release.dim - release.out_dim, amp, 1, h, tail).remove
    pmf = pld_pmf.DensePLDPmf(h, node.lower, node.probs, node.infinity_mass, True)
    pld = pld_module.PrivacyLossDistribution(pmf, pmf)
    return pld.self_compose(release.releases) if release.releases > 1 else pld


def to_prv(
    release: SyntheticDataRelease
    | GaussianRelease
    | SubsampledGaussianRelease
    | PublicDesignRelease,
    direction: str = "remove",
):
    """The release (one run, one direction) as a ``prv_accountant.PrivacyRandomVariable``.

    prv_accountant holds one privacy random variable per mechanism, so each
    direction is exported apart: compose the ``"remove"`` ones and the
    ``"add"`` ones separately and take the larger ε (the two are equal for a
    Gaussian mechanism and a k > 1 release, whose pairs are symmetric).
    Gaussian mechanisms and k > 1 releases (post-processing with Δ_eff) map to
    prv_accountant's own classes; a k = 1 synthetic data release to
    :class:`SyntheticReleasePRV`, whose worst pair must pass the guard for
    every T (:mod:`synthamp.accountant._pld_grid`; else use the PLD export).
    Compose T runs in prv_accountant (``max_self_compositions``).

    A k ≥ 2 release on a public design (:class:`PublicDesignRelease`) returns a
    *tuple* ``(remove, add)`` of two PRVs: its guarantee's pair, the orthogonal node at
    width d − k and c* (docs/theory.md §20), is the k = 1 pair (χ²_{d−k}(c*²/σ²),
    χ²_{d−k}(0)) composed with its reverse, so one run's privacy loss is the sum of one
    draw of the k = 1 remove direction and one of its add direction. Give both to
    ``PRVAccountant(prvs=[remove, add], max_self_compositions=[T, T], ...)`` and compose
    them T times each. The node is symmetric (its two directions are the same law), so
    ``direction`` changes nothing there. Its guarantee is the smaller of this and
    post-processing (``GaussianRelease(release.sensitivity, σ)``): account the two
    compositions apart and take the smaller ε.
    """
    prv = _require("prv_accountant", "prv-accountant")
    if direction not in ("remove", "add"):
        raise InputError("direction", f"must be 'remove' or 'add', got {direction!r}")
    if isinstance(release, SubsampledGaussianRelease):
        if direction == "add":
            raise InputError(
                "direction", "prv_accountant's subsampled Gaussian is its remove direction only"
            )
        return prv.PoissonSubsampledGaussianMechanism(
            release.sampling_probability, release.sigma / release.sensitivity
        )
    if isinstance(release, GaussianRelease):
        return prv.GaussianMechanism(release.sigma / release.sensitivity)
    if isinstance(release, PublicDesignRelease):
        cls = _synthetic_prv_class(prv)
        node = _node_release(release)
        return cls(node, "remove"), cls(node, "add")
    if not isinstance(release, SyntheticDataRelease):
        raise InputError("release", f"must be a release or Gaussian mechanism, got {release!r}")
    if release.out_dim > 1:
        return prv.GaussianMechanism(release.sigma / release.effective_sensitivity)
    return _synthetic_prv_class(prv)(release, direction)


def _node_release(release: PublicDesignRelease) -> SyntheticDataRelease:
    """The k = 1 release whose worst pair is the node's: width d − k, C = Δ = c* (Δ >= C,
    so the worst pairs are the points (c*, 0) and (0, c*): exact, no guard)."""
    width, c = release.dim - release.out_dim, release.canonical_norm
    return SyntheticDataRelease(width, 1, c, c, release.sigma)


def _synthetic_prv_class(prv):
    class SyntheticReleasePRV(prv.PrivacyRandomVariable):
        """Privacy loss of one direction of the worst pair of a k = 1 release.

        With the worst pair (P_hi, P_lo) (the forward endpoint, guarded for
        every T as in :mod:`synthamp.accountant._pld_grid`) and x_ℓ the
        threshold where L = log p_hi/p_lo equals ℓ: *remove* is L under P_hi,
        P(L > t) = P_hi(T > x_t); *add* is −L under P_lo,
        P(−L > t) = P_lo(T <= x_{−t}). The cdf is interpolated (linearly in
        log-probability) between thresholds resolved to 1e-7 in ε. ``rdp`` is
        the post-processing bound αΔ_eff²/(2σ²), an upper bound that
        prv_accountant uses to size its domain.
        """

        def __init__(self, release: SyntheticDataRelease, direction: str = "remove"):
            self.release, self.direction = release, direction
            if directed_grid(release, 1e-3, DEFAULT_TAIL).fallback:
                raise NotImplementedError(
                    "a guard fired: the worst case is not the endpoint pair; use the PLD export"
                )
            worst = _WorstCase(release, 1e-7, DEFAULT_TAIL)
            v = worst.endpoint.values
            order = np.argsort(v["loss"], kind="stable")
            loss = v["loss"][order]
            keep = np.concatenate([[True], np.diff(loss) > 0])
            self._loss = loss[keep]
            self._log_up_hi = v["up_hi"][order][keep]  # log P_hi(T > x)
            self._log_low_lo = v["low_lo"][order][keep]  # log P_lo(T <= x)

        def _log_survival(self, t):
            """log P(loss > t) of the direction."""
            t = np.asarray(t, dtype=float)
            if self.direction == "remove":
                return np.interp(t, self._loss, self._log_up_hi, left=0.0, right=-np.inf)
            return np.interp(-t, self._loss, self._log_low_lo, left=-np.inf, right=0.0)

        def cdf(self, t):
            return -np.expm1(self._log_survival(t))

        def rdp(self, alpha: float) -> float:
            s = self.release.effective_sensitivity / self.release.sigma
            return float(alpha * s * s / 2.0)

    return SyntheticReleasePRV
