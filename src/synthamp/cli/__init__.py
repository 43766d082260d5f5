"""The ``synthamp`` command line: a thin layer over the library.

Each subcommand lives in its own module of this package and is imported only
when it runs or shows its own help: ``synthamp --help`` lists the commands from
:data:`COMMANDS` (each one's module and one-line help) without importing any, so
listing them loads none of the library (no accountant, scipy or pandas), and
``synthamp divergence`` does not pay for matplotlib or pandas.

Errors in the user's input exit with code 2 and one line on stderr, without a
traceback, and write nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import signal
import sys
import threading
import warnings

import click

from synthamp._validation import InputError, printable
from synthamp._version import __version__
from synthamp.jobs import COMPLETED, PUBLISHED

__all__ = ["cli", "main"]

#: Subcommand name -> ("module:attribute" (module relative to this package), its one-line
#: help). ``--help`` lists these without importing the modules; each line is the first
#: sentence of the command's own help (tests/cli/test_cli_help.py checks that they agree).
COMMANDS: dict[str, tuple[str, str]] = {
    "account": ("account:account", "(ε, δ) guarantee of a synthetic data release, by PLD or RDP."),
    "audit": (
        "audit:audit",
        "Empirical privacy audit: a lower bound on ε next to the accountant's ε.",
    ),
    "bounds": ("bounds:bounds", "Closed-form bounds of the paper on the plateau D_α(VᵀV‖WᵀW)."),
    "calibrate": (
        "account:calibrate",
        "Smallest noise σ whose synthetic data release meets a target (ε, δ).",
    ),
    "demo": (
        "release:demo",
        "Release synthetic data from scikit-learn's diabetes dataset (no download).",
    ),
    "divergence": (
        "divergence:divergence",
        "Exact Rényi divergence D_α(ZV‖ZW) of one pair, k = 1 or 2.",
    ),
    "figures": ("figures:figures", "Regenerate the paper's figures from synthamp's exact numbers."),
    "fisher": (
        "divergence:fisher",
        "Fisher information I(d, θ) of χ²_d(θ²) in θ, with the bounds of Proposition 5.1.",
    ),
    "plan": (
        "plan:plan",
        "Plan a release: C, Δ, σ, noise saved and utility for each λ (and width).",
    ),
    "release": (
        "release:release",
        "Fit a private linear generator on a table and write synthetic records and a "
        "privacy report.",
    ),
}


class LazyGroup(click.Group):
    """A click group that imports each subcommand's module on first use.

    Listing the commands (``synthamp --help``) reads their one-line helps from
    :data:`COMMANDS` and imports none of them.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target[0].split(":")
        module = importlib.import_module(f"{__name__}.{module_name}")
        return getattr(module, attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their one-line helps, as click lays them out, none imported."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [
            (name, click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit))
            for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="synthamp")
def cli() -> None:
    """Differentially private synthetic data from linear generators.

    Exact Rényi-divergence accounting of privacy amplification by synthetic
    data release (Pierquin et al., 2026).
    """


def _flag(param: str) -> str:
    return "--" + param.replace("_", "-")


class Terminated(BaseException):
    """Raised in the main thread when SIGTERM or SIGHUP arrives, so that outputs are cleaned up."""

    @property
    def signum(self) -> int:
        return self.args[0] if self.args else signal.SIGTERM


def _raise_terminated(signum, frame) -> None:
    raise Terminated(signum)


#: Signals handled like SIGTERM (a closed terminal sends SIGHUP).
TERMINATING = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _sigterm_as_exception():
    """Handle SIGTERM and SIGHUP like Ctrl-C: unwind (removing temporary files), then exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _raise_terminated) for signum in TERMINATING}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def _one_line_warnings():
    """Print every Python warning as one line: ``synthamp: warning: message``."""

    def show(message, category, filename, lineno, file=None, line=None):
        text = printable(" ".join(str(message).split()))
        click.echo(f"synthamp: warning: {text}", err=True)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _os_error_line(exc: OSError) -> str:
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{exc.filename}: {reason}" if exc.filename else reason


def _written() -> str:
    """What an interrupted run leaves, truly: nothing, or what its commit published.

    A signal that arrives during a commit waits for it (the commit is finished,
    never undone half-way), so the outputs it published are named; so are those of
    an earlier, killed run whose commit this run completed before its own work.
    """
    completed = ""
    if COMPLETED:
        names = ", ".join(printable(path) for path in COMPLETED)
        completed = f"; an interrupted commit of an earlier run was completed first: {names}"
        COMPLETED.clear()
    if not PUBLISHED:
        return f"no output was written{completed}"
    names = ", ".join(printable(path) for path in PUBLISHED)
    PUBLISHED.clear()
    return f"the commit had begun and was finished first: {names} were published{completed}"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``synthamp`` console script.

    Exit codes: 0 success, 1 interrupted (Ctrl-C), 2 bad input or an output
    that cannot be written (one line, no traceback), 143 terminated (SIGTERM), 129
    terminated (SIGHUP: the terminal closed).
    Interrupted and terminated runs leave no temporary file, and no output unless the
    signal came during the commit (which is then finished; the message says so).
    """
    PUBLISHED.clear()  # what this run publishes, not an earlier call's (tests call main())
    COMPLETED.clear()
    try:
        with _sigterm_as_exception(), _one_line_warnings():
            rv = cli.main(args=argv, prog_name="synthamp", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo(f"synthamp: aborted; {_written()}", err=True)
        return 1
    except Terminated as exc:
        name = signal.Signals(exc.signum).name
        click.echo(f"synthamp: terminated ({name}); {_written()}", err=True)
        return 128 + exc.signum
    except click.ClickException as exc:
        click.echo(f"synthamp: error: {printable(exc.format_message())}", err=True)
        return 2
    except InputError as exc:
        click.echo(f"synthamp: error: {_flag(exc.param)}: {printable(exc.flag_rule)}", err=True)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as exc:  # an output error not attributed to a flag
        click.echo(f"synthamp: error: {printable(_os_error_line(exc))}", err=True)
        return 2
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
