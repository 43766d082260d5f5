"""The ``synthamp`` command line: a thin layer over the library.

Each subcommand lives in its own module of this package and is imported only
when it runs (or when ``--help`` lists it), so ``synthamp divergence`` does not
pay for matplotlib or pandas.

Errors in the user's input exit with code 2 and one line on stderr, without a
traceback, and write nothing.
"""

from __future__ import annotations

import importlib
import sys

import click

from synthamp._validation import InputError
from synthamp._version import __version__

__all__ = ["cli", "main"]

#: Subcommand name -> "module:attribute" (module relative to this package).
COMMANDS: dict[str, str] = {
    "account": "account:account",
    "audit": "audit:audit",
    "bounds": "bounds:bounds",
    "calibrate": "account:calibrate",
    "demo": "release:demo",
    "divergence": "divergence:divergence",
    "figures": "figures:figures",
    "fisher": "divergence:fisher",
    "plan": "plan:plan",
    "release": "release:release",
}


class LazyGroup(click.Group):
    """A click group that imports each subcommand's module on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        module = importlib.import_module(f"{__name__}.{module_name}")
        return getattr(module, attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="synthamp")
def cli() -> None:
    """Differentially private synthetic data from linear generators.

    Exact Rényi-divergence accounting of privacy amplification by synthetic
    data release (Pierquin et al., 2026).
    """


def _flag(param: str) -> str:
    return "--" + param.replace("_", "-")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``synthamp`` console script."""
    try:
        rv = cli.main(args=argv, prog_name="synthamp", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("synthamp: aborted", err=True)
        return 1
    except click.ClickException as exc:
        click.echo(f"synthamp: error: {exc.format_message()}", err=True)
        return 2
    except InputError as exc:
        click.echo(f"synthamp: error: {_flag(exc.param)}: {exc.rule}", err=True)
        return 2
    except BrokenPipeError:
        return 0
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
