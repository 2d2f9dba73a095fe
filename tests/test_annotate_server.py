"""``samsa annotate``'s server and workspace without a browser: the security cases, saving, and bad input."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from samsa.annotate.server import MAX_BODY, AnnotateServer
from samsa.annotate.workspace import Line, Workspace
from samsa.ucca.skeleton import Participant, SceneSkeleton, Skeleton, skeleton_of
from samsa.ucca.xml import load_passage

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

PARSE = Skeleton(
    ("John", "saw", "<script>", "."),
    (False, False, False, True),
    (SceneSkeleton((1, 2, 3), ((2,),), (Participant(((1,),)), Participant(((3,),)))),),
)


@pytest.fixture
def served(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    workspace = Workspace([Line(3, "John saw <script> .", PARSE._replace(passage_id="3"), {1: 0.25, 2: 0.75})], out)
    server = AnnotateServer(0, workspace)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, out
    server.shutdown()
    server.server_close()


def request(server, method, path, body=None, headers=None, token=True):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    h = {"Host": f"127.0.0.1:{server.port}"}
    if token:
        h["X-Samsa-Token"] = server.token
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        h.update({"Content-Type": "application/json", "Content-Length": str(len(data))})
    else:
        data = None
    h.update(headers or {})
    conn.request(method, path, body=data, headers=h)
    r = conn.getresponse()
    out = r.status, r.read(), dict(r.getheaders())
    conn.close()
    return out


SCENES = {"scenes": [{"words": [1, 2, 3], "main": [[2]], "participants": [{"centers": [[1]], "scene": None}]}]}


def test_listens_on_loopback_only(served):
    server, _ = served
    assert server.socket.getsockname()[0] == "127.0.0.1"
    for other in (a for a in _own_addresses() if not a.startswith("127.")):  # where the machine has another address
        with pytest.raises(OSError):
            socket.create_connection((other, server.port), timeout=2)


def _own_addresses() -> list[str]:
    """This machine's IPv4 addresses: its name's, and the one a UDP socket would send from (nothing is sent)."""
    found = set()
    try:
        found |= {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    except OSError:
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 9))
            found.add(probe.getsockname()[0])
        except OSError:
            pass
    return sorted(found)


def test_token_required_on_page_assets_and_api(served):
    server, _ = served
    for path in ("/", "/annotate.js", "/api/overview", "/api/line/3"):
        assert request(server, "GET", path, token=False)[0] == 403
        assert request(server, "GET", path, headers={"X-Samsa-Token": "wrong"}, token=False)[0] == 403
    status, body, headers = request(server, "GET", f"/?token={server.token}", token=False)
    assert status == 200 and server.token.encode() in body
    assert "script-src 'self'" in headers["Content-Security-Policy"] and headers["X-Frame-Options"] == "DENY"
    assert request(server, "POST", "/api/line/3", SCENES, token=False)[0] == 403


def test_foreign_host_and_cross_origin_requests_refused(served):
    server, out = served
    assert request(server, "GET", "/api/overview", headers={"Host": f"evil.example:{server.port}"})[0] == 403
    assert request(server, "GET", "/api/overview", headers={"Origin": "http://evil.example"})[0] == 403
    assert request(server, "POST", "/api/line/3", SCENES, headers={"Origin": "http://evil.example"})[0] == 403
    assert (
        request(server, "POST", "/api/line/3", SCENES, headers={"Origin": f"http://127.0.0.1:{server.port}"})[0] == 200
    )
    assert list(out.iterdir()) == [out / "3.xml"]


def test_bodies_are_json_and_bounded(served):
    server, out = served
    assert request(server, "POST", "/api/line/3", b"x" * 10, headers={"Content-Type": "text/plain"})[0] == 415
    assert request(server, "POST", "/api/line/3", b"{", headers={})[0] == 400
    big = request(server, "POST", "/api/line/3", b"{}", headers={"Content-Length": str(MAX_BODY + 1)})
    assert big[0] == 413
    assert not any(out.iterdir())


def test_nothing_is_written_outside_dir_or_under_other_names(served, tmp_path):
    server, _ = served
    for path in ("/api/line/../../x", "/api/line/4", "/api/line/03", "/api/line/3/../../x", "/api/line/-1"):
        assert request(server, "POST", path, SCENES)[0] == 404
    bad = {"scenes": [{"words": [9], "main": [[9]], "participants": []}]}
    assert request(server, "POST", "/api/line/3", bad)[0] == 400  # a position beyond the line
    assert request(server, "POST", "/api/line/3", {"scenes": [{"words": [4], "main": [[4]]}]})[0] == 400  # '.'
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []
    assert request(server, "POST", "/api/line/3", SCENES)[0] == 200
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["3.xml"]


def test_saved_file_is_the_skeleton_and_reopens(served):
    server, out = served
    status, body, _ = request(server, "POST", "/api/line/3", {**SCENES, "done": True})
    assert status == 200 and json.loads(body)["done"] == 1 and json.loads(body)["status"] == "done"
    sk = skeleton_of(load_passage(out / "3.xml"))
    assert sk.scenes == (SceneSkeleton((1, 2, 3), ((2,),), (Participant(((1,),)),)),) and sk.passage_id == "3"
    view = json.loads(request(server, "GET", "/api/line/3")[1])
    assert view["status"] == "done" and view["saved"]["scenes"][0]["main"] == [[2]]
    assert view["tokens"][2] == "<script>" and view["scene_counts"] == {"1": 0.25, "2": 0.75}


def test_an_edit_is_applied_by_the_server_and_nothing_is_saved(served):
    """The page sends intents: the server applies samsa/annotate/edits.py and answers with the skeleton."""
    server, out = served
    new = {**SCENES, "edit": {"name": "new_scene", "selection": [3]}}
    status, body, _ = request(server, "POST", "/api/line/3/edit", new)
    answer = json.loads(body)
    assert status == 200 and answer["active"] == 1 and len(answer["scenes"]) == 2
    assert answer["scenes"][1] == {"words": [3], "main": [[3]], "participants": []}
    add = {**SCENES, "edit": {"name": "add_participant", "scene": 0, "selection": [3]}}
    parts = json.loads(request(server, "POST", "/api/line/3/edit", add)[1])["scenes"][0]["participants"]
    assert [p["centers"] for p in parts] == [[[1]], [[3]]]
    assert list(out.iterdir()) == []
    for bad in ({"name": "rm -rf"}, {"name": "set_main", "selection": [4]}, {"name": "set_main", "scene": "0"}):
        assert request(server, "POST", "/api/line/3/edit", {**SCENES, "edit": bad})[0] == 400
    assert (
        request(server, "POST", "/api/line/3/edit", {**SCENES, "edit": {"name": "delete_scene", "scene": 5}})[0] == 422
    )
    assert request(server, "GET", "/api/line/3/edit")[0] == 404


def keys_markdown(table: list[dict]) -> str:
    """samsa/annotate/assets/keys.json as docs/annotate.md shows it: a Markdown table, a key a row."""
    rows = [f"| {k['shown']} | {k['does']} | {k['ucca']} |" for k in table]
    return "\n".join(["| key | what it does (an edit: one undo step) | in UCCA terms |", "|---|---|---|", *rows])


def test_the_keys_are_one_table_that_the_page_and_the_docs_read(served):
    """assets/keys.json: the page binds its keys and builds its help from it; docs/annotate.md shows it."""
    from samsa.annotate.edits import EDITS

    server, _ = served
    status, body, _ = request(server, "GET", "/keys.json")
    table = json.loads(body)
    assert status == 200 and EDITS <= {k["action"] for k in table}
    presses = [p for k in table for p in k["presses"]]
    assert len(presses) == len(set(presses))  # one action a press
    assert keys_markdown(table) in (FIXTURES.parent / "docs" / "annotate.md").read_text(encoding="utf-8")
    js = (FIXTURES.parent / "samsa" / "annotate" / "assets" / "annotate.js").read_text(encoding="utf-8")
    page_actions = {k["action"] for k in table} - EDITS
    assert all(f"  {a}: " in js for a in page_actions), "every page action of keys.json has its function"


def test_a_file_another_tool_wrote_is_replaced_only_when_asked(served):
    server, out = served
    foreign = b"<root passageID='x'><layer layerID='0'/></root>"
    (out / "3.xml").write_bytes(foreign)
    assert json.loads(request(server, "GET", "/api/line/3")[1])["status"] == "foreign"
    assert request(server, "POST", "/api/line/3", SCENES)[0] == 409
    assert (out / "3.xml").read_bytes() == foreign
    assert request(server, "POST", "/api/line/3", {**SCENES, "overwrite": True})[0] == 200
    assert json.loads(request(server, "GET", "/api/line/3")[1])["status"] == "draft"


def test_a_draft_is_not_done_until_marked(served):
    """Every edit saves the line as a draft; progress, resume and the estimate count it only once marked done."""
    server, out = served
    body = json.loads(request(server, "POST", "/api/line/3", SCENES)[1])
    assert body["status"] == "draft" and body["done"] == 0
    overview = json.loads(request(server, "GET", "/api/overview")[1])
    assert overview["done"] == 0 and overview["lines"][0]["status"] == "draft" and overview["resume"] == 0
    assert load_passage(out / "3.xml").graph["attributes"]["draft"] == "yes"
    assert json.loads(request(server, "POST", "/api/line/3", {**SCENES, "done": True})[1])["done"] == 1
    assert "draft" not in load_passage(out / "3.xml").graph["attributes"]


def test_a_save_from_a_stale_version_is_refused(served):
    """Two tabs on one line: the second save, made from the version both opened, is refused (409)."""
    server, out = served
    opened = json.loads(request(server, "GET", "/api/line/3")[1])["version"]
    first = json.loads(request(server, "POST", "/api/line/3", {**SCENES, "version": opened})[1])
    before = (out / "3.xml").read_bytes()
    status, body, _ = request(server, "POST", "/api/line/3", {**SCENES, "version": opened, "done": True})
    assert status == 409 and "changed since it was opened" in json.loads(body)["error"]
    assert (out / "3.xml").read_bytes() == before
    assert request(server, "POST", "/api/line/3", {**SCENES, "version": first["version"], "done": True})[0] == 200


BAD_STRUCTURES = {
    "an empty Scene": ([{"words": [], "main": [[]], "participants": []}], "has no words"),
    "a self-linked Scene": ([{"words": [2], "main": [[2]], "participants": [{"centers": [], "scene": 0}]}],
                            "its own participant"),
    "a participant twice": ([{"words": [1, 2], "main": [[2]], "participants": [{"centers": [[1]]},
                                                                              {"centers": [[1]]}]}], "twice"),
    "a circle of Scenes": ([{"words": [1], "main": [[1]], "participants": [{"centers": [], "scene": 1}]},
                            {"words": [2], "main": [[2]], "participants": [{"centers": [], "scene": 0}]}],
                           "in a circle"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_STRUCTURES))
def test_a_skeleton_that_means_nothing_is_refused_with_the_reason(served, case):
    server, out = served
    scenes, reason = BAD_STRUCTURES[case]
    status, body, _ = request(server, "POST", "/api/line/3", {"scenes": scenes})
    assert status == 422 and reason in json.loads(body)["error"] and not (out / "3.xml").exists()
    assert request(server, "POST", "/api/line/3", SCENES)[0] == 200  # and the next save goes through


def test_an_edit_that_would_mean_nothing_is_refused(served):
    server, _ = served
    again = {**SCENES, "edit": {"name": "add_participant", "scene": 0, "selection": [1]}}
    status, body, _ = request(server, "POST", "/api/line/3/edit", again)
    assert status == 422 and "twice" in json.loads(body)["error"]
    deep = b"[" * 100000 + b"]" * 100000
    assert request(server, "POST", "/api/line/3", deep)[0] == 400


def test_overlapping_centers_are_refused_not_written(served):
    server, out = served
    bad = {
        "scenes": [{"words": [1, 2, 3], "main": [[2]], "participants": [{"centers": [[1, 2]]}, {"centers": [[2, 3]]}]}]
    }
    status, body, _ = request(server, "POST", "/api/line/3", bad)
    assert status == 422 and "overlap" in json.loads(body)["error"]
    assert not any(out.iterdir())


# ---------------------------------------------------------------- bad input: one line, nothing written


def annotate(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "samsa", "annotate", *args, "--no-browser", "-q"],
                          capture_output=True, text=True, timeout=120, cwd=cwd)  # fmt: skip


def _one_line(run) -> str:
    assert run.returncode == 1, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    return lines[0]


def test_bad_input_gets_one_line_and_nothing_written(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("John saw Mary.\nShe left.\n", encoding="utf-8")
    out = tmp_path / "out"
    assert "no line 3" in _one_line(annotate("--source", str(src), "--lines", "1,3", "--out", str(out)))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert "file/out" in _one_line(annotate("--source", str(src), "--lines", "1", "--out", str(blocker / "out")))
    assert "is not a directory" in _one_line(annotate("--source", str(src), "--lines", "1", "--out", str(blocker)))
    other = tmp_path / "other.txt"
    other.write_text("Another sentence.\nAnd another.\n", encoding="utf-8")
    plan = tmp_path / "plan.json"
    made = subprocess.run([sys.executable, "-m", "samsa", "sample", "--source", str(other), str(other), "--budget",
                           "1", "-o", str(plan), "-q"], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert "a plan for other sources" in _one_line(
        annotate("--source", str(src), "--plan", str(plan), "--out", str(out))
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _one_line(annotate("--source", str(src), "--lines", "1", "--out", str(out), "--port", str(port)))
    assert f"port {port} is in use" in line
    assert not out.exists()


# ---------------------------------------------------------------- live estimate, and German


def test_the_live_estimate_is_score_with_the_plan(tmp_path):
    """Once every drawn line is annotated, the workspace's estimate is what samsa score --plan gives, computed in
    this process: nothing read from the plan is run (a plan that names a command line is data)."""
    from samsa.cli import main
    from samsa.cli.common import AlignerChoice, Runtime
    from samsa.cli.planned import LiveEstimate
    from samsa.engine.plan import read_plan
    from samsa.engine.uncertainty import run_doubt
    from samsa.languages import get_language
    from samsa.registry import get_parser

    src, out = FIXTURES / "paper_sources.txt", FIXTURES / "paper_outputs.txt"
    plan_path = tmp_path / "plan.json"
    assert main(["sample", "--source", str(src), str(out), "--budget", "2", "-o", str(plan_path), "-q"]) == 0
    doc = json.loads(plan_path.read_text(encoding="utf-8"))
    assert "score_args" not in doc and doc["text"] == {"tokenizer": None, "separator": None, "splitter": None}
    doc["score_args"] = ["score", "-o", str(tmp_path / "escaped.txt")]  # an old plan's field: never run
    plan_path.write_text(json.dumps(doc), encoding="utf-8")
    sources = src.read_text(encoding="utf-8").splitlines()
    plan = read_plan(plan_path, str(src), sources)
    gold = {1: "ucca/paper/1_john_home_call.xml", 2: "ucca/paper/2_read_book.xml"}
    ann = tmp_path / "ann"
    ann.mkdir()
    parser = get_parser("builtin")
    config = AlignerChoice().samsa_config(get_language("en"), parser, splitter="rule.v2")
    systems = {"paper_outputs.txt": out.read_text(encoding="utf-8").splitlines()}
    estimator = LiveEstimate(plan, str(ann), (str(src), sources), systems, (config, run_doubt(parser, wanted=True)),
                              Runtime(use_cache=False))  # fmt: skip
    lines = [Line(k, sources[k - 1], skeleton_of(load_passage(FIXTURES / gold[k])), {}) for k in (1, 2)]
    workspace = Workspace(lines, ann, plan.drawn, estimator)
    assert workspace.estimate() == {"available": False, "why": "2 drawn line(s) to annotate and mark done"}
    for k in (1, 2):
        (ann / f"{k}.xml").write_bytes((FIXTURES / gold[k]).read_bytes())
    live = workspace.estimate()
    assert live["available"], live
    rows = tmp_path / "score.json"
    argv = ["score", "--source", str(src), str(out), "--plan", str(plan_path), "--ucca", str(ann), "-f", "json"]
    assert main([*argv, "-q", "--no-cache", "-o", str(rows)]) == 0
    row = json.loads(rows.read_text(encoding="utf-8"))
    assert live["signature"] == row["estimate"]["signature"]
    assert live["systems"] == [{"name": "paper_outputs.txt", "parsed": live["systems"][0]["parsed"], "estimate": 75.0,
                                "low": 75.0, "high": 75.0}]  # fmt: skip
    assert row["estimate"]["samsa"] == 75.0 and not (tmp_path / "escaped.txt").exists()


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_lines_are_parsed_and_served_in_their_language(tmp_path, lang):
    """German and French: the line in the language's tokens, its parse by the language's pipeline, the Scene
    count's distribution from the language's calibration (French's own, fitted on French-20K dev)."""
    from samsa.languages import get_language
    from samsa.text import tokenize

    if lang == "fr":
        from samsa.errors import PluginUnavailable
        from samsa.parsers.builtin.e5 import find_e5

        try:
            find_e5()
        except PluginUnavailable as e:
            pytest.skip(str(e))
    src = FIXTURES / f"{lang}_sources.txt"
    command = [sys.executable, "-m", "samsa", "annotate", "--lang", lang, "--source", str(src), "--lines", "1",
               "--out", str(tmp_path / "ann"), "--no-browser", "--port", "0", "-q"]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline() if proc.stdout else ""
        port, token = first.split(":")[-1].split("/")[0], first.strip().split("token=")[-1]
        conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
        conn.request("GET", "/api/line/1", headers={"Host": f"127.0.0.1:{port}", "X-Samsa-Token": token})
        view = json.loads(conn.getresponse().read())
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    line = src.read_text(encoding="utf-8").splitlines()[0]
    assert view.get("tokens") == tokenize(line, get_language(lang).tokenizer), err
    assert view["parse"]["scenes"] and sum(view["scene_counts"].values()) == pytest.approx(1.0, abs=1e-3)


TWO = Skeleton(("John", "left", "and", "Mary", "cried", "."), (False,) * 5 + (True,), ())

#: two ways to enter the Scenes of "John left and Mary cried .": edits as the page sends them (``scene`` is the
#: index the page shows at that moment)
EDIT_ORDERS = {
    "left to right": [("new_scene", 0, [2]), ("add_participant", 0, [1]), ("new_scene", 0, [5]),
                      ("add_participant", 1, [4])],
    "right to left, words last": [("new_scene", 0, [5]), ("new_scene", 0, [2]), ("add_participant", 1, [4]),
                                  ("add_participant", 0, [1])],
    "main relation moved": [("new_scene", 0, [4]), ("new_scene", 0, [1]), ("set_main", 0, [5]),
                            ("set_words", 0, [5]), ("add_participant", 1, [4]), ("set_main", 1, [2]),
                            ("set_words", 0, [2]), ("add_participant", 0, [1])],
}  # fmt: skip


def test_the_same_scenes_in_any_order_of_edits_give_the_same_file_and_samsa(tmp_path):
    """samsa's Scene order (text order) is what the page shows after each edit and what it saves: the file, and
    paper SAMSA, do not depend on the order in which the Scenes were entered."""
    from samsa.scoring.metric import Samsa

    files = {}
    for name, edits in EDIT_ORDERS.items():
        out = tmp_path / name.replace(" ", "_")
        out.mkdir()
        workspace = Workspace([Line(1, "John left and Mary cried .", TWO._replace(passage_id="1"), {})], out)
        scenes: list = []
        for edit, scene, selection in edits:
            answer = workspace.edit(
                1, {"scenes": scenes, "edit": {"name": edit, "scene": scene, "selection": selection}}
            )
            scenes = answer["scenes"]
            firsts = [min(s["words"]) for s in scenes]
            assert firsts == sorted(firsts), name  # the page shows the Scenes in samsa's order after every edit
        workspace.save(1, {"scenes": scenes, "done": True})
        files[name] = (out / "1.xml").read_bytes()
    assert len(set(files.values())) == 1
    g = load_passage(tmp_path / "left_to_right" / "1.xml")
    assert [" ".join(TWO.tokens[p - 1] for p in s.words) for s in skeleton_of(g).scenes] == ["John left", "Mary cried"]
    metric = Samsa(tokenizer="none")
    # "Mary cried . John left .": each Scene in its own sentence whatever their order in the output
    assert metric.score_graph(g, "Mary cried . John left .").samsa == 100.0


def test_a_gold_skeleton_with_its_scenes_shuffled_is_saved_as_one_file(tmp_path):
    """Every order of the paper example's Scenes (participants renumbered) saves the same bytes: those of
    ``samsa skeleton --text-order`` (its passage ID the line's)."""
    import itertools
    import re

    gold = skeleton_of(load_passage(FIXTURES / "ucca/paper/1_john_home_call.xml"))
    saved = set()
    for order in itertools.permutations(range(len(gold.scenes))):
        new = {old: k for k, old in enumerate(order)}
        shuffled = [gold.scenes[old] for old in order]
        shuffled = [s._replace(participants=tuple(p._replace(scene=None if p.scene is None else new[p.scene])
                    for p in reversed(s.participants))) for s in shuffled]  # fmt: skip
        out = tmp_path / "-".join(map(str, order))
        out.mkdir()
        line = Line(1, " ".join(gold.tokens), gold._replace(passage_id="1"), {})
        scenes = gold._replace(scenes=tuple(shuffled)).to_json()["scenes"]
        Workspace([line], out).save(1, {"scenes": scenes, "done": True})
        saved.add((out / "1.xml").read_bytes())
    cli = tmp_path / "cli"
    run = subprocess.run(
        [sys.executable, "-m", "samsa", "skeleton", str(FIXTURES / "ucca/paper"), str(cli), "--text-order", "-q"],
        capture_output=True,
    )
    assert run.returncode == 0, run.stderr
    data = re.sub(rb'passageID="[^"]*"', b'passageID="1"', (cli / "1_john_home_call.xml").read_bytes(), count=1)
    assert saved == {data}
