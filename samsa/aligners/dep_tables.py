"""Dependency-label equivalences of the Sultan aligner's four word classes.
More: docs/architecture.md, "Module notes"."""

from __future__ import annotations

from dataclasses import dataclass

from samsa.errors import ConfigError

__all__ = ["COMBO_ORDER", "Equivalences", "equivalences"]

CONJ = [({"conj_and"}, {"conj_and"}), ({"conj_or"}, {"conj_or"}), ({"conj_nor"}, {"conj_nor"})]

#: The order in which the relatives of a candidate pair are examined (it fixes the
#: order in which context pairs are aligned after the pair itself).
COMBO_ORDER = {
    "verb": ("cc", "pp", "pc", "cp"),
    "noun": ("pp", "cc", "pc", "cp"),
    "adjective": ("pp", "cc", "pc", "cp"),
    "adverb": ("pp", "cc", "pc", "cp"),
}


@dataclass(frozen=True)
class Equivalences:
    pp: tuple[frozenset[str], ...]
    cc: tuple[frozenset[str], ...]
    pc: tuple[tuple[frozenset[str], frozenset[str]], ...]

    def equivalent(self, combo: str, rel_k: str, rel_l: str) -> bool:
        """Do the source relative's label and the target relative's label count as the same relation?"""
        if rel_k == rel_l:
            return True
        if combo == "pp":
            return any(rel_k in g and rel_l in g for g in self.pp)
        if combo == "cc":
            return any(rel_k in g and rel_l in g for g in self.cc)
        if combo == "pc":
            return any(rel_k in p and rel_l in c for p, c in self.pc)
        return any(rel_k in c and rel_l in p for p, c in self.pc)  # "cp"


def _eq(pp: list[set[str]], cc: list[set[str]], pc: list[tuple[set[str], set[str]]]) -> Equivalences:
    return Equivalences(
        tuple(frozenset(g) for g in pp),
        tuple(frozenset(g) for g in cc),
        tuple((frozenset(p), frozenset(c)) for p, c in pc),
    )


def equivalences(word_class: str, *, faithful: bool = True) -> Equivalences:
    """The equivalence table of ``word_class`` (verb, noun, adjective, adverb)."""
    if faithful:
        poss, tmod_in, nn_of = {"pos"}, {"tmodprep_in"}, {"nnprep_of"}
        nsubj_x, dobj_pass, mods = {"nsubjxsubj"}, {"dobjnsubjpass"}, set()
    else:
        poss, tmod_in, nn_of = {"poss"}, {"tmod", "prep_in"}, {"nn", "prep_of"}
        nsubj_x, dobj_pass, mods = {"nsubj", "xsubj"}, {"dobj", "nsubjpass"}, {"vmod"}
    if word_class == "noun":
        return _eq(
            pp=[
                poss | {"nn", "prep_of", "prep_in", "prep_at", "prep_for"},
                {"agent", "nsubj", "xsubj"},
                {"ccomp", "dobj", "nsubjpass", "rel", "partmod"} | mods,
                tmod_in | {"prep_at", "prep_on"},
                {"iobj", "prep_to"},
            ],
            cc=[
                poss | nn_of | {"prep_in", "prep_at", "prep_for"},
                {"infmod", "partmod", "rcmod"} | mods,
                {"amod", "rcmod"},
            ],
            pc=[
                ({"nsubj"}, {"amod", "rcmod"}),
                ({"ccomp", "dobj", "nsubjpass", "rel", "partmod"} | mods, {"infmod", "partmod", "rcmod"} | mods),
                *CONJ,
            ],
        )
    if word_class == "verb":
        return _eq(
            pp=[{"infmod", "partmod", "rcmod"} | mods, {"purpcl", "xcomp"}],
            cc=[
                {"agent"} | nsubj_x,
                {"ccomp", "rel", "partmod"} | dobj_pass,
                {"tmod", "prep_in", "prep_at", "prep_on"},
                {"iobj", "prep_to"},
                {"purpcl", "xcomp"},
            ],
            pc=[({"cop", "csubj"}, {"acomp"}), ({"csubj"}, {"csubjpass"}), *CONJ],
        )
    if word_class == "adjective":
        return _eq(
            pp=[{"amod", "rcmod"}],
            cc=[],
            pc=[({"amod", "rcmod"}, {"nsubj"}), ({"acomp"}, {"cop", "csubj"}), *CONJ],
        )
    if word_class == "adverb":
        return _eq(pp=[], cc=[], pc=[])
    raise ConfigError(f"unknown word class {word_class!r}")
