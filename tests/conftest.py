"""Shared test fixtures: paths to the hand-written fixtures and to ../shared/data."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def pytest_configure(config: pytest.Config) -> None:
    """Tests never write to the user's parse cache: each run gets its own (tests that need one set their own)."""
    import tempfile

    os.environ["SAMSA_CACHE"] = str(Path(tempfile.mkdtemp(prefix="samsa-test-cache-")) / "parses.sqlite")
    # the data root of test sets (-t) and benchmarks: the shared data, never the user's config file
    os.environ.setdefault("SAMSA_DATA", str(shared_data()))
    os.environ["SAMSA_CONFIG"] = str(Path(tempfile.mkdtemp(prefix="samsa-test-config-")) / "absent.ini")


def shared_data() -> Path:
    """``$SAMSA_DATA`` if set, else ``../shared/data`` beside the project."""
    return Path(os.environ.get("SAMSA_DATA") or ROOT.parent / "shared" / "data")


@pytest.fixture(scope="session")
def chromium() -> tuple[Any, str]:
    """Playwright's sync API and Debian's chromium, for the tests marked ``browser``. Without either they skip,
    with one line saying why; under ``SAMSA_REQUIRE_BROWSER=1`` (set by .ci/run once chromium is installed) they
    fail instead, so that a CI run that passes has run them."""
    missing = None
    try:
        from playwright import sync_api
    except ImportError:
        missing = "Playwright is not installed (the [test] extra)"
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        missing = missing or "Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)"
    if missing is not None:
        if os.environ.get("SAMSA_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{missing}, and SAMSA_REQUIRE_BROWSER=1 asks for the browser tests")
        pytest.skip(missing)
    assert executable is not None
    return sync_api, executable


@pytest.fixture
def fixture_path():
    return lambda name: FIXTURES / name


@pytest.fixture(scope="session")
def data_dir() -> Path:
    d = shared_data()
    if not d.is_dir():
        pytest.skip(f"shared data not found at {d} (set SAMSA_DATA)")
    return d


#: the README's German example: three German-20K train sentences (read from the shared data, never copied into
#: the repository), in the order of fixtures/de_sources.txt
GERMAN_GOLD = ("25421003.xml", "25438025.xml", "25438026.xml")


@pytest.fixture
def german_gold(tmp_path, data_dir) -> Path:
    """A folder holding the gold UCCA of fixtures/de_sources.txt's three sentences, copied from the shared data
    for this test."""
    import shutil

    out = tmp_path / "de_gold"
    out.mkdir()
    for name in GERMAN_GOLD:
        shutil.copy(data_dir / "ucca" / "de20k" / "train" / name, out / name)
    return out


def ucca_fixture_path(name: str) -> Path:
    """A UCCA fixture by short name: ``john_home_call`` -> fixtures/ucca/paper/1_john_home_call.xml."""
    (hit,) = [p for p in (FIXTURES / "ucca").rglob("*.xml") if p.stem == name or p.stem.split("_", 1)[-1] == name]
    return hit


@pytest.fixture
def ucca_path():
    return ucca_fixture_path
