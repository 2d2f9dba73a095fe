"""The README's two set-up commands, verbatim, on a fresh clone and a fresh virtualenv per Python version.

    python benchmarks/readme_setup.py --pythons /root/.pyenv/versions/3.10.13/bin/python3.10 \\
        /root/.pyenv/versions/3.13.0/bin/python3.13       # writes benchmarks/results/readme_setup.json

The commands are read from the README's first ``bash`` block (so the run cannot drift from what the
README says) and run in a clone of the committed HEAD laid out as the project is (``../shared/data``
beside it, so the data tests run), with PyPI as the only package source the project names. Recorded:
each command's exit code and time, and pytest's closing line.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import ROOT, write_json


def readme_setup() -> list[str]:
    body = re.findall(r"^```bash\n(.*?)^```$", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)[0]
    return [line for line in body.splitlines() if line.strip() and not line.startswith("#")]


def run_one(python: str, commands: list[str]) -> dict[str, object]:
    version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                             text=True, check=True).stdout.strip()  # fmt: skip
    clone = Path(tempfile.mkdtemp(prefix="samsa-readme-setup-"))
    venv = Path(tempfile.mkdtemp(prefix="samsa-readme-venv-"))
    try:
        if (ROOT.parent / "shared").is_dir():  # the project's layout: the data at ../shared/data
            (clone / "shared").symlink_to(ROOT.parent / "shared", target_is_directory=True)
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone / "main")], check=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        steps = []
        for command in commands:
            start = time.perf_counter()
            done = subprocess.run(["bash", "-c", f"source {venv}/bin/activate && {command}"], cwd=clone / "main",
                                  capture_output=True, text=True)  # fmt: skip
            last = (done.stdout.strip().splitlines() or [""])[-1]
            steps.append({"command": command, "exit_code": done.returncode,
                          "seconds": round(time.perf_counter() - start, 1), "last_line": last[-200:]})  # fmt: skip
            print(version, steps[-1], flush=True)
        return {"python": version, "steps": steps}
    finally:
        shutil.rmtree(clone, ignore_errors=True)
        shutil.rmtree(venv, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pythons", nargs="+", required=True, metavar="PYTHON", help="interpreters to try")
    args = ap.parse_args()
    commands = readme_setup()
    runs = [run_one(p, commands) for p in args.pythons]
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    write_json("readme_setup.json", {"command": "python " + " ".join(sys.argv), "commit": head.strip(),
                                     "commands": commands, "runs": runs})  # fmt: skip


if __name__ == "__main__":
    main()
