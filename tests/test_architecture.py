"""The architecture rules of docs/architecture.md, checked on the source tree.

The import graph is read from the source with :mod:`ast` (nothing is
imported): every ``import`` and ``from … import`` statement, at module level,
under ``if TYPE_CHECKING`` or inside a function, with relative imports
(``from . import x``) and ``from synthamp.x import y`` resolved to the module
they load (``synthamp.x.y`` when that is a module, ``synthamp.x`` otherwise).
The rules:

* every module stands on a floor (:data:`FLOORS`) and no import goes up;
  imports go down, or sideways between rooms of one floor;
* no cycle among the modules, and none among the packages (rooms): two rooms of one
  floor import each other one way only;
* the command line imports the library through :mod:`synthamp.jobs` only (and the
  foundations);
* a function-local import only of a heavy or optional dependency
  (:data:`HEAVY`), with a comment naming it on that line or the line above (the
  line above a run of imports);
* no source file over :data:`MAX_LINES` lines (``bounds.py`` excepted).

Each checker is a function of a source tree, so the tests at the end also
feed it small synthetic trees that break one rule each: every check can fail.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "synthamp"

#: The floors, lowest first: a room (the first name below ``synthamp``) imports only rooms
#: of its own floor or of floors below. ``synthamp`` itself is the package face, on top.
FLOORS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "foundations",
        frozenset(
            {"_validation", "_parameters", "_kinds", "_version", "_budget", "_lazy", "_output"}
        ),
    ),
    ("engine", frozenset({"divergence"})),
    ("bounds", frozenset({"bounds", "amplification"})),
    ("accounting", frozenset({"accountant"})),
    ("utility", frozenset({"utility"})),
    ("presentation", frozenset({"report"})),
    ("applications", frozenset({"release", "design", "audit", "figures"})),
    ("jobs", frozenset({"jobs"})),
    ("command line", frozenset({"cli", "__main__"})),
    ("package face", frozenset({""})),
)

#: External modules a function may import locally (heavy to import, or optional), each
#: with the words one of which the comment on the import's line or the line above must
#: contain. A synthamp module may be imported locally when importing it loads one of these
#: that the importer does not load already; the comment then names that one.
HEAVY: dict[str, tuple[str, ...]] = {
    "matplotlib": ("matplotlib",),
    "pandas": ("pandas",),
    "pyarrow": ("pyarrow",),
    "sklearn": ("scikit-learn", "sklearn"),
    "rich": ("rich",),
    # scipy as a whole (``import synthamp`` loads numpy only), and its parts one by one
    "scipy": ("scipy",),
    "scipy.special": ("scipy",),
    "scipy.linalg": ("scipy",),
    "scipy.optimize": ("scipy",),
    "scipy.integrate": ("scipy",),
    "scipy.stats": ("scipy",),
    "scipy.fft": ("scipy",),
    "dp_accounting": ("dp-accounting", "dp_accounting"),
    "prv_accountant": ("prv-accountant", "prv_accountant"),
    "dask": ("dask",),
    "distributed": ("dask", "distributed"),
}

#: Prototypes of work waiting for the layout (PROTOCOL.md: ``_wip_<x>.py``) stand outside
#: the floors until they move into their rooms; only the command line and other
#: prototypes may import them.
PROTOTYPE_PREFIX = "_wip_"

#: Longest source file, in lines.
MAX_LINES = 800
#: Files allowed to be longer (the paper's closed-form rulers, section by section).
LONG_FILES = frozenset({"synthamp/bounds.py"})


@dataclass(frozen=True)
class Import:
    """One import statement: who imports what, where, and whether inside a function."""

    importer: str
    target: str
    path: Path
    line: int
    local: bool
    typing_only: bool = False
    #: the module the statement names (``from synthamp.jobs import f``: ``synthamp.jobs``),
    #: before a lazy face's name is followed to the module that defines it
    written: str = ""


def module_name(path: Path, root: Path) -> str:
    """Dotted module name of a source file below ``root`` (a package's ``__init__`` is it)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files(root: Path) -> dict[str, Path]:
    """Every module of the package below ``root``, by dotted name."""
    return {module_name(p, root): p for p in sorted((root / PACKAGE).rglob("*.py"))}


def _resolve(name: str, modules: dict[str, Path]) -> str:
    """The longest prefix of a dotted name that is a module of the tree."""
    parts = name.split(".")
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts)


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _typing_nodes(tree: ast.Module) -> set[ast.AST]:
    """Import statements under ``if TYPE_CHECKING:`` (never executed)."""
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                guarded.update(
                    n for n in ast.walk(child) if isinstance(n, ast.Import | ast.ImportFrom)
                )
    return guarded


