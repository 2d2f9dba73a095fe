"""Every output users see is what revision 2bb279f wrote (tests/golden/outputs.py), within printed precision:
score's table, JSON and per-sentence rows with and without parse uncertainty, cold and warm, one and two workers;
evaluate with -ci and --paired-bs; the report's page; compare-annotations' rows; English and German. The text
around the numbers is exact; each number may differ by one unit in its last printed place (another CPU's BLAS
kernels), and the cases hold under two of the machine's BLAS core types."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
import outputs

from samsa.cli import main

PINNED = outputs.read_pins()
GROUPS = ("en_", "de_", "hsplit_", "de20k_")


def _group(prefix: str) -> list[str]:
    return [n for n in outputs.cases() if n.startswith(prefix)]


def _needs_data(names: list[str]) -> None:
    if any(outputs.cases()[n][1] for n in names) and not outputs._data().is_dir():
        pytest.skip(f"shared data not found at {outputs._data()}")


@pytest.mark.parametrize("prefix", GROUPS)
def test_outputs_are_the_pinned_ones(prefix, tmp_path):
    names = _group(prefix)
    _needs_data(names)
    cache = tmp_path / "cache.sqlite"
    differ = {}
    for name in names:
        argv, _ = outputs.cases()[name]
        found = outputs.differences(PINNED[name], outputs.run_case(name, argv, tmp_path, cache, main))
        if found:
            differ[name] = found[:3]
    assert not differ, f"outputs changed: {differ} (tests/golden/outputs.py says how to see the difference)"


def test_every_case_is_pinned():
    assert set(outputs.cases()) == set(PINNED)


def test_a_last_digit_is_within_printed_precision_and_a_larger_change_is_not():
    assert outputs.close("51.0313", "51.0312") and outputs.close("72.92", "72.93")
    assert not outputs.close("51.0313", "51.0311") and not outputs.close("72.92", "72.94")
    assert outputs.close("72.91666666666667", "72.91666666666664")  # full precision: 1e-9 of the size
    assert not outputs.close("72.91666666666667", "72.91667666666667")
    assert outputs.close("0.3", "0.30000000000000004")
    text = "SAMSA 51.0313 on 2 lines"
    pinned = outputs.pin(text)
    assert outputs.differences(pinned, "SAMSA 51.0312 on 2 lines") == []
    assert outputs.differences(pinned, "SAMSA 51.0313 on 3 lines") == ["the text around the numbers changed"]
    assert outputs.differences(pinned, "SAMSA 51.0320 on 2 lines") == ["number 1: 51.0313 -> 51.0320"]


def _core_types() -> tuple[str, str] | None:
    """The BLAS core type numpy's OpenBLAS runs here, and another this CPU supports; None where neither is known."""
    from threadpoolctl import threadpool_info

    found = [i.get("architecture") for i in threadpool_info() if i.get("internal_api") == "openblas"]
    if not found or platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    other = "Haswell" if " avx2" in flags and found[0] != "Haswell" else "Sandybridge"
    return str(found[0]), other


@pytest.mark.slow
def test_the_golden_cases_hold_under_another_blas_core_type():
    """The default core type runs the cases above; here another (Haswell on an AVX-512 machine) runs them all in a
    child process, where OPENBLAS_CORETYPE takes effect, and must agree with the pins within printed precision."""
    types = _core_types()
    if types is None:
        pytest.skip("numpy's BLAS here is not OpenBLAS on x86-64: no core type to switch to")
    if not outputs._data().is_dir():
        pytest.skip(f"shared data not found at {outputs._data()}")
    env = {**os.environ, "OPENBLAS_CORETYPE": types[1], "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    probe = "from threadpoolctl import threadpool_info as t; import numpy; print(t()[0].get('architecture'))"
    ran = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == types[1], f"OPENBLAS_CORETYPE={types[1]} ran {ran.stdout.strip()}"
    done = subprocess.run(
        [sys.executable, str(Path(outputs.__file__)), "--check"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert f"{len(PINNED)} of {len(PINNED)} cases hold" in done.stdout
