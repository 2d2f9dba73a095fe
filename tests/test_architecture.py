"""The package's shape: each folder a layer that imports only from itself and the layers below it, no import
cycle between modules (imports inside functions included), no module over 400 lines (docs/architecture.md), and
no module the README's test command collects that imports an optional extra at its top level."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "samsa"
MAX_LINES = 400


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The samsa module an import names (a package's ``__init__`` when the name is a package)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(path: Path, known: dict[str, Path], type_only: bool = False) -> set[str]:
    """Every samsa module ``path`` imports, at module level or inside functions (under ``TYPE_CHECKING`` too when
    ``type_only``)."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):  # emptied before the walk below, which would otherwise have queued their bodies
        if not type_only and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            targets = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            if t.split(".")[0] == "samsa":
                hit = resolve(t, known)
                if hit and hit != me and not (hit == "samsa" and t != "samsa"):
                    out.add(hit)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (networkx's)."""
    import networkx as nx

    g = nx.DiGraph([(v, w) for v, ws in graph.items() for w in ws])
    return sorted(sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1)


def import_graph(type_only: bool = False) -> dict[str, set[str]]:
    known = modules()
    # a package's __init__ is not an edge to its own modules' importers: 'from samsa.x import y' names module y
    return {name: imports(path, known, type_only) for name, path in known.items()}


#: the layers, bottom up: a module may import from its own layer and the ones before it (samsa/*.py are the
#: foundation; __main__ is the command line's)
LAYERS = ("foundation", "ucca", "aligners", "parsers", "scoring", "lexical", "engine", "studies", "report",
          "annotate", "cli", "easse")  # fmt: skip


def layer(module: str) -> str:
    if module == "samsa.__main__":
        return "cli"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "foundation"


def test_every_import_goes_down_the_layers():
    upward = [f"{src} -> {dst}" for src, dsts in import_graph().items() for dst in dsts
              if LAYERS.index(layer(dst)) > LAYERS.index(layer(src))]  # fmt: skip
    assert upward == []


def test_no_import_cycle():
    """Type-only imports count: a module that types another's private class is tied to it all the same."""
    assert cycles(import_graph(type_only=True)) == []


#: the package's size (samsa/, .py lines) and the README's: a feature is added by deleting elsewhere. 21,000 after
#: the clean-up that set the guard, and 500 for a capability no deletion could pay for: the multilingual encoder's
#: reader and French (samsa/parsers/builtin/e5.py, samsa/french.py, samsa/lexical/readability_fr.py and their wiring),
#: and 10 for spaCy's French tokenizer and splitter beside the rules (the language modules' wrappers in text.py went)
MAX_PACKAGE_LINES = 21_510
MAX_README_LINES = 280


def test_the_package_and_the_readme_stay_lean():
    package = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.rglob("*.py"))
    readme = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert (package <= MAX_PACKAGE_LINES, readme < MAX_README_LINES) == (True, True), (package, readme)


