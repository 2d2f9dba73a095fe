"""One import name: everything samsa installs lives under ``samsa``, so a user's own ``aligners.py`` or
``parsers.py`` (common names in research folders) cannot shadow part of it."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_a_users_aligners_and_parsers_modules_do_not_break_samsa(tmp_path):
    for name in ("aligners", "parsers"):
        (tmp_path / f"{name}.py").write_text(f"raise RuntimeError('the user\\'s own {name}.py was imported')\n")
    (tmp_path / "script.py").write_text(
        "from samsa import Samsa, corpus_samsa, load_passage\n"
        "import sys\n"
        f"g = load_passage({str(ROOT / 'fixtures/ucca/paper/1_john_home_call.xml')!r})\n"
        "print(corpus_samsa([g], ['John got home. John gave Mary a call.']))\n"
        "print(Samsa(aligner='lemma').aligner.name)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["100.0", "lemma.v1"]


def test_the_distribution_installs_one_top_level_name():
    try:
        dist = metadata.distribution("samsa-metric")
    except metadata.PackageNotFoundError:
        pytest.skip("samsa-metric is not installed (pip install .)")
    top = dist.read_text("top_level.txt")
    if top is None:
        pytest.skip("this installation records no top_level.txt")
    assert top.split() == ["samsa"]
    entry_points = [ep.value for ep in dist.entry_points if ep.group in ("samsa.aligners", "samsa.parsers")]
    assert entry_points and all(v.startswith("samsa.") for v in entry_points)


def test_every_data_file_of_the_package_is_installed():
    """A file beside the modules (weights, their calibrations, the report's assets) reaches a user only if
    ``[tool.setuptools.package-data]`` names it: a fresh install must find every one of them."""
    from fnmatch import fnmatch
    from pathlib import Path

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    root = Path(__file__).resolve().parent.parent
    patterns = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"
    ]
    files = [p for p in (root / "samsa").rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert files
    missing = []
    for f in files:
        rel = f.relative_to(root)
        covered = False
        for package, globs in patterns.items():
            base = Path(*package.split("."))
            if rel.parent == base or base in rel.parents:
                covered |= any(fnmatch(str(rel.relative_to(base)), g) for g in globs)
        missing += [] if covered else [str(rel)]
    assert missing == []
