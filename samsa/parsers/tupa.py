"""The ``tupa`` parser: an external TUPA installation (Hershcovich et al. 2017), run as a subprocess. More:
docs/architecture.md, "Module notes"."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from os import PathLike
from pathlib import Path

import networkx as nx

from samsa.errors import InputError, InvalidGraphError, PluginUnavailable
from samsa.fileio import data_hash
from samsa.ucca import graph as G
from samsa.ucca.xml import read_standard, to_standard_xml
from samsa.ucca.xmlsafe import Element, read_xml

__all__ = ["TupaParser", "make"]

_VERSION = re.compile(r"TUPA version (\S+)")
#: files TUPA writes beside a model that are not part of it (logs, dev scores)
_NOT_MODEL = (".log", ".csv")


class TupaParser:
    """Parse with an external TUPA.

    Parameters
    ----------
    python
        The interpreter of the TUPA installation (``$SAMSA_TUPA_PYTHON``).
    model
        TUPA's model prefix (``$SAMSA_TUPA_MODEL``).
    timeout
        Seconds one TUPA run may take before it is stopped (``None``: no limit).
    """

    name = "tupa.v1"

    def __init__(
        self,
        *,
        python: str | PathLike[str] | None = None,
        model: str | PathLike[str] | None = None,
        timeout: float | None = None,
    ) -> None:
        python = python or os.environ.get("SAMSA_TUPA_PYTHON")
        model = model or os.environ.get("SAMSA_TUPA_MODEL")
        if not python or not model:
            raise PluginUnavailable(
                "the tupa parser needs a TUPA installation: set SAMSA_TUPA_PYTHON (its Python) and SAMSA_TUPA_MODEL "
                "(a model prefix), or pass python= and model=; see docs/parser.md"
            )
        self.python = Path(python).absolute()  # TUPA runs in a temporary directory
        self.model = Path(model).absolute()
        self.timeout = timeout
        if not (self.python.is_file() and os.access(self.python, os.X_OK)):
            raise InputError(self.python, None, "is not an executable Python interpreter (SAMSA_TUPA_PYTHON)")
        self.model_files = sorted(
            p for p in self.model.parent.glob(self.model.name + "*") if p.is_file() and p.suffix not in _NOT_MODEL
        )
        if not self.model_files:
            raise InputError(self.model, None, "no TUPA model files with this prefix (SAMSA_TUPA_MODEL)")
        self.version = self._version()
        self.model_sha256 = data_hash(self.model_files)  # names and contents, as the training data's hash

    def _run(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "SPACY_MODEL": os.environ.get("SPACY_MODEL", "en_core_web_sm")}
        try:
            # run outside any git checkout: TUPA reports `git describe` of its working directory as its version
            with tempfile.TemporaryDirectory(prefix="samsa-tupa-cwd-") as cwd:
                return subprocess.run(
                    [str(self.python), "-m", "tupa", *args],
                    capture_output=True,
                    text=True,
                    env=env,
                    cwd=cwd,
                    timeout=self.timeout,
                    check=False,
                )
        except subprocess.TimeoutExpired:
            raise InputError(self.python, None, f"TUPA did not finish within {self.timeout} s") from None
        except OSError as e:
            raise InputError(self.python, None, f"cannot run TUPA: {e.strerror}") from None

    def _version(self) -> str:
        done = self._run(["--version"])
        found = _VERSION.search(done.stdout + done.stderr)
        if done.returncode != 0 or not found:
            raise InputError(
                self.python,
                None,
                f"does not run TUPA (`-m tupa --version` exit {done.returncode}): {_last_line(done.stderr)}",
            )
        return found.group(1)

    def signature(self) -> str:
        return f"tupa.v1+tupa-{self.version}+{self.model.name}-{self.model_sha256[:12]}"

    def cache_key(self) -> str:
        """What the parse cache keys on: TUPA's version and the full model digest."""
        return f"tupa.v1|{self.version}|{self.model_sha256}"

    def parse(self, sentences: Sequence[str | Sequence[str]]) -> list[nx.DiGraph]:
        """One TUPA run over all ``sentences`` (strings are split on whitespace: give tokenized text)."""
        if not sentences:
            return []
        with tempfile.TemporaryDirectory(prefix="samsa-tupa-") as tmp:
            src, out = Path(tmp) / "in", Path(tmp) / "out"
            src.mkdir()
            out.mkdir()
            for k, s in enumerate(sentences, 1):
                toks = s.split() if isinstance(s, str) else list(s)
                if not toks:
                    raise InputError(None, k, "empty sentence: TUPA needs at least one token")
                punct = [not any(ch.isalnum() for ch in t) for t in toks]  # TUPA attaches punctuation itself
                (src / f"{k}.xml").write_bytes(to_standard_xml(G.from_tokens(toks, str(k), punct=punct)))
            done = self._run([str(src), "-m", str(self.model), "-o", str(out)])
            if done.returncode != 0:
                raise InputError(self.python, None, f"TUPA failed (exit {done.returncode}): {_last_line(done.stderr)}")
            return [self._read(out, k, sentences[k - 1]) for k in range(1, len(sentences) + 1)]

    def _read(self, out: Path, k: int, sentence: str | Sequence[str]) -> nx.DiGraph:
        path = out / f"{k}.xml"
        where = f"<TUPA parse of sentence {k}>"  # the file itself is temporary: name what it was
        if not path.is_file():
            raise InputError(where, None, f"TUPA wrote no parse for sentence {k}")
        try:
            # the safe reader, and the structural validation of every passage
            g = read_standard(_merge_parallel_edges(read_xml(path)), path)
        except InvalidGraphError as e:
            raise InvalidGraphError(where, e.line, e.detail, node=e.node) from None
        except InputError as e:
            raise InputError(where, e.line, e.detail) from None
        toks = sentence.split() if isinstance(sentence, str) else list(sentence)
        if G.tokens(g) != toks:
            raise InputError(where, None, f"TUPA changed the tokens of sentence {k}")
        g.graph["passage_id"] = str(k)
        return g


