// The per-sentence explorer: renders the embedded report data; no network, no dependencies.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const systems = data.systems;
  const rows = data.sentences;
  const state = { system: 0, order: "asc", filter: "", selected: null };

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k === "cls") e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children || []) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    return e;
  }
  const fmt = (x) => (x === null || x === undefined ? "" : Number(x).toFixed(2));

  function visible() {
    const f = state.filter.trim().toLowerCase();
    let out = rows.filter((r) => !f || r.tokens.join(" ").toLowerCase().includes(f) ||
      r.systems.some((s) => s.out.toLowerCase().includes(f)) || String(r.line) === f);
    const key = (r) => (state.order === "line" ? r.line : r.systems[state.system].samsa);
    out = out.slice().sort((a, b) => {
      const d = key(a) - key(b);
      return (state.order === "desc" ? -d : d) || a.line - b.line;
    });
    return out;
  }

  function renderList() {
    const body = document.querySelector("#sentences tbody");
    body.textContent = "";
    const list = visible();
    for (const r of list) {
      const tr = el("tr", { "data-line": String(r.line) }, [
        el("td", { text: String(r.line) }),
        el("td", { text: String(r.scenes.length) }),
        el("td", { cls: "src", text: r.tokens.join(" "), title: r.tokens.join(" ") }),
        ...r.systems.map((s) => el("td", {}, [el("span", { cls: "score", text: fmt(s.samsa) }),
          ...(s.parse && s.parse.wide ? [el("span", { cls: "doubt", text: " \u00b1",
            title: "parse in doubt: 90% interval " + fmt(s.parse.low) + "-" + fmt(s.parse.high) })] : [])])),
      ]);
      if (state.selected === r.line) tr.className = "selected";
      tr.addEventListener("click", () => select(r.line));
      body.appendChild(tr);
    }
    document.getElementById("count").textContent = list.length + " of " + rows.length + " " + (data.unit || "sentences");
  }

  function tokenSpans(r, scene, aligned) {
    const mr = new Set(scene.mr.pos);
    const pa = new Set(scene.parts.flatMap((p) => p.pos));
    const centers = new Set([...scene.mr.centers, ...scene.parts.flatMap((p) => p.centers)].flatMap((c) => c.pos));
    const inScene = new Set(scene.pos);
    const al = new Set(aligned || []);
    return el("div", { cls: "tokens" }, r.tokens.flatMap((t, i) => {
      const cls = ["tok"];
      if (mr.has(i)) cls.push("mr");
      else if (pa.has(i)) cls.push("pa");
      else if (!inScene.has(i)) cls.push("out");
      if (centers.has(i)) cls.push("center");
      if (al.has(i)) cls.push("aligned");
      return [el("span", { cls: cls.join(" "), text: t }), " "];
    }));
  }

  const num = (x) => (Number.isInteger(x) ? String(x) : Number(x).toFixed(2));
  const mark = (score) => (score === 1 ? "\u2713 " : score === 0 ? "\u2717 " : "");

  // One chip per unit: its minimal centers together, since the unit scores 1 only if every one of them survives.
  function unitChip(unit, score, role) {
    const words = unit.centers.filter((c) => !c.implicit && c.pos.length).map((c) => c.words.join(" "));
    const what = words.length ? words.join(" + ") : "implicit";
    const cls = score === 1 ? "hit" : score === 0 ? "miss" : "implicit";
    return el("span", { cls: "chip " + cls, "data-role": role, "data-score": String(score),
      text: mark(score) + role + ": " + what + " = " + num(score) });
  }

  // The scene's score as the formula computes it: 0.5 x main relation + 0.5 x mean(participants), where a scene
  // without participants counts the participant half as 0.5.
  function sceneArithmetic(m) {
    const parts = m.parts.length ? "mean(" + m.parts.map(num).join(", ") + ")" : "0.5 (no participant)";
    return "0.5 \u00d7 " + num(m.mr) + " + 0.5 \u00d7 " + parts + " = " + fmt(m.score);
  }

  // SAMSA = non-splitting penalty x SAMSA-abl; SAMSA-abl = 100 x the mean of the scene scores.
  function sentenceArithmetic(s, n) {
    if (!n) return "No scene in the source: SAMSA = SAMSA-abl = 0.";
    if (s.n_out > n) return s.n_out + " sentences for " + n + " scene(s): more sentences than scenes, SAMSA = SAMSA-abl = 0.";
    const abl = "SAMSA-abl = 100 \u00d7 mean(" + s.scenes.map((m) => fmt(m.score)).join(", ") + ") = " + fmt(s.abl);
    return abl + "; SAMSA = penalty " + s.n_out + "/" + n + " \u00d7 SAMSA-abl = " + fmt(s.samsa) + ".";
  }

  function renderDetail(r) {
    const box = document.getElementById("detail");
    box.textContent = "";
    box.appendChild(el("h3", { text: "Line " + r.line + ": " + r.scenes.length + " scene(s)" }));
    box.appendChild(el("div", { cls: "legendbar muted" }, [
      el("span", {}, [el("span", { cls: "tok mr", text: "main relation" })]),
      el("span", {}, [el("span", { cls: "tok pa", text: "participant" })]),
      el("span", {}, [el("span", { cls: "tok center", text: "minimal center" })]),
      el("span", {}, [el("span", { cls: "tok aligned", text: "aligned into the matched sentence" })]),
    ]));
    const src = el("div", { cls: "source" });
    r.scenes.forEach((sc, k) => {
      src.appendChild(el("div", { cls: "scene", "data-scene": String(k) }, [
        el("strong", { text: "Scene " + (k + 1) + " " }), tokenSpans(r, sc, null)]));
    });
    if (!r.scenes.length) src.appendChild(el("p", { cls: "muted", text: "No scene: every output scores 0." }));
    box.appendChild(src);
    if (r.doubt) box.appendChild(renderDoubt(r));
    r.systems.forEach((s, i) => {
      const scs = r.scenes;
      const n = scs.length;
      const sys = el("div", { cls: "system", "data-system": systems[i] }, [
        el("h4", { text: systems[i] + ": SAMSA " + fmt(s.samsa) + ", SAMSA-abl " + fmt(s.abl) +
          ", non-splitting penalty " + s.n_out + "/" + n + (n && s.n_out > n ? " (more sentences than scenes: 0)" : "") }),
        el("p", { cls: "arith", text: sentenceArithmetic(s, n) }),
        el("ol", { cls: "outsents" }, s.sents.map((t) => el("li", { text: t.join(" ") }))),
      ]);
      s.scenes.forEach((m, k) => {
        const sc = scs[k];
        sys.appendChild(el("div", { cls: "scene-result", "data-scene": String(k) }, [
          el("div", {}, [el("strong", { text: "Scene " + (k + 1) }),
            " \u2192 " + (m.sent === null ? "no sentence" : "sentence " + (m.sent + 1)) + ": score ",
            el("span", { cls: "arith", text: sceneArithmetic(m) })]),
          tokenSpans(r, sc, m.aligned),
          el("div", {}, [unitChip(sc.mr, m.mr, "main relation"),
            ...sc.parts.map((p, j) => unitChip(p, m.parts[j], "participant"))]),
        ]));
      });
      box.appendChild(sys);
    });
  }

  function renderDoubt(r) {
    const counts = Object.entries(r.doubt.scene_counts).filter(([, p]) => p >= 0.01)
      .map(([c, p]) => c + " (" + (100 * p).toFixed(0) + "%)").join(", ");
    const box = el("div", { cls: "doubt-box" }, [
      el("p", {}, [el("strong", { text: "Parse doubt. " }), "Scene count: " + counts + "."]),
      el("ol", { cls: "readings" }, r.doubt.readings.map((x) => el("li", {
        text: (100 * x.p).toFixed(0) + "%: " + (x.scenes.length ? x.scenes.map((w) => "[" + w + "]").join(" ") : "no Scene") }))),
    ]);
    r.systems.forEach((s, i) => {
      if (s.parse) box.appendChild(el("p", { cls: "muted", text: systems[i] + ": over the trees, mean " + fmt(s.parse.mean) +
        ", 90% interval " + fmt(s.parse.low) + "-" + fmt(s.parse.high) + ", P(0) " + fmt(s.parse.p_zero) }));
    });
    return box;
  }

  function select(line) {
    state.selected = line;
    const r = rows.find((x) => x.line === line);
    if (!r) return;
    renderDetail(r);
    for (const tr of document.querySelectorAll("#sentences tbody tr")) {
      tr.className = Number(tr.getAttribute("data-line")) === line ? "selected" : "";
    }
    try { history.replaceState(null, "", "#line=" + line); } catch (e) { /* file: URLs may refuse; harmless */ }
  }

  function init() {
    const sysSel = document.getElementById("sort-system");
    systems.forEach((s, i) => sysSel.appendChild(el("option", { value: String(i), text: s })));
    const head = document.querySelector("#sentences thead tr");
    systems.forEach((s) => head.appendChild(el("th", { text: s })));
    sysSel.addEventListener("change", () => { state.system = Number(sysSel.value); renderList(); });
    document.getElementById("sort-order").addEventListener("change", (e) => { state.order = e.target.value; renderList(); });
    document.getElementById("filter").addEventListener("input", (e) => { state.filter = e.target.value; renderList(); });
    renderList();
    const m = /line=(\d+)/.exec(location.hash);
    const first = visible()[0];
    select(m ? Number(m[1]) : first ? first.line : 1);
  }
  init();
})();
