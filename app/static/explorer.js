// The argc explorer: posts the text to /api/check and draws what comes back.
// ASPIC+ theories: the argument graph (one SVG group per argument, data-argument its
// canonical name, data-status its grounded label), the claims' statuses, the extensions of
// the chosen semantics and, on a click, an argument's sub-arguments, attackers and the
// explanation of its conclusion. Normative worlds: the verdict, the decisive and defeated
// rules and the certificate. KG worlds: every object's states over the timeline, the
// objects' depths, the family tree and the composite relations.
"use strict";

const EXAMPLES = {
  "Tweety (Modgil & Prakken)": ["arg", `[ordering: last-link elitist]
[query: flies, -flies]
[axiom: penguin]
[strict s1: penguin -> bird]
[defeasible d1: bird => flies]
[defeasible d2: penguin => -flies]
[prefer_rule: d2 > d1]
`],
  "Snores (rebut and undercut)": ["arg", `[query: access, -access]
[premise: snores]
[premise: professor]
[defeasible r1: snores => misbehaves]
[defeasible r2: misbehaves => -access]
[defeasible r3: professor => access]
[defeasible r4: snores => -r3]
[prefer_rule: r1 > r3]
`],
  "Archive entry (normative world)": ["norm", `apprentice(alice).
emergency_rescue(alice).
trainee(X) -> apprentice(X).
[norm r1: apprentice(X) => forbidden(enter_archive(X))]
[norm r2: emergency_rescue(X) => permitted(enter_archive(X))]
[priority: r2 > r1]
[query: enter_archive(alice)]
`],
  "A ball sold on (KG world)": ["kg", `person alice_smith: female.
person bob_jones: male.
person carol_white: female.
object red_ball.
own(alice_smith, red_ball).
sale(alice_smith, carol_white, red_ball).
break(carol_white, red_ball).
father(bob_jones, carol_white).
`],
};

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let current = null; // {record, grounded, statuses}

function option(select, value, text) {
  const item = document.createElement("option");
  item.value = value;
  item.textContent = text;
  select.appendChild(item);
}

function loadExample(name) {
  const [language, text] = EXAMPLES[name];
  $("language").value = language;
  $("theory").value = text;
}

// The request of the form as it stands, with `extra` fields.
function request(extra) {
  const body = { text: $("theory").value, language: $("language").value, ...extra };
  for (const field of ["ordering", "set", "semantics"]) {
    if ($(field).value && body.language === "arg" && !(field in body)) body[field] = $(field).value;
  }
  return body;
}