def _merge_parallel_edges(root: Element) -> Element:
    """TUPA 1.4 (``ucca`` 1.2) writes an edge with two categories as two ``<edge>`` elements between the same
    units; today's format has one edge with two ``<category>`` children. Merge them (same target, same
    remote flag), so the reader's rule "one edge per pair of units" holds. TUPA also writes a remote edge
    beside a primary one between the same two units (seen on 2 of 518 Wiki test sentences); the graph
    holds one edge per pair, so that remote edge is dropped (the primary edge keeps the relation)."""
    for node in root.iter("node"):
        first: dict[tuple[str | None, bool], Element] = {}
        kept: list[Element] = []
        for child in node.children:
            if child.tag != "edge":
                kept.append(child)
                continue
            attrs = child.find("attributes")
            remote = attrs is not None and attrs.get("remote") == "True"
            key = (child.get("toID"), remote)
            if remote and (key[0], False) in first:
                continue  # a remote edge parallel to a primary one: dropped
            if not remote and (key[0], True) in first:  # the remote one came first: the primary one replaces it
                kept.remove(first.pop((key[0], True)))
            if key not in first:
                first[key] = child
                kept.append(child)
                continue
            target = first[key]
            for edge in (target, child):
                if not edge.findall("category") and edge.get("type"):
                    edge.children.append(Element("category", {"tag": edge.attrib["type"]}, edge.line))
            target.children.extend(c for c in child.children if c.tag == "category")
        node.children = kept
    return root


def _last_line(text: str) -> str:
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1] if lines else "(no message)"


def make(*, python: str | None = None, model: str | None = None, timeout: float | None = None) -> TupaParser:
    """Registry factory."""
    return TupaParser(python=python, model=model, timeout=timeout)