def test_no_module_over_400_lines():
    long = {module_name(p): n for p in PACKAGE.rglob("*.py") if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def top_level_imports(path: Path) -> set[str]:
    """The top-level package names ``path`` imports at module level (relative imports aside)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_modules_that_import_an_extra_are_left_out_of_the_doctest_run(pytestconfig):
    """Without the extra, collecting such a module would fail the README's `python -m pytest`."""
    from samsa.cli import EXTRAS

    addopts = pytestconfig.getini("addopts")
    ignored = {a.removeprefix("--ignore=") for a in addopts if a.startswith("--ignore=")}
    collected = [p for folder in (PACKAGE, ROOT / "lab") for p in folder.rglob("*.py")]
    needing = {p.relative_to(ROOT).as_posix() for p in collected if top_level_imports(p) & set(EXTRAS)}
    assert needing == ignored == {"lab/train.py", "lab/train_start.py", "lab/model.py", "lab/encoder_torch.py"}
    assert {"samsa", "lab"} <= set(pytestconfig.getini("testpaths")) and "--doctest-modules" in addopts


def test_the_wheel_holds_what_users_run_and_not_the_lab():
    """The installed package (setuptools' find of ``samsa*``) has no training, packing or study module that
    chooses samsa's parts (they live in ``lab/``, run from a checkout), and nothing installed names the
    developers' data folder (users have their own data root)."""
    from setuptools import find_packages

    packages = find_packages(str(ROOT), include=["samsa", "samsa.*"])
    installed = sorted(module_name(p) for p in PACKAGE.rglob("*.py") if module_name(p).rpartition(".")[0] in packages
                       or module_name(p) in packages)  # fmt: skip
    assert "lab" not in find_packages(str(ROOT), include=["samsa", "samsa.*"])
    lab_names = {"train", "train_options", "train_start", "model", "encoder_torch", "pack", "annotations", "corpora",
                 "scene_bias", "validity", "agreement", "documents"}  # fmt: skip
    assert [m for m in installed if m.rpartition(".")[2] in lab_names and not m.startswith("samsa.engine")] == []
    assert sorted(m.rpartition(".")[2] for m in installed if m.startswith("samsa.studies.")) == [
        "compare", "correlation", "hsplit", "human", "reproduce"]  # fmt: skip
    assert [m for m in installed if "../shared/data" in modules()[m].read_text(encoding="utf-8")] == []


#: the longest a function of the package may be, argparse declarations (``add_parser``) aside
MAX_FUNCTION_LINES = 80


def test_no_function_over_80_lines():
    long = {}
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name != "add_parser":
                n = (node.end_lineno or node.lineno) - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long[f"{name}.{node.name}"] = n
    assert long == {}


def _takes_namespace(fn: ast.FunctionDef) -> list[str]:
    """The parameters of ``fn`` annotated as an argparse Namespace."""
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    return [a.arg for a in args if a.annotation is not None and "Namespace" in ast.unparse(a.annotation)]


def test_commands_own_their_arguments():
    """No function in samsa/cli/ below a command's ``run`` (or ``add_parser``) takes the argparse Namespace, and
    nothing assigns to it: each command turns it into typed values once, in its ``run`` (options shared by several
    commands are read by the ``from_args`` of the typed value that their ``add_*`` declares). argparse's own protocol
    (an ``Action``'s ``__call__``, which stores what it parses) is argparse's, not ours."""
    takers, writes = [], []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        actions = {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef) and any("Action" in ast.unparse(b) for b in n.bases)
        }
        methods = {id(f): c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            names = _takes_namespace(fn)
            if not names or methods.get(id(fn)) in actions:
                continue
            if fn.name not in ("run", "add_parser", "from_args", "from_options"):
                takers.append(f"{path.name}:{fn.name}")
            for node in ast.walk(fn):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                    node, (ast.AugAssign, ast.AnnAssign)) else []  # fmt: skip
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id in names:
                        writes.append(f"{path.name}:{fn.lineno}: {ast.unparse(t)}")
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr" and node.args:
                    if isinstance(node.args[0], ast.Name) and node.args[0].id in names:
                        writes.append(f"{path.name}:{node.lineno}: setattr")
    assert takers == [] and writes == []


def test_language_codes_live_in_the_language_table():
    """A language code is written only in the language table, the tokenizer registries, the test-set data and the
    report page's ``<html lang>``: a third language is an entry of the table and its resources."""
    import re

    allowed = {"samsa/languages.py", "samsa/normalize.py", "samsa/text.py", "samsa/testsets.py", "samsa/report/html.py"}
    code = re.compile(r"[\"'](de|en)[\"']")
    found = sorted(
        f"{p.relative_to(ROOT).as_posix()}:{k}"
        for p in PACKAGE.rglob("*.py")
        for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if code.search(line) and p.relative_to(ROOT).as_posix() not in allowed
    )
    assert found == []