def _local_nodes(tree: ast.Module) -> set[ast.AST]:
    """Import statements inside a function body (at any depth)."""
    local = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            local.update(n for n in ast.walk(fn) if isinstance(n, ast.Import | ast.ImportFrom))
    return local


def lazy_names(root: Path) -> dict[tuple[str, str], str]:
    """(face, name) -> the module a lazy package face loads for ``name`` on first use.

    A face (``__init__.py`` using :func:`synthamp._lazy.lazy_attributes`) names, under
    ``if TYPE_CHECKING:``, the module each lazy name comes from; an import of the name
    from the face loads that module (followed through faces that re-export a face).
    """
    modules = source_files(root)
    found: dict[tuple[str, str], str] = {}
    for face, path in modules.items():
        if path.name != "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _typing_nodes(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    found[(face, alias.asname or alias.name)] = _resolve(node.module, modules)
    for key, target in found.items():  # a face re-exporting a face's lazy name
        seen = {key}
        while (target, key[1]) in found and (target, key[1]) not in seen:
            seen.add((target, key[1]))
            target = found[(target, key[1])]
        found[key] = target
    return found


def imports(root: Path) -> list[Import]:
    """Every import statement of the package below ``root``, internal and external.

    Internal targets are resolved to the module they load; external ones are kept as
    written, with the imported name (``from scipy import stats``: ``scipy.stats``;
    ``from matplotlib.ticker import NullLocator``: ``matplotlib.ticker.NullLocator``).
    """
    modules = source_files(root)
    lazy = lazy_names(root)
    found = []
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        local = _local_nodes(tree)
        typing_only = _typing_nodes(tree)
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
                base = ""
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, importer, is_package)
                if base == "__future__":
                    continue
                internal = base == PACKAGE or base.startswith(PACKAGE + ".")
                names = [
                    lazy.get((base, alias.name), base)  # a lazy face loads the name's module
                    if internal and f"{base}.{alias.name}" not in modules
                    else f"{base}.{alias.name}"  # a submodule, or an external name
                    for alias in node.names
                ]
            else:
                continue
            for name in dict.fromkeys(names):
                internal = name == PACKAGE or name.startswith(PACKAGE + ".")
                target = _resolve(name, modules) if internal else name
                written = _resolve(base or name, modules) if internal else name
                found.append(
                    Import(
                        importer,
                        target,
                        path,
                        node.lineno,
                        node in local,
                        node in typing_only,
                        written,
                    )
                )
    return found


def _internal(edges: list[Import]) -> list[Import]:
    return [e for e in edges if e.target == PACKAGE or e.target.startswith(PACKAGE + ".")]