async function check(body) {
  const reply = await fetch("/api/check", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const record = await reply.json();
  if (!reply.ok) throw new Error(record.error || `HTTP ${reply.status}`);
  return record;
}

function clear() {
  for (const id of ["graph", "details", "claims", "extensions", "world", "message"]) {
    $(id).replaceChildren();
  }
}

async function solve() {
  clear();
  current = null;
  $("message").textContent = "solving…";
  try {
    const asked = request({});
    const record = await check(asked);
    $("message").textContent = "";
    if ($("language").value === "arg") {
      const grounded = record.semantics === "grounded" ? record : await check({ ...asked, semantics: "grounded" });
      current = { record, asked, statuses: labelling(grounded) };
      drawTheory(record, current.statuses);
    } else if ($("language").value === "norm") {
      drawNorm(record);
    } else {
      drawKg(record);
    }
  } catch (error) {
    $("message").textContent = error.message;
  }
}

// The grounded labelling: in the grounded extension, out when an argument that is in
// defeats it, undec otherwise.
function labelling(grounded) {
  const inside = new Set(grounded.extensions[0] || []);
  const statuses = {};
  for (const name of grounded.arguments) statuses[name] = inside.has(name) ? "in" : "undec";
  for (const [attacker, attacked] of grounded.defeats) {
    if (inside.has(attacker) && statuses[attacked] !== "in") statuses[attacked] = "out";
  }
  return statuses;
}

// Arguments in columns by height (premises first), sub-argument and attack edges between.
function layout(graph) {
  const byName = Object.fromEntries(graph.arguments.map((a) => [a.name, a]));
  const height = {};
  const measure = (name) => {
    if (!(name in height)) {
      height[name] = 0;
      height[name] = Math.max(-1, ...byName[name].subarguments.map(measure)) + 1;
    }
    return height[name];
  };
  graph.arguments.forEach((a) => measure(a.name));
  const columns = [];
  for (const argument of graph.arguments) (columns[height[argument.name]] ||= []).push(argument);
  const place = {};
  const width = 200, gap = 60, row = 44;
  columns.forEach((column, x) =>
    column.forEach((argument, y) => {
      place[argument.name] = { x: 20 + x * (width + gap), y: 20 + y * row, width, height: 28 };
    }),
  );
  const tallest = Math.max(1, ...columns.map((c) => (c ? c.length : 0)));
  return { place, width: 40 + columns.length * (width + gap), height: 40 + tallest * row };
}

function element(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function drawTheory(record, statuses) {
  const graph = record.graph;
  const { place, width, height } = layout(graph);
  const svg = element("svg", { xmlns: SVG, width, height, viewBox: `0 0 ${width} ${height}` });
  const defs = element("defs", {}, svg);
  const marker = element("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
    markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, defs);
  element("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#b3261e" }, marker);
  const centre = (name) => ({ x: place[name].x + place[name].width / 2,
    y: place[name].y + place[name].height / 2 });
  for (const argument of graph.arguments) {
    for (const sub of argument.subarguments) {
      const [a, b] = [centre(sub), centre(argument.name)];
      element("line", { class: "sub", x1: a.x, y1: a.y, x2: b.x, y2: b.y }, svg);
    }
  }
  for (const attack of graph.attacks) {
    const [a, b] = [centre(attack.attacker), centre(attack.on)];
    element("line", { class: attack.defeat ? "attack" : "attack failed", x1: a.x, y1: a.y,
      x2: b.x, y2: b.y, "marker-end": "url(#arrow)" }, svg);
  }
  for (const argument of graph.arguments) {
    const box = place[argument.name];
    const group = element("g", { class: "node", "data-argument": argument.name,
      "data-status": statuses[argument.name] }, svg);
    element("rect", { x: box.x, y: box.y, width: box.width, height: box.height, rx: 4 }, group);
    const label = element("text", { x: box.x + 6, y: box.y + 18 }, group);
    label.textContent = argument.name.length > 30 ? argument.name.slice(0, 29) + "…" : argument.name;
    element("title", {}, group).textContent = `${argument.name}: ${statuses[argument.name]}`;
    group.addEventListener("click", () => showArgument(argument, group));
  }
  $("graph").appendChild(svg);
  drawClaims(record);
  drawExtensions(record);
}

function table(headers, rows, attribute) {
  const node = document.createElement("table");
  if (headers.some(Boolean)) {
    const head = node.insertRow();
    for (const text of headers) {
      const cell = document.createElement("th");
      cell.textContent = text;
      head.appendChild(cell);
    }
  }
  for (const row of rows) {
    const line = node.insertRow();
    if (attribute) line.setAttribute(attribute[0], row[attribute[1]]);
    for (const text of row) line.insertCell().textContent = text;
  }
  return node;
}

function heading(parent, text) {
  const node = document.createElement("h2");
  node.textContent = text;
  parent.appendChild(node);
}

function drawClaims(record) {
  heading($("claims"), "Claims (grounded status)");
  const rows = Object.entries(record.statuses).map(([claim, status]) => {
    const acceptance = record.acceptance[claim] || {};
    return [claim, status, acceptance.credulous ? "yes" : "no", acceptance.skeptical ? "yes" : "no"];
  });
  const node = table(["claim", "status", "credulous", "skeptical"], rows, ["data-claim", 0]);
  $("claims").appendChild(node);
}

function drawExtensions(record) {
  heading($("extensions"), `${record.semantics} extensions: ${record.extensions.length}`);
  const list = document.createElement("ul");
  for (const extension of record.extensions) {
    const item = document.createElement("li");
    item.textContent = `{${extension.join(", ")}}`;
    list.appendChild(item);
  }
  $("extensions").appendChild(list);
}

async function showArgument(argument, group) {
  document.querySelectorAll("g.node.selected").forEach((node) => node.classList.remove("selected"));
  group.classList.add("selected");
  const details = $("details");
  details.replaceChildren();
  heading(details, argument.name);
  const attackers = current.record.graph.attacks.filter((a) => a.attacked === argument.name);
  const facts = [
    ["conclusion", argument.conclusion],
    ["kind", argument.kind],
    ["grounded label", current.statuses[argument.name]],
    ["sub-arguments", argument.subarguments.join(", ") || "none"],
    ["attackers", attackers.map((a) => `${a.attacker} (${a.kind} on ${a.on}${a.defeat ? ", defeats" : ""})`).join("; ") || "none"],
  ];
  details.appendChild(table(["", ""], facts));
  // the theory as solved, even if the text has been edited since
  const explained = await check({ ...current.asked, explain: [argument.conclusion] });
  const text = document.createElement("pre");
  text.className = "explanation";
  text.textContent = (explained.explanations[argument.conclusion] || []).join("\n");
  details.appendChild(text);
}

function drawNorm(record) {
  const world = $("world");
  heading(world, `${record.query}: ${record.answer}`);
  world.appendChild(ruleGraph(record));
  const rows = Object.entries(record.statuses || {}).map(([rule, status]) => [rule, status]);
  world.appendChild(table(["rule", "status"], rows, ["data-rule", 0]));
  const lists = [["decisive", record.decisive], ["defeated", record.defeated]];
  world.appendChild(table(["", "rules"], lists.map(([name, rules]) => [name, (rules || []).join(", ")])));
  heading(world, "Certificate");
  const certificate = document.createElement("pre");
  certificate.textContent = JSON.stringify(record, null, 2);
  world.appendChild(certificate);
}

// The rules in a row, each a node with its status (and decisive / defeated), the attacks
// between them as arrows, solid where they defeat.
function ruleGraph(record) {
  const rules = Object.keys(record.statuses || {});
  const width = 40 + rules.length * 140, height = 160;
  const svg = element("svg", { xmlns: SVG, width, height, viewBox: `0 0 ${width} ${height}`,
    class: "rules" });
  const defs = element("defs", {}, svg);
  const marker = element("marker", { id: "rule-arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
    markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, defs);
  element("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#b3261e" }, marker);
  const at = Object.fromEntries(rules.map((rule, index) => [rule, 20 + index * 140]));
  const defeats = new Set((record.defeats || []).map(([a, b]) => `${a} ${b}`));
  for (const [attacker, attacked] of record.attacks || []) {
    const [from, to] = [at[attacker] + 50, at[attacked] + 50];
    const bend = from < to ? 20 : 140;
    element("path", { class: defeats.has(`${attacker} ${attacked}`) ? "attack" : "attack failed",
      d: `M ${from} ${bend === 20 ? 60 : 100} Q ${(from + to) / 2} ${bend} ${to} ${bend === 20 ? 60 : 100}`,
      fill: "none", "marker-end": "url(#rule-arrow)" }, svg);
  }
  const roles = {};
  for (const rule of record.decisive || []) roles[rule] = "decisive";
  for (const rule of record.defeated || []) roles[rule] = "defeated";
  const label = { justified: "in", overruled: "out", undecided: "undec" };
  for (const rule of rules) {
    const group = element("g", { class: "node", "data-rule": rule,
      "data-status": label[record.statuses[rule]] || "undec", "data-role": roles[rule] || "" }, svg);
    element("rect", { x: at[rule], y: 60, width: 100, height: 40, rx: 4 }, group);
    const text = element("text", { x: at[rule] + 8, y: 85 }, group);
    text.textContent = roles[rule] ? `${rule} (${roles[rule]})` : rule;
  }
  return svg;
}

function drawKg(record) {
  const world = $("world");
  const timeline = record.timeline || [];
  const objects = timeline.length ? Object.keys(timeline[0].states) : [];
  const state = (s) => (s ? `(${s.owner}, ${s.possessor}, ${s.integrity})` : "");
  heading(world, "Timeline (owner, possessor, integrity)");
  const rows = timeline.map((step) => [step.time, step.event || "initial",
    ...objects.map((thing) => state(step.states[thing]))]);
  world.appendChild(table(["time", "event", ...objects], rows, ["data-time", 0]));
  heading(world, "Object depths");
  world.appendChild(table(["object", "depth"], Object.entries(record.depths || {})));
  heading(world, "Family tree");
  world.appendChild(familyTree(record));
  heading(world, "Composite relations");
  world.appendChild(table(["relation", "of", "to"], record.relations || []));
}

// The persons in generations (a parent one row above its children, from the stated father,
// mother, son and daughter facts), each a node with data-person and data-gender; parent
// links as lines, spouses and siblings as dashed lines, friends dotted.
function familyTree(record) {
  const persons = Object.keys(record.persons || {});
  const parents = {};
  const links = [];
  for (const [relation, x, y] of record.kinship || []) {
    const [parent, child] = ["father", "mother"].includes(relation) ? [x, y]
      : ["son", "daughter"].includes(relation) ? [y, x] : [null, null];
    if (parent) (parents[child] ||= []).push(parent);
    links.push([relation, x, y, parent ? "parent" : relation === "friend" ? "friend" : "family"]);
  }
  const generation = {};
  const depth = (person, seen = new Set()) => {
    if (!(person in generation)) {
      if (seen.has(person)) return 0;
      seen.add(person);
      generation[person] = Math.max(-1, ...(parents[person] || []).map((p) => depth(p, seen))) + 1;
    }
    return generation[person];
  };
  persons.forEach((person) => depth(person));
  const rows = [];
  for (const person of persons) (rows[generation[person]] ||= []).push(person);
  const place = {};
  rows.forEach((row, y) => row.forEach((person, x) => { place[person] = { x: 20 + x * 190, y: 20 + y * 80 }; }));
  const width = 40 + Math.max(1, ...rows.map((row) => row.length)) * 190;
  const svg = element("svg", { xmlns: SVG, width, height: 40 + rows.length * 80, class: "family" });
  for (const [relation, x, y, kind] of links) {
    if (!(x in place) || !(y in place)) continue;
    const line = element("line", { class: `kin ${kind}`, "data-relation": relation,
      x1: place[x].x + 80, y1: place[x].y + 15, x2: place[y].x + 80, y2: place[y].y + 15 }, svg);
    element("title", {}, line).textContent = `${relation}(${x}, ${y})`;
  }
  for (const person of persons) {
    const group = element("g", { class: "person", "data-person": person,
      "data-gender": record.persons[person] }, svg);
    element("rect", { x: place[person].x, y: place[person].y, width: 160, height: 30, rx: 15 }, group);
    element("text", { x: place[person].x + 10, y: place[person].y + 20 }, group).textContent = person;
  }
  return svg;
}

function download(name, type, content) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([content], { type }));
  link.download = name;
  link.click();
}

