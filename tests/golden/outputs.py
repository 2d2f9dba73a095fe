"""What the commands print and write, pinned as revision 2bb279f wrote them, compared on any CPU.

Refactoring must not change what users see. Each case runs one command in this process; its standard output and
the files it writes are joined after the machine's paths are replaced by placeholders (``{F}`` the fixtures,
``{D}`` the data root, ``{T}`` the case's folder). ``outputs.json`` pins, per case, the SHA-256 of those bytes
(``sha256``), the SHA-256 of the text with every decimal number masked (``text``), and the decimal numbers in
their printed form (``numbers``). A case holds when its text is the same to the byte once the numbers are masked
and each number is within one unit in its last printed place of the pinned one (for numbers printed at full
precision, 12 significant digits or more, within 1e-9 of their size): the last printed digit of a score can
differ between CPUs whose BLAS kernels add in another order. ``python tests/golden/outputs.py --write`` writes the
pins from the samsa on ``sys.path`` (run it with ``PYTHONPATH`` pointing at the revision to pin), ``--check``
compares and says which cases are byte-identical. A deliberate change of an output (:data:`CHANGES`) is applied
to what is compared, and named here with the issue that made it.
"""

from __future__ import annotations

import contextlib
import decimal
import hashlib
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
DIGESTS = Path(__file__).with_name("outputs.json")


def _bare_signature(text: str) -> str:
    """#62: every signature line of a table is ``labels: signature``; a table with one signature printed it bare."""
    lines = text.split("\n")
    labelled = [k for k, line in enumerate(lines) if re.match(r"^[\w ,%.-]+: \S+\|", line)]
    if len(labelled) == 1:
        k = labelled[0]
        lines[k] = lines[k].split(": ", 1)[1]
    return "\n".join(lines)


#: deliberate changes since the digests were written, each undone on the new output before it is hashed
CHANGES: tuple[Callable[[str], str], ...] = (
    lambda text: text.replace("+sampler.1", ""),  # #65: the parse interval's signature names the drawing rules
    _bare_signature,
)


def _data() -> Path:
    return Path(os.environ.get("SAMSA_DATA") or ROOT.parent / "shared" / "data")


def _hsplit(d: Path) -> list[str]:
    return [str(d / "hsplit" / "HSplit" / f"HSplit{k}_full") for k in (1, 2)]