def room(module: str) -> str:
    """The room of a module: its first name below the package ('' for the package face)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def floor(module: str) -> int | None:
    """Index of the floor of a module in :data:`FLOORS`, None if it has none."""
    for index, (_, rooms) in enumerate(FLOORS):
        if room(module) in rooms:
            return index
    return None


def is_prototype(module: str) -> bool:
    return room(module).startswith(PROTOTYPE_PREFIX)


def modules_without_floor(root: Path) -> list[str]:
    return [m for m in source_files(root) if floor(m) is None and not is_prototype(m)]


def upward_imports(root: Path) -> list[str]:
    """Imports from a floor to a higher one (the package face counts as the top)."""
    bad = []
    for e in _internal(imports(root)):
        if is_prototype(e.target) and not (is_prototype(e.importer) or room(e.importer) == "cli"):
            bad.append(f"{e.path.name}:{e.line}: {e.importer} -> {e.target}, a prototype")
        low, high = floor(e.importer), floor(e.target)
        if low is not None and high is not None and high > low:
            bad.append(f"{e.path.name}:{e.line}: {e.importer} -> {e.target} goes up")
    return bad


def cycles(root: Path) -> list[list[str]]:
    """The strongly connected components of more than one module (or a self-import)."""
    graph: dict[str, set[str]] = {m: set() for m in source_files(root)}
    for e in _internal(imports(root)):
        graph[e.importer].add(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm (the graph has a few dozen nodes)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def package_graph(root: Path) -> dict[str, set[str]]:
    """Room -> the other rooms it imports (a room: a package or a module below ``synthamp``).

    The package face (``synthamp`` itself, on top) is left out: it imports every room
    lazily and none imports it.
    """
    graph: dict[str, set[str]] = {room(m): set() for m in source_files(root) if room(m)}
    for e in _internal(imports(root)):
        source, target = room(e.importer), room(e.target)
        if source and target and source != target:
            graph[source].add(target)
    return graph


def package_cycles(root: Path) -> list[list[str]]:
    """The cycles among rooms (packages): the strongly connected components of more than one.

    Two rooms of one floor may import each other's modules without a module cycle
    (``audit._x -> release._y`` and ``release._z -> audit._w``); this finds them.
    """
    graph = package_graph(root)
    reach = {v: _reachable(graph, v) for v in graph}
    found = {tuple(sorted({v} | {w for w in reach[v] if v in reach[w]})) for v in graph}
    return sorted([list(c) for c in found if len(c) > 1])


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for w in graph.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


#: The rooms the command line may import: the jobs (which re-export what it needs) and the
#: foundations (``InputError``, ``printable``, the version, the status callback).
COMMAND_LINE_IMPORTS = frozenset({"jobs"}) | FLOORS[0][1]


def command_line_reaches_past_jobs(root: Path) -> list[str]:
    """Imports of the command line into the library other than :mod:`synthamp.jobs` and
    the foundations (the command line parses, calls one job, serialises): the module the
    statement names, though a lazy face's name loads a module of another room."""
    return [
        f"{e.path.name}:{e.line}: {e.importer} -> {e.written}"
        for e in _internal(imports(root))
        if room(e.importer) in {"cli", "__main__"}
        and room(e.written) not in COMMAND_LINE_IMPORTS | {"cli"}
    ]


def _heavy_key(target: str) -> str | None:
    """The entry of :data:`HEAVY` a module belongs to, the longest that matches.

    ``matplotlib.ticker``: ``matplotlib``; ``scipy.optimize.brentq``: ``scipy.optimize``.
    """
    keys = [name for name in HEAVY if target == name or target.startswith(name + ".")]
    return max(keys, key=len) if keys else None


def _heavy_words(target: str) -> tuple[str, ...] | None:
    key = _heavy_key(target)
    return None if key is None else HEAVY[key]


def _comment(line: str) -> str:
    """The comment of a source line ('' if none); good enough for import lines."""
    match = re.search(r"#(.*)$", line)
    return match.group(1) if match else ""


def loaded_on_import(root: Path) -> dict[str, set[str]]:
    """What importing each module runs: the modules its import loads, external ones included.

    Module-level imports only (not the ones in functions or under ``TYPE_CHECKING``),
    followed through the package's modules; importing ``a.b.c`` first imports ``a`` and
    ``a.b``.
    """
    direct: dict[str, set[str]] = {m: set() for m in source_files(root)}
    for e in imports(root):
        if not (e.local or e.typing_only):
            direct[e.importer].add(e.target)
    for module in direct:
        parts = module.split(".")
        direct[module].update(".".join(parts[:i]) for i in range(1, len(parts)))
    closure: dict[str, set[str]] = {}
    for module in direct:
        seen, todo = set(), [module]
        while todo:
            current = todo.pop()
            for target in direct.get(current, ()):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        closure[module] = seen
    return closure


