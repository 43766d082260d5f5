"""``synthamp release --design``: a generator on a public design, accounted at the Gram level.

Parses nothing and computes nothing: :func:`synthamp.release.design_release` fits,
accounts and perturbs; this module writes its records and its report (JSON, Markdown,
HTML) into the release's transaction and prints the summary.
"""

from __future__ import annotations

import html
import json

import click

from synthamp._validation import InputError, check_integer
from synthamp.cli._common import echo_json

__all__ = ["check_design_options", "release_on_design"]


def check_design_options(design, width, design_seed, sigma, partitions, backend) -> None:
    """The options ``--design`` needs, checked before the table is read."""
    if design is None:
        for name, value in (("width", width), ("design_seed", design_seed)):
            if value is not None:
                raise InputError(name, "applies only with --design")
        return
    if width is None or design_seed is None:
        raise InputError("design", "needs --width D and --design-seed S (a public seed)")
    check_integer("width", width, 1, 10**6)
    check_integer("design_seed", design_seed, 0)
    if sigma is not None:
        raise InputError("sigma", "--design calibrates σ: give --epsilon and --delta")
    if partitions is not None or backend != "local":
        raise InputError("design", "writes one file (no --partitions or --backend dask yet)")


def _markdown(numbers: dict, lines: list[str]) -> str:
    rows = "\n".join(f"| {key} | {value} |" for key, value in numbers.items() if key != "utility")
    body = "\n".join(f"- {line}" for line in lines)
    return f"# Privacy report: public design\n\n{body}\n\n| field | value |\n|---|---|\n{rows}\n"


def _html(lines: list[str]) -> str:
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\"><title>Privacy report: public design</title></head>"
        f"<body><h1>Privacy report: public design</h1><ul>{items}</ul></body></html>\n"
    )


def release_on_design(
    targets, features, *, design, width, design_seed, adjacency, accountant, epsilon, delta,
    ridge, label_bound, seed, n_syn, columns, report_tmps, write_rows,
):  # fmt: skip
    """Fit on the public design, write the records and the reports (temporary names); the
    numbers and summary lines. ``write_rows(chunks) -> int`` streams the records."""
    from synthamp.release import design_release  # heavy: scipy (the accountant)

    released = design_release(
        targets, design, width, design_seed, epsilon=epsilon, delta=delta, ridge=ridge,
        label_bound=label_bound, inputs=features if design == "random-features" else None,
        adjacency=adjacency, accountant=accountant, random_state=seed,
    )  # fmt: skip
    del targets, features
    rows = write_rows(released.iter_samples(n_syn))
    numbers = {**released.to_dict(), "records": rows, "columns": list(columns)}
    lines = released.summary()
    json_path, md_path, html_path = report_tmps
    json_path.write_text(json.dumps(numbers, indent=2), encoding="utf-8")
    md_path.write_text(_markdown(numbers, lines), encoding="utf-8")
    html_path.write_text(_html(lines), encoding="utf-8")
    return numbers, lines


def print_design_summary(numbers: dict, lines: list[str], out_path, as_json: bool) -> None:
    """The terminal summary (or the JSON object) of a design release."""
    if as_json:
        echo_json({**numbers, "written": str(out_path)})
        return
    for line in lines:
        click.echo(line)
    click.echo(f"wrote {numbers['records']:,} records to {out_path}")
