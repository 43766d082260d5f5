"""Names of a package face loaded on first use (PEP 562).

A face (``synthamp``, ``synthamp.release``, ``synthamp.report``) lists its public
names and the private module each comes from; :func:`lazy_attributes` gives the
module-level ``__getattr__`` and ``__dir__`` that import that module when a name
is used (a lookup in ``sys.modules`` after the first), so that importing the face
costs only what it imports eagerly (numpy), not scipy, scikit-learn or pandas.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    face: str,
    sources: Mapping[str, str],
    *,
    public: Iterable[str] = (),
    submodules: Callable[[], Iterable[str]] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package face ``face``.

    Parameters
    ----------
    face : str
        The face's module name (``__name__``).
    sources : mapping of str to str
        Public name -> the module that defines it.
    public : iterable of str, optional
        The face's ``__all__`` (listed by ``dir`` although not loaded yet).
    submodules : callable, optional
        Names of public submodules reachable as ``face.<name>`` (imported on
        first use); None: none are.
    """
    listed = sorted(set(public) | set(sources))

    def __getattr__(name: str) -> Any:
        if name in sources:
            # not cached in the face: the defining module stays the one place a name
            # lives, so a patch of it (a test's monkeypatch) is what every caller sees
            return getattr(importlib.import_module(sources[name]), name)
        if submodules is not None and not name.startswith("_"):
            try:
                return importlib.import_module(f"{face}.{name}")
            except ModuleNotFoundError as error:
                if error.name != f"{face}.{name}":
                    raise
        raise AttributeError(f"module {face!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(listed) | set(submodules() if submodules is not None else ()))

    return __getattr__, __dir__