def bad_local_imports(root: Path) -> list[str]:
    """Function-local imports that load nothing heavy or optional, or do not say which.

    An external target must be in :data:`HEAVY` and not loaded by the module's own
    import already; a synthamp target must load, when
    imported, a module of :data:`HEAVY` that the importing module does not load already.
    The comment on the import's line or just above it (above a run of import lines:
    just above the run; a comment may span several lines) must name it (one of its
    words in :data:`HEAVY`).
    """
    loaded = loaded_on_import(root)
    statements: dict[tuple[Path, int], list[Import]] = {}
    for e in imports(root):
        if e.local and not is_prototype(e.importer):
            statements.setdefault((e.path, e.line), []).append(e)
    bad = []
    lines_of: dict[Path, list[str]] = {}
    for (path, line), group in statements.items():
        importer, targets = group[0].importer, [e.target for e in group]
        where = f"{path.name}:{line}: {importer} imports {', '.join(targets)} in a function"
        words: tuple[str, ...] = ()
        for target in targets:
            if target in loaded:
                extra = ({target} | loaded[target]) - ({importer} | loaded[importer])
                keys = {k for name in extra if (k := _heavy_key(name)) is not None}
            else:
                key = _heavy_key(target)
                keys = set() if key is None else {key}
                if any(_heavy_key(m) in keys for m in loaded[importer]):
                    bad.append(f"{where}, though the module loads {key} already")
                    keys = set()
            words = tuple(dict.fromkeys([*words, *(w for k in sorted(keys) for w in HEAVY[k])]))
        if not words:
            if not bad or not bad[-1].startswith(where):
                bad.append(f"{where}, and it loads nothing heavy or optional")
            continue
        lines = lines_of.setdefault(path, path.read_text(encoding="utf-8").splitlines())
        comments = _comment(lines[line - 1])
        above = line - 2  # the line above, or above a run of import lines
        while above >= 0 and lines[above].lstrip().startswith(("import ", "from ")):
            comments += " " + _comment(lines[above])
            above -= 1
        while above >= 0 and lines[above].lstrip().startswith("#"):  # a comment block
            comments += " " + _comment(lines[above])
            above -= 1
        if not any(word in comments for word in words):
            bad.append(f"{where}; no comment naming {' or '.join(words)}")
    return bad


def long_files(root: Path) -> list[str]:
    """Source files over :data:`MAX_LINES` lines, outside :data:`LONG_FILES`."""
    bad = []
    for path in source_files(root).values():
        name = path.relative_to(root).as_posix()
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MAX_LINES and name not in LONG_FILES:
            bad.append(f"{name}: {count} lines")
    return bad


# --------------------------------------------------------------------------- the real tree


def test_the_source_tree_is_found():
    modules = source_files(SRC)
    assert {"synthamp", "synthamp.divergence", "synthamp.accountant", "synthamp.cli"} <= set(
        modules
    )
    assert len(_internal(imports(SRC))) > 50


#: Known breaches, landed before the architecture test (issue 13 wired its PLD prototypes and
#: the Gaussian profile of the audit into the generator and the HTML report before the layout
#: tag). Each entry is a piece of a finding; the list may only shrink: an entry that no
#: longer matches a finding fails :func:`test_the_known_breaches_are_still_there`, to be
#: deleted. Nothing else may break a rule.
KNOWN_BREACHES: tuple[str, ...] = ()


def _new_breaches(found: list[str]) -> list[str]:
    return [f for f in found if not any(known in f for known in KNOWN_BREACHES)]


def test_every_module_stands_on_a_floor():
    bad = _new_breaches(modules_without_floor(SRC))
    assert not bad, "\n".join(bad)


def test_no_import_goes_up():
    bad = _new_breaches(upward_imports(SRC))
    assert not bad, "\n".join(bad)


def test_no_import_cycle():
    bad = _new_breaches([" <-> ".join(c) for c in cycles(SRC)])
    assert not bad, "\n".join(bad)


def test_no_cycle_between_packages():
    bad = _new_breaches([" <-> ".join(c) for c in package_cycles(SRC)])
    assert not bad, "\n".join(bad)


