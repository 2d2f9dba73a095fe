"""Plug-in registry: versioned names, unknown names list the options, custom registration."""

import pytest

from samsa import registry
from samsa.aligners.exact import ExactAligner
from samsa.errors import InputError, UnknownPluginError
from samsa.parsers.xml import XmlParser


def test_unversioned_name_resolves_to_newest():
    assert registry.resolve("aligners", "exact") == "exact.v1"
    assert isinstance(registry.get_aligner("exact"), ExactAligner)
    assert "xml.v1" in registry.available("parsers")


def test_unknown_name_lists_available():
    with pytest.raises(UnknownPluginError, match=r"No aligner named 'nope'\. Available: .*exact\.v1"):
        registry.get_aligner("nope")


def test_register_custom_aligner():
    class Upper:
        name = "upper.v1"

        def align(self, s, t):
            return []

        def signature(self):
            return self.name

    registry.register("aligners", "upper.v1", Upper)
    try:
        assert registry.get_aligner("upper").signature() == "upper.v1"
        with pytest.raises(ValueError, match="already registered"):
            registry.register("aligners", "upper.v1", ExactAligner)
    finally:
        registry._REGISTERED["aligners"].pop("upper.v1")


def test_entry_point_plugins_are_found_and_the_metadata_read_once_per_kind(monkeypatch):
    from importlib.metadata import EntryPoint

    reads = []

    def fake_entry_points(group):
        reads.append(group)
        return [EntryPoint("upper.v2", "samsa.aligners.exact:make", group)] if group == "samsa.aligners" else []

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    registry._discovered.cache_clear()
    try:
        assert registry.resolve("aligners", "upper") == "upper.v2"  # found through its entry point
        assert isinstance(registry.get_aligner("upper"), ExactAligner)
        assert registry.resolve("parsers", "xml") == "xml.v1"
        assert "upper.v2" in registry.available("aligners")
        assert reads == ["samsa.aligners", "samsa.parsers"]
    finally:
        registry._discovered.cache_clear()


def test_xml_parser_pairs_files_in_natural_order(tmp_path, fixture_path):
    import shutil

    d = tmp_path / "g"
    d.mkdir()
    shutil.copy(fixture_path("ucca/paper/2_read_book.xml"), d / "10.xml")
    shutil.copy(fixture_path("ucca/paper/1_john_home_call.xml"), d / "9.xml")
    p = registry.get_parser("xml", directory=d)
    assert isinstance(p, XmlParser)
    assert [g.graph["passage_id"] for g in p.parse(["a", "b"])] == ["john_home_call", "read_book"]
    with pytest.raises(InputError, match="holds 2 UCCA XML files but the system output has 3 lines"):
        p.parse(["a", "b", "c"])
