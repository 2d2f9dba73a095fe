"""Every command example in README.md runs as written, so the README cannot rot.

``console`` blocks: each ``$ command`` runs and its output must equal the lines shown under it.
``bash`` blocks: each block runs as one script (``set -e``); ``python`` blocks run as programs
(their ``assert`` lines are the expected values). They run in a scratch directory laid out as
the checkout (``fixtures/`` beside, ``../shared/data`` the data root), so outputs land there.
``text`` blocks would be templates that need outside infrastructure; the test pins how many there are
(none), so a new one is a deliberate choice.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)


def blocks(kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall((ROOT / "README.md").read_text(encoding="utf-8")) if lang == kind]


def console_examples() -> list[tuple[str, str]]:
    out = []
    for body in blocks("console"):
        for chunk in body.split("$ ")[1:]:
            command, _, expected = chunk.partition("\n")
            out.append((command, expected))
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, data_dir):
    base = tmp_path_factory.mktemp("readme")
    (base / "shared").mkdir()
    (base / "shared" / "data").symlink_to(data_dir.resolve(), target_is_directory=True)
    main = base / "main"
    main.mkdir()
    (main / "fixtures").symlink_to(ROOT / "fixtures", target_is_directory=True)
    return main


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "SAMSA_DATA": "../shared/data",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}  # fmt: skip
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def test_the_readme_has_what_this_test_runs():
    assert len(console_examples()) == 9 and len(blocks("bash")) >= 3 and len(blocks("python")) == 2
    assert len(blocks("text")) == 0  # every example runs here
    assert 'python -m pip install ".[test]"\npython -m pytest\n' in blocks("bash")[0]


@pytest.mark.slow
@pytest.mark.parametrize(("command", "expected"), console_examples(), ids=lambda x: x[:40])
def test_console_examples_print_what_the_readme_shows(command, expected, workdir):
    done = run(["bash", "-o", "pipefail", "-c", command], workdir)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected


@pytest.mark.slow
@pytest.mark.parametrize("script", blocks("bash")[1:], ids=lambda x: x.split("\n")[0][:40])
def test_bash_examples_run(script, workdir):
    done = run(["bash", "-e", "-o", "pipefail", "-c", script], workdir)
    assert done.returncode == 0, f"{script}\n--- stderr ---\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("program", blocks("python"), ids=lambda x: x.split("\n")[0][:40])
def test_python_examples_run(program, workdir):
    done = run([sys.executable, "-c", program], workdir)
    assert done.returncode == 0, done.stderr[-3000:]


def test_ci_runs_the_readme_setup_first_and_verbatim():
    """`.ci/run` runs the README's two set-up commands before anything else is installed or tested."""
    setup = [line for line in blocks("bash")[0].splitlines() if line and not line.startswith("#")][:2]
    assert setup == ['python -m pip install ".[test]"', "python -m pytest"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    commands = [line for line in ci if line.startswith(("python", "pip", "ruff", "mypy"))]
    assert commands[0].startswith("python3 -m venv")  # a fresh environment, and nothing installed before
    assert commands[1:3] == setup
    # the extra the set-up names exists and brings the test runner, ruff and mypy (tomllib is 3.11+: a regex)
    test_extra = re.search(r"^test = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M)
    assert test_extra is not None
    assert {"pytest", "ruff", "mypy"} <= {re.split(r"[<>=\[]", d.strip(' "'))[0] for d in test_extra[1].split(",")}
    assert "ruff check ." in ci and "mypy" in ci