def test_the_command_line_imports_only_the_jobs_and_the_foundations():
    bad = _new_breaches(command_line_reaches_past_jobs(SRC))
    assert not bad, "\n".join(bad)


def test_the_release_imports_neither_the_designs_nor_the_audit():
    """The two one-way streets of the applications floor: ``design`` uses ``release``'s
    ridge, plan and partitions, the audit uses the generator; never the other way."""
    graph = package_graph(SRC)
    assert "design" not in graph["release"] and "audit" not in graph["release"]
    assert "release" in graph["design"]


def test_function_local_imports_are_heavy_and_say_so():
    bad = _new_breaches(bad_local_imports(SRC))
    assert not bad, "\n".join(bad)


def test_no_source_file_over_800_lines():
    bad = _new_breaches(long_files(SRC))
    assert not bad, "\n".join(bad)


def test_no_known_breach_is_left():
    """The list of breaches that landed before a rule could be met may only shrink; it is
    empty, so any entry added to it fails here (and a stale one would not match a finding)."""
    assert KNOWN_BREACHES == (), KNOWN_BREACHES


def test_nothing_below_imports_the_package_face():
    face = [
        e
        for e in _internal(imports(SRC))
        if e.target == PACKAGE and e.importer != PACKAGE and not is_prototype(e.importer)
    ]
    assert face == []


def test_presentation_imports_no_accountant():
    """The reports render what they are given: no module of ``report`` imports ``accountant``
    (the curves of the HTML page come from the release, ``release._curves``)."""
    edges = [
        f"{e.importer} -> {e.target}"
        for e in _internal(imports(SRC))
        if room(e.importer) == "report" and room(e.target) in {"accountant", "divergence", "bounds"}
    ]
    assert edges == []


def test_the_floors_are_those_of_docs_architecture():
    # the document draws the same floors, lowest first, in its "Floors" section
    text = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for name, rooms in FLOORS:
        assert f"**{name}**" in text, name
        for r in rooms - {""}:
            assert f"`{r}`" in text, r