def cases() -> dict[str, tuple[list[str], bool]]:
    """name -> (argv with {F} {D} {T} {C} placeholders, needs the shared data)."""
    en = ["--source", "{F}/paper_sources.txt", "{F}/paper_outputs.txt", "{F}/paper_sources.txt",
          "--name", "split", "identity"]  # fmt: skip
    de = ["--lang", "de", "--source", "{F}/de_sources.txt", "{F}/de_outputs.txt", "{F}/de_sources.txt",
          "--name", "split", "identity"]  # fmt: skip
    hs = ["--source", "{D}/easse/test_sets/turkcorpus/test.truecase.detok.orig", *_hsplit(Path("{D}"))]
    out: dict[str, tuple[list[str], bool]] = {}
    for lang, base, data in (("en", en, False), ("de", de, False), ("hsplit", hs, True)):
        unc = ["--parse-uncertainty"]
        out[f"{lang}_table_cold"] = (["score", *base, "--cache", "{C}"], data)
        out[f"{lang}_table_warm"] = (["score", *base, "--cache", "{C}"], data)
        out[f"{lang}_json_jobs2"] = (["score", *base, "-f", "json", "--jobs", "2", "--no-cache"], data)
        out[f"{lang}_unc_cold"] = (["score", *base, *unc, "--cache", "{C}u"], data)
        out[f"{lang}_unc_warm"] = (["score", *base, *unc, "--cache", "{C}u"], data)
        out[f"{lang}_unc_json_jobs2"] = (["score", *base, *unc, "-f", "json", "--jobs", "2", "--no-cache"], data)
        out[f"{lang}_unc_jobs2_warm"] = (["score", *base, *unc, "--jobs", "2", "--cache", "{C}u"], data)
        one = [a for a in base if a not in ("split", "identity", "--name")][:-1]  # the first system alone
        out[f"{lang}_rows"] = (["score", *one, "--per-sentence", "{T}/rows.jsonl", "--no-cache"], data)
        out[f"{lang}_unc_rows"] = (["score", *one, *unc, "--per-sentence", "{T}/rows.jsonl", "--no-cache"], data)
        out[f"{lang}_suggest"] = (["score", *base, "--suggest-annotation", "2", "--no-cache"], data)
    ev = ["evaluate", "-t", "hsplit", "-m", "samsa,sari,bleu,fkgl", "-ci", "--paired-bs", *_hsplit(Path("{D}"))]
    out["hsplit_evaluate"] = ([*ev, "--name", "A", "B", "--no-cache"], True)
    out["hsplit_evaluate_unc"] = ([*ev, "--name", "A", "B", "--parse-uncertainty", "--no-cache"], True)
    de_ev = ["evaluate", "--lang", "de", "--source", "{F}/de_sources.txt", "--refs", "{F}/de_outputs.txt", "-m",
             "samsa,sari,bleu,wstf", "-ci", "--paired-bs", "{F}/de_outputs.txt", "{F}/de_sources.txt"]  # fmt: skip
    out["de_evaluate"] = ([*de_ev, "--no-cache"], False)
    out["de_evaluate_unc"] = ([*de_ev, "--parse-uncertainty", "--no-cache"], False)
    report = ["report", "-t", "hsplit", *_hsplit(Path("{D}")), "-o", "{T}/report.html", "-q"]
    out["hsplit_report"] = ([*report, "--cache", "{C}r"], True)
    out["hsplit_report_warm"] = ([*report, "--cache", "{C}r"], True)
    out["hsplit_report_jobs2"] = ([*report, "--jobs", "2", "--no-cache"], True)
    out["hsplit_report_certain"] = ([*report, "--no-parse-uncertainty", "--no-cache"], True)
    de_report = ["report", "{F}/de_outputs.txt", "--lang", "de", "--source", "{F}/de_sources.txt", "--refs",
                 "{F}/de_outputs.txt", "-o", "{T}/report.html", "-q", "--no-cache"]  # fmt: skip
    out["de_report"] = (de_report, False)
    cmp = ["compare-annotations", "--ucca", "{F}/ucca/paper", "{F}/paper_outputs.txt", "--per-sentence", "{T}/c.jsonl"]
    out["en_compare"] = ([*cmp, "--no-cache"], False)
    out["en_compare_unc"] = ([*cmp, "--parse-uncertainty", "--no-cache"], False)
    de_cmp = ["compare-annotations", "--lang", "de", "--ucca", "{D}/ucca/de20k/test", "--per-sentence", "{T}/c.jsonl",
              "--parse-uncertainty", "--no-cache"]  # fmt: skip
    out["de20k_compare"] = (de_cmp, True)
    return out


def _fill(argv: list[str], tmp: Path, cache: Path) -> list[str]:
    subs = {"{F}": str(FIXTURES), "{D}": str(_data()), "{T}": str(tmp), "{C}": str(cache)}
    out = []
    for a in argv:
        for k, v in subs.items():
            a = a.replace(k, v)
        out.append(a)
    return out


def _identity_system(tmp: Path) -> Path:
    """German-20K test's compare case scores its sources as a system: the gold tokens joined, a line each."""
    from samsa.ucca.graph import tokens
    from samsa.ucca.xml import list_passage_files, load_passage

    path = tmp / "de20k_identity.txt"
    files = list_passage_files(_data() / "ucca" / "de20k" / "test")
    path.write_text("".join(" ".join(tokens(load_passage(f))) + "\n" for f in files), encoding="utf-8")
    return path


def run_case(name: str, argv: list[str], tmp: Path, cache: Path, main: Callable[[list[str]], int]) -> str:
    """The case's outputs, placeholders for the machine's paths, as one text: its exit code, standard output,
    and each file it wrote under ``tmp``."""
    case_dir = tmp / name
    case_dir.mkdir()
    filled = _fill(argv, case_dir, cache)
    if name == "de20k_compare":
        filled.insert(filled.index("--per-sentence"), str(_identity_system(case_dir)))
    buf = io.StringIO()
    err = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
        code = main(filled)
    if code != 0:
        raise RuntimeError(f"{name}: exit {code}: {err.getvalue().strip()}")
    parts = [f"exit {code}", buf.getvalue()]
    parts += [f"== {p.name}\n{p.read_text(encoding='utf-8')}" for p in sorted(case_dir.iterdir())]
    text = "\n".join(parts)
    for path, mark in ((str(case_dir), "{T}"), (str(_data()), "{D}"), (str(FIXTURES), "{F}")):
        text = text.replace(path, mark)
    for undo in CHANGES:
        text = undo(text)
    return text


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: a decimal number as printed: digits, a point and digits, or an exponent
NUMBER = re.compile(r"-?\d+(?:\.\d+(?:[eE][-+]?\d+)?|[eE][-+]?\d+)")


