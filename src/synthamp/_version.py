"""The version of synthamp, in one place.

A foundation module: the package face (``synthamp/__init__.py``), the
command line and the privacy report read it from here, so that nothing inside
the package imports the package face from below.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
