"""Fresh virtualenvs on each Python version: install time, installed size, no CUDA/torch, the README's example.

Usage:
    python benchmarks/install_size.py [--pythons python3.10 python3.11 python3.12 python3.13]
                                      [--with tokenizers onnxruntime ...]

For each interpreter: ``python -m venv`` in a temporary directory, ``pip install .``
(this checkout, default dependencies only) timed, the virtualenv's size on disk,
whether any ``nvidia-*`` / ``torch`` / CUDA distribution was installed, and the
README's main example (``samsa score --source fixtures/paper_sources.txt
--system fixtures/paper_outputs.txt --format json``) with its SAMSA numbers;
the size each of ``DEPENDENCIES`` takes in it; and, with ``--with``, what each
candidate dependency (with its own dependencies) would add, installed after the
others one at a time.
Needs network access to the package index. Writes
``benchmarks/results/install_size.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _data import write_json

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("nvidia-", "torch", "triton", "cuda")
#: dependencies whose installed size is reported (the ones a library replaced hand-written code with)
DEPENDENCIES = ("safetensors", "platformdirs")


def dist_mb(py: str, names: tuple[str, ...]) -> dict[str, float]:
    """The installed files of each distribution, in MB (from its RECORD)."""
    code = (
        "import json, sys\nfrom importlib.metadata import distribution\nout = {}\n"
        "for n in sys.argv[1:]:\n    d = distribution(n)\n"
        "    out[n] = round(sum(f.size or 0 for f in d.files or []) / 2**20, 2)\nprint(json.dumps(out))"
    )
    return json.loads(subprocess.run([py, "-c", code, *names], capture_output=True, text=True, check=True).stdout)


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def one(python: str, candidates: list[str]) -> dict[str, object]:
    exe = shutil.which(python)
    if exe is None:
        return {"python": python, "error": "not found"}
    with tempfile.TemporaryDirectory(prefix="samsa-venv-") as tmp:
        env_dir = Path(tmp) / "venv"
        subprocess.run([exe, "-m", "venv", str(env_dir)], check=True)
        bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
        py = str(bin_dir / "python")
        version = subprocess.run([py, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                                 text=True, check=True).stdout.strip()  # fmt: skip
        start = time.perf_counter()
        inst = subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               "--no-cache-dir", str(ROOT)], capture_output=True, text=True)  # fmt: skip
        seconds = time.perf_counter() - start
        if inst.returncode:
            return {"python": version, "error": inst.stderr[-2000:]}
        frozen = subprocess.run([py, "-m", "pip", "freeze"], capture_output=True, text=True, check=True).stdout
        heavy = [line for line in frozen.splitlines() if line.lower().startswith(HEAVY)]
        cmd = [str(bin_dir / "samsa"), "score", "--source", "fixtures/paper_sources.txt", "--system",
               "fixtures/paper_outputs.txt", "--format", "json", "--no-cache", "--quiet"]  # fmt: skip
        run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        example = json.loads(run.stdout) if run.returncode == 0 else {"error": run.stderr[-1000:]}
        size = base = du(env_dir)
        added = {}
        for name in candidates:  # each after the ones before: what it adds to this install
            subprocess.run([py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-cache-dir",
                            name], capture_output=True, check=True)  # fmt: skip
            added[name], size = round((du(env_dir) - size) / 2**20, 1), du(env_dir)
        return {
            "python": version,
            "install_seconds": round(seconds, 1),
            "venv_mb": round(base / 2**20, 1),
            "heavy_packages": heavy,
            "packages": len(frozen.splitlines()),
            "dependencies_mb": dist_mb(py, DEPENDENCIES),
            "candidates_added_mb": added,
            "readme_example": {k: example.get(k) for k in ("samsa", "samsa_abl", "signature", "error") if k in example},
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pythons", nargs="+", default=["python3.10", "python3.11", "python3.12", "python3.13"])
    ap.add_argument("--with", dest="candidates", nargs="+", default=[], metavar="PKG",
                    help="candidate dependencies: what each would add to the install")  # fmt: skip
    args = ap.parse_args()
    rows = []
    for python in args.pythons:
        row = one(python, args.candidates)
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    command = " ".join(["python benchmarks/install_size.py", *sys.argv[1:]])
    print(write_json("install_size.json", {"command": command, "results": rows}))


if __name__ == "__main__":
    main()