def pin(text: str) -> dict[str, str]:
    """What ``outputs.json`` keeps of one case's text."""
    return {"sha256": digest(text), "text": digest(NUMBER.sub("#", text)), "numbers": " ".join(NUMBER.findall(text))}


def read_pins() -> dict[str, dict[str, str]]:
    """name -> its pin (``outputs.json`` keeps the numbers once for cases whose bytes are the same)."""
    doc = json.loads(DIGESTS.read_text(encoding="utf-8"))
    return {n: {**p, "numbers": doc["numbers"][p["sha256"]]} for n, p in doc["cases"].items()}


def write_pins(texts: dict[str, str]) -> None:
    pins = {n: pin(t) for n, t in texts.items()}
    doc = {
        "cases": {n: {k: v for k, v in p.items() if k != "numbers"} for n, p in pins.items()},
        "numbers": {p["sha256"]: p["numbers"] for p in pins.values()},
    }
    DIGESTS.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _unit(printed: str) -> float:
    """One unit in the last printed place; for a number printed at full precision, 1e-9 of its size."""
    d = decimal.Decimal(printed)
    unit = float(decimal.Decimal(1).scaleb(d.as_tuple().exponent))  # type: ignore[arg-type]
    significant = len(d.as_tuple().digits)
    return max(unit, 1e-9 * abs(float(d))) if significant >= 12 else unit


def close(pinned: str, found: str) -> bool:
    """Whether ``found`` is within one unit in the last printed place of ``pinned`` (the coarser of the two)."""
    if pinned == found:
        return True
    return abs(float(pinned) - float(found)) <= max(_unit(pinned), _unit(found)) * (1 + 1e-9)


def differences(pinned: dict[str, str], text: str) -> list[str]:
    """How ``text`` differs from its pin, beyond the last printed digit; empty when the case holds."""
    found = pin(text)
    if found["text"] != pinned["text"]:
        return ["the text around the numbers changed"]
    a, b = pinned["numbers"].split(), found["numbers"].split()
    return [f"number {k + 1}: {x} -> {y}" for k, (x, y) in enumerate(zip(a, b, strict=True)) if not close(x, y)]


def run_all(names: list[str] | None = None) -> dict[str, str]:
    """name -> the case's text, for the cases named (all by default) whose data is here."""
    from samsa.cli import main

    tmp = Path(tempfile.mkdtemp(prefix="samsa-golden-"))
    cache = tmp / "cache.sqlite"
    out = {}
    for name, (argv, data) in cases().items():
        if (names and name not in names) or (data and not _data().is_dir()):
            continue
        out[name] = run_case(name, argv, tmp, cache, main)
        print(name, digest(out[name])[:16], file=sys.stderr, flush=True)
    return out


def check(found: dict[str, str]) -> int:
    """Print each case that differs beyond printed precision, and how many are byte-identical; 1 if any differ."""
    pinned = read_pins()
    bad = {n: differences(pinned[n], t) for n, t in found.items()}
    bad = {n: d for n, d in bad.items() if d}
    same = sum(pinned[n]["sha256"] == digest(t) for n, t in found.items())
    for name, diff in bad.items():
        print(f"{name}: {'; '.join(diff[:5])}")
    print(f"{len(found) - len(bad)} of {len(found)} cases hold, {same} byte-identical")
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("SAMSA_CONFIG", str(Path(tempfile.mkdtemp()) / "absent.ini"))
    os.environ.setdefault("SAMSA_DATA", str(_data()))
    texts = run_all(sys.argv[2:] or None)
    if sys.argv[1:2] == ["--write"]:
        write_pins(texts)
    else:
        sys.exit(check(texts))