# --------------------------------------------------------------------------- each check can fail


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A synthetic package ``synthamp`` below ``tmp_path`` with the given files."""
    for name, text in files.items():
        path = tmp_path / PACKAGE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for directory in {p.parent for p in (tmp_path / PACKAGE).rglob("*.py")}:
        (directory / "__init__.py").touch()
    return tmp_path


def test_imports_resolve_relative_and_from_package_forms(tmp_path):
    root = _tree(
        tmp_path,
        {
            "divergence/_kernel.py": "X = 1\n",
            "divergence/_plateau.py": "from . import _kernel\nfrom ._kernel import X\n",
            "divergence/__init__.py": "from synthamp.divergence._plateau import X\n",
            "bounds.py": "from synthamp import divergence\nimport synthamp.divergence._kernel\n",
            "accountant/_releases.py": "from ..divergence import _kernel\n",
            "audit.py": "def f():\n    from synthamp.bounds import g\n",
        },
    )
    edges = {(e.importer, e.target, e.local) for e in _internal(imports(root))}
    assert ("synthamp.divergence._plateau", "synthamp.divergence._kernel", False) in edges
    assert ("synthamp.divergence", "synthamp.divergence._plateau", False) in edges
    assert ("synthamp.bounds", "synthamp.divergence", False) in edges
    assert ("synthamp.bounds", "synthamp.divergence._kernel", False) in edges
    assert ("synthamp.accountant._releases", "synthamp.divergence._kernel", False) in edges
    assert ("synthamp.audit", "synthamp.bounds", True) in edges


def test_an_upward_import_is_found(tmp_path):
    root = _tree(tmp_path, {"divergence.py": "def f():\n    from synthamp import accountant\n"})
    (root / PACKAGE / "accountant.py").write_text("", encoding="utf-8")
    found = upward_imports(root)
    assert len(found) == 1 and "synthamp.divergence -> synthamp.accountant" in found[0]


def test_importing_the_face_from_below_goes_up(tmp_path):
    root = _tree(tmp_path, {"_validation.py": "from synthamp import __version__\n"})
    assert len(upward_imports(root)) == 1


def test_a_module_off_the_floors_is_found(tmp_path):
    root = _tree(tmp_path, {"newthing.py": "", "bounds.py": ""})
    assert modules_without_floor(root) == ["synthamp.newthing"]


def test_prototypes_stand_outside_the_floors_and_only_the_cli_imports_them(tmp_path):
    root = _tree(
        tmp_path,
        {
            "_wip_thing.py": "import scipy.special\ndef f():\n    from synthamp import release\n",
            "release.py": "",
            "bounds.py": "from synthamp import _wip_thing\n",
            "cli/bounds.py": "def run():\n    from synthamp import _wip_thing  # scipy\n",
        },
    )
    assert modules_without_floor(root) == []
    assert bad_local_imports(root) == []
    found = upward_imports(root)
    assert len(found) == 1 and "synthamp.bounds -> synthamp._wip_thing, a prototype" in found[0]


def test_a_cycle_is_found_even_through_a_local_import(tmp_path):
    root = _tree(
        tmp_path,
        {
            "divergence/__init__.py": "from synthamp.divergence._finite import g\n",
            "divergence/_finite.py": "def g():\n    from synthamp.divergence import h\n",
            "bounds.py": "from synthamp import divergence\n",
        },
    )
    assert cycles(root) == [["synthamp.divergence", "synthamp.divergence._finite"]]


def test_a_cycle_between_packages_is_found_without_a_module_cycle(tmp_path):
    # the audit ⇄ release shape: each package imports another module of the other
    root = _tree(
        tmp_path,
        {
            "release/_pipeline.py": "def job():\n    from synthamp.audit import _release\n",
            "release/_io.py": "",
            "audit/_release.py": "",
            "audit/_summary.py": "from synthamp.release import _io\n",
            "bounds.py": "",
        },
    )
    assert cycles(root) == []
    assert upward_imports(root) == []
    assert package_cycles(root) == [["audit", "release"]]


def test_the_command_line_importing_past_the_jobs_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "cli/account.py": (
                "from synthamp._validation import InputError\n"
                "from synthamp.jobs import account_summary\n"
                "from synthamp.accountant import METHODS\n"
            ),
            "jobs/__init__.py": "account_summary = 1\n",
            "accountant.py": "METHODS = ()\n",
            "_validation.py": "",
        },
    )
    found = command_line_reaches_past_jobs(root)
    assert len(found) == 1 and "synthamp.cli.account -> synthamp.accountant" in found[0]


def test_the_jobs_floor_stands_between_the_applications_and_the_command_line():
    assert floor("synthamp.release._ridge") < floor("synthamp.jobs._demo") < floor("synthamp.cli")
    assert floor("synthamp.design._release") == floor("synthamp.release._ridge")
    assert floor("synthamp._output._io") == floor("synthamp._validation") == 0


def test_an_application_importing_a_job_goes_up(tmp_path):
    root = _tree(
        tmp_path,
        {
            "jobs/_demo.py": "",
            "release/__init__.py": "from synthamp.jobs import _demo\n",
            "_output/_io.py": "from synthamp.release import x\n",
        },
    )
    found = upward_imports(root)
    assert len(found) == 2
    assert any("synthamp.release -> synthamp.jobs._demo goes up" in f for f in found)
    assert any("synthamp._output._io -> synthamp.release goes up" in f for f in found)


def test_local_imports_need_a_heavy_target_and_a_comment(tmp_path):
    root = _tree(
        tmp_path,
        {
            "figures.py": (
                "def plot():\n"
                "    # matplotlib is heavy,\n"
                "    # (a comment of two lines)\n"
                "    import matplotlib\n"
                "    import pandas  # pandas: heavy\n"
                "    import pandas.io  # covered by the comment above the run\n"
                "    import pyarrow  # heavy\n"
                "    import numpy  # numpy\n"
                "    import sklearn.exceptions  # scikit-learn\n"
                "    from synthamp import bounds\n"
            ),
            "bounds.py": "",
        },
    )
    (root / PACKAGE / "figures.py").write_text(
        "import sklearn.base\n" + (root / PACKAGE / "figures.py").read_text(encoding="utf-8")
    )
    found = bad_local_imports(root)
    assert len(found) == 4
    assert (
        ":8:" in found[0]
        and "imports pyarrow" in found[0]
        and "no comment naming pyarrow" in found[0]
    )
    assert "imports numpy" in found[1] and "nothing heavy" in found[1]
    assert "imports sklearn.exceptions" in found[2] and "loads sklearn already" in found[2]
    assert "imports synthamp.bounds" in found[3] and "nothing heavy" in found[3]


def test_a_local_import_of_a_synthamp_module_is_heavy_only_if_it_loads_more(tmp_path):
    root = _tree(
        tmp_path,
        {
            "release.py": "import sklearn\n",
            "accountant.py": "from scipy import optimize\n",
            "cli/account.py": (
                "from synthamp import accountant\n"
                "def run():\n"
                "    from synthamp import release  # scikit-learn is heavy\n"
                "    from synthamp.accountant import x  # scipy.optimize is heavy\n"
                "    # loads the generator\n"
                "    from synthamp.release import y\n"
            ),
        },
    )
    found = bad_local_imports(root)
    assert len(found) == 2
    assert ":4:" in found[0] and "synthamp.accountant" in found[0] and "nothing heavy" in found[0]
    assert ":6:" in found[1] and "no comment naming scikit-learn" in found[1]


def test_a_lazy_face_loads_the_module_of_the_name_imported(tmp_path):
    root = _tree(
        tmp_path,
        {
            "release/__init__.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from synthamp.release._generator import Gen\n"
                "    from synthamp.release._ridge import fit\n"
            ),
            "release/_generator.py": "import sklearn\n",
            "release/_ridge.py": "",
            "cli/release.py": (
                "def run():\n"
                "    from synthamp.release import Gen  # scikit-learn\n"
                "    from synthamp.release import fit  # scikit-learn\n"
            ),
        },
    )
    found = bad_local_imports(root)
    assert len(found) == 1 and ":3:" in found[0] and "synthamp.release._ridge" in found[0]
    targets = {e.target for e in imports(root) if e.importer == "synthamp.cli.release"}
    assert targets == {"synthamp.release._generator", "synthamp.release._ridge"}


def test_the_lazy_faces_load_what_they_declare():
    # the static reading above (TYPE_CHECKING names) is what the faces do at run time
    import importlib

    for (face, name), module in lazy_names(SRC).items():
        loaded = importlib.import_module(face)
        if name in getattr(loaded, "_SOURCES", getattr(loaded, "_LAZY", {})):
            value = getattr(loaded, name)
            assert getattr(importlib.import_module(module), name) is value, (face, name)


def test_from_imports_of_external_submodules_are_seen(tmp_path):
    root = _tree(
        tmp_path,
        {
            "audit.py": "from scipy import special, stats\n",
            "cli/audit.py": "def run():\n    from synthamp import audit\n",
        },
    )
    assert "scipy.stats" in loaded_on_import(root)["synthamp.audit"]
    found = bad_local_imports(root)
    assert len(found) == 1 and "no comment naming scipy" in found[0]


def test_type_checking_imports_load_nothing(tmp_path):
    root = _tree(
        tmp_path,
        {
            "figures.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import matplotlib\n"
            ),
        },
    )
    assert "matplotlib" not in loaded_on_import(root)["synthamp.figures"]
    assert "typing.TYPE_CHECKING" in loaded_on_import(root)["synthamp.figures"]


def test_a_long_file_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {"audit.py": "x = 1\n" * (MAX_LINES + 1), "bounds.py": "x = 1\n" * (MAX_LINES + 1)},
    )
    assert long_files(root) == [f"synthamp/audit.py: {MAX_LINES + 1} lines"]


@pytest.mark.parametrize("module", ["synthamp.cli.account", "synthamp.__main__", "synthamp"])
def test_floor_order_puts_the_command_line_and_face_on_top(module):
    assert floor(module) > floor("synthamp.release._generator") > floor("synthamp.accountant")
