"""What a release's guarantee rests on: σ calibrated or given, by the guarantee rule.

The accounting step of :class:`synthamp.release._generator.PrivateLinearGenerator` (and so
of ``synthamp release``), on public numbers only (the declared bounds, d, k, m). The rule
and every number are :mod:`synthamp.accountant._guarantee`'s; this module only names the
release's parameters.
"""

from __future__ import annotations

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp.accountant._guarantee import Guarantee, account, calibrate
from synthamp.accountant._releases import SyntheticDataRelease

__all__ = ["ReleaseAccounting", "account_release"]

#: The accounting of a release is its :class:`~synthamp.accountant.Guarantee`.
ReleaseAccounting = Guarantee


def account_release(
    *,
    epsilon: float | None,
    delta: float,
    sigma: float | None,
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None,
    method: str,
    choice: str | None = "rdp",
    time_budget: float | None = DEFAULT_TIME_BUDGET,
) -> Guarantee:
    """Calibrate σ to ``epsilon`` (``sigma`` None) or take ``sigma``; the guarantee by the rule.

    ``choice`` is the accountant (None: the rule of :mod:`synthamp.accountant._guarantee`).
    Nothing here depends on the private data (only on the declared bounds, d, k and m).
    """
    shape = dict(dim=dim, out_dim=out_dim, norm_bound=norm_bound, sensitivity=sensitivity)
    options = dict(method=method, accountant=choice, time_budget=time_budget)
    if sigma is None:
        return calibrate(epsilon, delta, **shape, n_syn=n_syn, **options)
    release = SyntheticDataRelease(**shape, sigma=sigma, n_syn=n_syn)
    return account(release, delta, **options)
