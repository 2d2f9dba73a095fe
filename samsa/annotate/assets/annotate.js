// samsa annotate: the page. Standard DOM only; every text shown goes in as textContent, never as markup.
// Each edit goes to the server, which applies samsa/annotate/edits.py and answers with the skeleton; each is one
// undo step. The keys are samsa/annotate/assets/keys.json's: the page binds them and builds its help from it.
"use strict";
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const clone = (x) => JSON.parse(JSON.stringify(x));

  let overview = null; // /api/overview
  let index = 0; // place of the open line in overview.lines
  let view = null; // /api/line/N
  let scenes = []; // the skeleton being edited
  let active = 0; // the active Scene
  let part = -1; // its active participant (-1: none)
  let selection = new Set();
  let cursor = 1;
  let anchor = null;
  let saving = Promise.resolve();
  let editing = Promise.resolve();
  let bindings = {}; // press -> action (keys.json)
  let estimating = false;
  const histories = new Map(); // line -> {past, future, overwrite}

  async function api(path, body) {
    const opts = { headers: { "X-Samsa-Token": token } };
    if (body !== undefined) {
      opts.method = "POST";
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const r = await fetch(path, opts);
    let data;
    try {
      data = await r.json();
    } catch (e) {
      data = { error: r.statusText };
    }
    return { ok: r.ok, status: r.status, data };
  }

  // ------------------------------------------------------------------ doing an edit
  function history() {
    if (!histories.has(view.line)) histories.set(view.line, { past: [], future: [], overwrite: false });
    return histories.get(view.line);
  }
  function selectedScene() {
    // the Scene (not the active one) whose main relation holds a selected word; else (an implicit main relation)
    // the smallest other Scene whose words hold every selected word
    const k = scenes.findIndex((s, i) => i !== active && s.main.some((c) => c.some((w) => selection.has(w))));
    if (k >= 0 || !selection.size) return k < 0 ? null : k;
    const holding = scenes.map((s, i) => [s.words.length, i]).filter(([, i]) =>
      i !== active && Array.from(selection).every((w) => scenes[i].words.includes(w)));
    holding.sort((a, b) => a[0] - b[0]);
    return holding.length ? holding[0][1] : null;
  }
  function say(text, error) {
    const b = $("banner");
    b.replaceChildren(el("span", null, text));
    b.className = error ? "error" : "";
    b.hidden = !text;
  }
  function pend(step) {
    document.body.dataset.pending = String(Number(document.body.dataset.pending || 0) + step);
  }
  function edit(name) {
    if (!view) return;
    const e = { name, scene: active, participant: part, selection: Array.from(selection) };
    const needsScene = name !== "new_scene";
    const needsPart = ["remove_participant", "recentre", "toggle_remote", "make_implicit", "link_scene"].includes(name);
    if (needsScene && !scenes[active]) return say("no Scene: add one first (select its main relation, press n)", true);
    if (needsPart && !scenes[active].participants[part]) return say("choose a participant first (click it, or ↑ ↓)", true);
    if (["recentre", "set_words"].includes(name) && !selection.size) return say("select words first", true);
    if (["add_scene_participant", "link_scene"].includes(name)) {
      e.target = selectedScene();
      if (e.target === null) return say("select a word of the other Scene first (of its main relation, when it has one)", true);
    }
    selection = new Set();
    const line = view.line;
    pend(1);
    editing = editing.then(async () => {
      const r = await api("/api/line/" + line + "/edit", { scenes, edit: e });
      if (!view || view.line !== line) return;
      if (!r.ok) return say("not done: " + (r.data.error || r.status), true);
      const h = history();
      h.past.push(clone(scenes));
      h.future = [];
      scenes = r.data.scenes;
      active = r.data.active;
      if (name === "delete_scene") part = -1;
      if (name.startsWith("add_")) part = scenes[active].participants.length - 1;
      if (name === "remove_participant") part = Math.min(part, scenes[active].participants.length - 1);
      active = Math.max(0, Math.min(active, scenes.length - 1));
      say("");
      changed();
    }).catch((err) => say("not done: " + err, true)).finally(() => pend(-1));
  }
  function undo(redo) {
    if (!view) return;
    const h = history();
    const [from, to] = redo ? [h.future, h.past] : [h.past, h.future];
    if (!from.length) return;
    to.push(clone(scenes));
    scenes = from.pop();
    active = Math.min(active, Math.max(0, scenes.length - 1));
    part = -1;
    changed();
  }
  function changed(done) {
    render();
    const snapshot = { scenes: clone(scenes), overwrite: history().overwrite, done: done === true };
    const line = view.line;
    $("savestate").textContent = "saving…";
    $("savestate").className = "";
    pend(1);
    saving = saving.then(() => save(line, snapshot)).catch((err) => say("not saved: " + err, true)).finally(() => pend(-1));
  }
  async function post(path, body) {
    // a save the server does not confirm is tried again (a restart keeps the token: the same page goes on)
    for (let attempt = 0; ; attempt++) {
      try {
        return await api(path, body);
      } catch (err) {
        if (attempt >= 60) throw err;
        $("savestate").textContent = "not saved yet: the server does not answer; trying again…";
        $("savestate").className = "error";
        await new Promise((done) => setTimeout(done, 1000));
      }
    }
  }
  async function save(line, body) {
    if (view && view.line === line) body.version = view.version;
    const r = await post("/api/line/" + line, body);
    if (r.ok) {
      Object.assign(overview, { done: r.data.done, total: r.data.total, plan: r.data.plan });
      const row = overview.lines.find((l) => l.line === line);
      if (row) row.status = r.data.status;
      $("savestate").textContent = (r.data.status === "done" ? "done: saved " : "draft: saved ") + r.data.saved;
      $("savestate").className = "";
      if (view && view.line === line) Object.assign(view, { status: r.data.status, version: r.data.version });
      render();
      figures();
      return;
    }
    $("savestate").textContent = "not saved";
    $("savestate").className = "error";
    if (r.status === 409 && r.data.reason === "stale" && view && view.line === line) return stale();
    if (r.status === 409 && view && view.line === line) return foreign(true);
    say("line " + line + " not saved: " + (r.data.error || r.status), true);
  }
  function stale() {
    const again = el("button", null, "reload the line");
    again.type = "button";
    again.id = "reload";
    again.addEventListener("click", () => { histories.delete(view.line); open(index); });
    $("banner").replaceChildren(el("span", null, view.file + " changed since this page opened it (another tab or tool). Your change is not saved: "), again);
    $("banner").className = "error";
    $("banner").hidden = false;
  }
  function foreign(afterEdit) {
    const b = $("banner");
    const text = view.file + (view.saved ? " was written by another tool; it is shown here. " :
      " exists but is not this line's skeleton (another tool's file, or other words). ") +
      (afterEdit ? "Your change is not saved: " : "Saving replaces it only if you allow it: ");
    const allow = el("button", null, "replace " + view.file);
    allow.type = "button";
    allow.id = "allow-replace";
    allow.addEventListener("click", () => { history().overwrite = true; say(""); changed(view.status === "done"); });
    b.replaceChildren(el("span", null, text), allow);
    b.className = "error";
    b.hidden = false;
  }

  // ------------------------------------------------------------------ showing
  const words = (ws) => ws.map((w) => view.tokens[w - 1]).join(" ");
  const centerText = (cs) => (cs.every((c) => !c.length) ? "(implicit)" : cs.filter((c) => c.length).map(words).join(" + "));
  function partText(p) {
    if (p.scene !== null) return "Scene " + (p.scene + 1) + " (" + centerText(scenes[p.scene].main) + ")";
    return centerText(p.centers);
  }
  function render() {
    renderProgress();
    const scene = scenes[active];
    const mainWords = new Set(scene ? scene.main.flat() : []);
    const sceneWords = new Set(scene ? scene.words : []);
    const partOf = new Map();
    if (scene) scene.participants.forEach((p, j) => {
      const cs = p.scene !== null && scenes[p.scene] ? scenes[p.scene].main : p.centers;
      cs.flat().forEach((w) => { if (!partOf.has(w)) partOf.set(w, j); });
    });
    const row = $("tokens");
    row.replaceChildren(...view.tokens.map((text, i) => {
      const k = i + 1;
      const b = el("button", "tok", text);
      b.type = "button";
      b.dataset.pos = String(k);
      if (view.punct[i]) { b.classList.add("punct"); b.tabIndex = -1; }
      if (sceneWords.has(k)) b.classList.add("in-scene");
      if (mainWords.has(k)) b.classList.add("main");
      if (partOf.has(k)) b.classList.add("part", "p" + (partOf.get(k) % 5));
      if (partOf.get(k) === part && part >= 0) b.classList.add("active-part");
      if (selection.has(k)) b.classList.add("selected");
      if (k === cursor) b.classList.add("cursor");
      b.setAttribute("aria-pressed", selection.has(k) ? "true" : "false");
      return b;
    }));
    const counts = Object.entries(view.scene_counts || {});
    $("doubt").textContent = counts.length
      ? "the parse's Scene count: " + counts.sort((a, b) => b[1] - a[1]).map(([c, p]) => c + " (" + Math.round(100 * p) + "%)").join(", ") +
        " · the parse shows " + view.parse.scenes.length + ", this annotation has " + scenes.length
      : "this annotation has " + scenes.length + " Scene(s)";
    $("meta").textContent = "line " + view.line + (view.probability != null ? " · drawn with probability " + view.probability.toFixed(3) : "") +
      " · saved as " + view.file + " (" + { absent: "not yet", draft: "a draft: Enter marks it done", done: "done",
        foreign: "another tool's file" }[view.status] + ")";
    $("edits").textContent = "edits on this line: " + history().past.length;
    renderScenes();
  }
  function renderScenes() {
    const box = $("scenes");
    if (!scenes.length) box.replaceChildren(el("p", null, "No Scene: select a main relation's words and press n."));
    else box.replaceChildren(...scenes.map((s, i) => {
      const card = el("div", "scene" + (i === active ? " active" : ""));
      card.dataset.scene = String(i);
      card.append(el("h2", null, "Scene " + (i + 1) + ": " + words(s.words)));
      const mr = el("p", null, "main relation: ");
      mr.append(el("span", "mainrel", centerText(s.main)));
      card.append(mr);
      s.participants.forEach((p, j) => {
        const r = el("div", "participant" + (i === active && j === part ? " active" : ""));
        r.dataset.participant = String(j);
        r.append(el("span", "swatch p" + (j % 5)), el("span", null, "participant: " + partText(p) + (p.remote ? " · remote" : "")));
        card.append(r);
      });
      card.addEventListener("click", (ev) => {
        active = i;
        const row = ev.target.closest(".participant");
        part = row ? Number(row.dataset.participant) : -1;
        render();
      });
      return card;
    }));
  }
  function renderProgress() {
    if (!overview) return;
    $("position").textContent = "line " + view.line + " · " + (index + 1) + " of " + overview.total;
    $("done").textContent = overview.done + " of " + overview.total + " done";
    $("barfill").style.width = (100 * overview.done / Math.max(1, overview.total)) + "%";
  }
  async function figures() {
    const box = $("figures");
    const rows = [el("h2", null, "Progress"), el("p", null, overview.done + " of " + overview.total + " lines done")];
    const plan = overview.plan;
    if (plan) rows.push(el("p", null, "drawn lines done: " + plan.annotated + " of " + plan.drawn));
    box.replaceChildren(...rows);
    if (!plan || plan.annotated < plan.drawn || estimating) return;
    estimating = true;
    box.append(el("p", "estimating", "estimating…"));
    const r = await api("/api/estimate");
    estimating = false;
    const e = r.data;
    box.querySelector(".estimating")?.remove();
    if (!e.available) { box.append(el("p", null, "no estimate: " + e.why)); return; }
    const t = el("table", "estimate");
    const head = el("tr");
    ["system", "parsed", "estimate", "low", "high"].forEach((h) => head.append(el("th", null, h)));
    t.append(head);
    e.systems.forEach((s) => {
      const tr = el("tr");
      [s.name, s.parsed.toFixed(2), s.estimate.toFixed(2), s.low.toFixed(2), s.high.toFixed(2)].forEach((c) => tr.append(el("td", null, c)));
      t.append(tr);
    });
    box.append(el("h2", null, "Estimate (all-manual SAMSA)"), t, el("p", "command", e.signature));
  }

  // ------------------------------------------------------------------ lines
  async function open(i) {
    if (!overview || i < 0 || i >= overview.lines.length) return;
    await editing;
    await saving;
    index = i;
    const r = await api("/api/line/" + overview.lines[i].line);
    if (!r.ok) return say("cannot open the line: " + (r.data.error || r.status), true);
    view = r.data;
    scenes = clone((view.saved || view.parse).scenes);
    active = 0;
    part = -1;
    selection = new Set();
    cursor = view.punct.findIndex((p) => !p) + 1 || 1;
    say("");
    if (view.status === "foreign" && !history().overwrite) foreign(false);
    $("savestate").textContent = "";
    render();
    figures();
  }
  function toggle(k, range) {
    if (view.punct[k - 1]) return;
    if (range && anchor !== null) {
      const [a, b] = anchor < k ? [anchor, k] : [k, anchor];
      for (let t = a; t <= b; t++) if (!view.punct[t - 1]) selection.add(t);
    } else if (selection.has(k)) selection.delete(k);
    else selection.add(k);
    anchor = k;
    cursor = k;
    render();
  }
  function move(step, extend) {
    let k = cursor;
    do { k += step; } while (k >= 1 && k <= view.tokens.length && view.punct[k - 1]);
    if (k < 1 || k > view.tokens.length) return;
    cursor = k;
    if (extend) selection.add(k);
    render();
  }

  function cycleScene(step) {
    if (!scenes.length) return;
    active = (active + step + scenes.length) % scenes.length;
    part = -1;
    render();
  }
  function cyclePart(step) {
    const n = scenes[active] ? scenes[active].participants.length : 0;
    if (!n) return;
    part = step > 0 ? (part + 1) % n : (part <= 0 ? n - 1 : part - 1);
    render();
  }
  function find(text, pick) {
    // the first word from the cursor on whose text starts with the letters typed (case aside)
    if (!view || !text) return;
    const n = view.tokens.length;
    for (let step = 0; step < n; step++) {
      const k = ((cursor - 1 + step) % n) + 1;
      if (!view.punct[k - 1] && view.tokens[k - 1].toLowerCase().startsWith(text.toLowerCase())) {
        cursor = k;
        if (pick) selection.add(k);
        return render();
      }
    }
  }
  const ACTIONS = {
    done: () => { if (view) editing = editing.then(() => changed(true)); }, // after the edits pressed before it
    find: () => { $("find").value = ""; $("find").focus(); },
    undo: () => undo(false),
    redo: () => undo(true),
    left: () => move(-1, false),
    right: () => move(1, false),
    extend_left: () => move(-1, true),
    extend_right: () => move(1, true),
    toggle: () => toggle(cursor, false),
    clear: () => { selection = new Set(); render(); },
    next_scene: () => cycleScene(1),
    previous_scene: () => cycleScene(-1),
    next_participant: () => cyclePart(1),
    previous_participant: () => cyclePart(-1),
    next_line: () => open(index + 1),
    previous_line: () => open(index - 1),
    jump: () => $("jump").focus(),
    help: () => { $("help").open = !$("help").open; },
  };
  const act = (action) => (ACTIONS[action] ? ACTIONS[action]() : edit(action));
  function pressName(ev) {
    let k = ev.key;
    if (ev.shiftKey && k.length > 1) k = "Shift+" + k;
    return (ev.ctrlKey ? "Ctrl+" : "") + k;
  }
  function onKey(ev) {
    if (ev.target === $("jump") || ev.target === $("find") || ev.altKey || ev.metaKey) return;
    const action = bindings[pressName(ev)];
    if (!action) return;
    act(action);
    ev.preventDefault();
  }
  function useKeys(keys) {
    bindings = {};
    const help = $("keys");
    keys.forEach((k) => {
      k.presses.forEach((p) => { bindings[p] = k.action; });
      const tr = el("tr");
      tr.append(el("th", null, k.shown.replaceAll("`", "")), el("td", null, k.does));
      help.append(tr);
      document.querySelectorAll("[data-edit='" + k.action + "'], [data-action='" + k.action + "']").forEach((b) => {
        b.title = k.shown.replaceAll("`", "");
      });
    });
  }

  async function start() {
    document.addEventListener("keydown", onKey);
    $("tokens").addEventListener("click", (ev) => {
      const b = ev.target.closest(".tok");
      if (b) toggle(Number(b.dataset.pos), ev.shiftKey);
    });
    document.querySelectorAll("[data-edit]").forEach((b) => b.addEventListener("click", () => edit(b.dataset.edit)));
    document.querySelectorAll("[data-action]").forEach((b) => b.addEventListener("click", () => act(b.dataset.action)));
    $("find").addEventListener("input", () => find($("find").value, false));
    $("find").addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") { find($("find").value, true); $("find").blur(); ev.preventDefault(); }
      if (ev.key === "Escape") $("find").blur();
    });
    $("jump").addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter") return;
      const n = Number($("jump").value);
      const i = overview.lines.findIndex((l) => l.line === n);
      if (i < 0) say("line " + $("jump").value + " is not one to annotate here", true);
      else { $("jump").blur(); open(i); }
    });
    const k = await api("/keys.json");
    if (!k.ok) return say("cannot start: no keys", true);
    useKeys(k.data);
    const r = await api("/api/overview");
    if (!r.ok) return say("cannot start: " + (r.data.error || r.status), true);
    overview = r.data;
    await open(overview.resume);
    document.body.dataset.ready = "true";
  }
  start();
})();