function svgText() {
  const svg = $("graph").querySelector("svg");
  return svg ? new XMLSerializer().serializeToString(svg) : null;
}

function dotText() {
  if (!current) return null;
  const quote = (text) => `"${text.replaceAll('"', '\\"')}"`;
  const lines = ["digraph argc {", "  rankdir=LR;"];
  for (const argument of current.record.graph.arguments) {
    lines.push(`  ${quote(argument.name)} [label=${quote(argument.name)}, status=${current.statuses[argument.name]}];`);
    for (const sub of argument.subarguments) lines.push(`  ${quote(sub)} -> ${quote(argument.name)} [style=dotted];`);
  }
  for (const attack of current.record.graph.attacks) {
    lines.push(`  ${quote(attack.attacker)} -> ${quote(attack.on)} [color=red, label=${attack.kind}${attack.defeat ? "" : ", style=dashed"}];`);
  }
  return lines.concat("}").join("\n") + "\n";
}

function exportPng() {
  const text = svgText();
  if (!text) return;
  const svg = $("graph").querySelector("svg");
  const image = new Image();
  image.onload = () => {
    const canvas = document.createElement("canvas");
    canvas.width = svg.width.baseVal.value;
    canvas.height = svg.height.baseVal.value;
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0);
    canvas.toBlob((blob) => download("argc.png", "image/png", blob));
  };
  image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
}

window.addEventListener("DOMContentLoaded", () => {
  for (const name of Object.keys(EXAMPLES)) option($("examples"), name, name);
  $("examples").addEventListener("change", () => loadExample($("examples").value));
  loadExample(Object.keys(EXAMPLES)[0]);
  $("solve").addEventListener("click", solve);
  $("export-svg").addEventListener("click", () => svgText() && download("argc.svg", "image/svg+xml", svgText()));
  $("export-dot").addEventListener("click", () => dotText() && download("argc.dot", "text/vnd.graphviz", dotText()));
  $("export-png").addEventListener("click", exportPng);
});
