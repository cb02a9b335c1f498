// graph/data.js -- The embedded index and configuration; kinds, statuses and relations as small
// integer codes; colours (from the index: the schema's, never written here);
// helpers (escaping, formatting) and the adjacency every later part uses.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

var DATA = JSON.parse(document.getElementById("rk-data").textContent);
var CONFIG = JSON.parse(document.getElementById("rk-config").textContent);
var META = DATA.meta || {};
var nodes = Array.isArray(DATA.nodes) ? DATA.nodes : [];
var rawLinks = Array.isArray(DATA.links) ? DATA.links : [];
var N = nodes.length;

var DEFAULT_REL_COLORS = {
  paper: "#9c755f", source: "#4e79a7", extends: "#b07aa1", bears_on: "#f28e2b",
  grounds: "#59a14f", about: "#b6992d", answered_by: "#2a9d8f", promoted_by: "#e15759",
  cites: "#6f8fb3", contradicts: "#d62728", mention: "#8c959f", mentions: "#8c959f"
};
// Statuses drawn faint and lighter: the schema's, passed in the index
// (meta.faded_statuses: its broken_statuses and graph.faded_statuses;
// meta.tentative_statuses: graph.tentative_statuses), never written here.
function statusSet(list) {
  var out = Object.create(null);
  (Array.isArray(list) ? list : []).forEach(function (s) { out[String(s)] = 1; });
  return out;
}
var FADED_STATUSES = statusSet(META.faded_statuses);
var TENTATIVE_STATUSES = statusSet(META.tentative_statuses);
// A record with no kind (or one the schema lacks) is drawn as this, never
// under a kind made up from its id.
var NO_KIND = "(no kind)";
var NO_KIND_COLOR = "#8c959f";
var ORIGINS = ["frontmatter", "body", "derived", "other"];
var ORIGIN_LABELS = { frontmatter: "front matter", body: "body mention", derived: "derived", other: "other" };
var ORIGIN_DASH = { frontmatter: [], body: [5, 3], derived: [1.5, 2.5], other: [8, 3, 1.5, 3] };
var DENSE_EDGES = 4000;
var STANDINGS = ["ready", "blocked", "awaiting-judgement", "established", "undermined"];
var STANDING_LABELS = {
  ready: "ready to promote", blocked: "blocked", "awaiting-judgement": "awaiting judgement",
  established: "established", undermined: "undermined"
};

function hashString(s) {
  var h = 2166136261;
  for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
function fallbackColor(name) {
  var h = hashString(String(name));
  return "hsl(" + (h % 360) + "," + (45 + (h >> 9) % 20) + "%," + (40 + (h >> 17) % 12) + "%)";
}
function validColor(c) { return typeof c === "string" && /^#[0-9a-fA-F]{3,8}$|^(rgb|hsl)a?\([\d.,%\s\/+\-deg]*\)$|^[a-zA-Z]+$/.test(c); }
function titleCase(s) {
  s = String(s).replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}
function esc(s) {
  return String(s == null ? "" : s).replace(/[&<>"']/g, function (c) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
  });
}
function truncate(s, n) {
  s = String(s == null ? "" : s).replace(/\s+/g, " ").trim();
  if (s.length <= n) return s;
  var cut = s.slice(0, n - 1), sp = cut.lastIndexOf(" ");
  if (sp > n * 0.6) cut = cut.slice(0, sp);
  return cut.replace(/[\s,;:.\-–—]+$/, "") + "…";
}
function fmt(n) { return Number(n).toLocaleString("en-US"); }

// Kinds
var kindNames = [], kindIndex = new Map();
function kindCode(k) {
  k = String(k || "?");
  if (!kindIndex.has(k)) { kindIndex.set(k, kindNames.length); kindNames.push(k); }
  return kindIndex.get(k);
}
Object.keys(META.kinds || {}).forEach(kindCode);
var idIndex = new Map();
var nodeKind = new Uint16Array(N);
for (var i0 = 0; i0 < N; i0++) {
  var nd = nodes[i0];
  idIndex.set(String(nd.id), i0);
  var known = nd.kind != null && Object.prototype.hasOwnProperty.call(META.kinds || {}, String(nd.kind));
  nodeKind[i0] = kindCode(known ? nd.kind : NO_KIND);
}
// A kind's colour is the schema's, passed in the index (meta.kinds[k].color);
// only a kind the index gives no colour gets one made from its name.
var kindColors = kindNames.map(function (k) {
  if (k === NO_KIND && !Object.prototype.hasOwnProperty.call(META.kinds || {}, k)) return NO_KIND_COLOR;
  var m = (META.kinds || {})[k];
  if (m && validColor(m.color)) return m.color;
  return fallbackColor(k);
});
var kindCounts = kindNames.map(function () { return 0; });
for (var i1 = 0; i1 < N; i1++) kindCounts[nodeKind[i1]]++;

// Statuses (kind:status keys)
var statusKeys = [], statusIndex = new Map();
function statusCode(kind, st) {
  var key = kind + ":" + (st == null ? "" : st);
  if (!statusIndex.has(key)) { statusIndex.set(key, statusKeys.length); statusKeys.push(key); }
  return statusIndex.get(key);
}
kindNames.forEach(function (k) {
  var m = (META.kinds || {})[k];
  (m && Array.isArray(m.statuses) ? m.statuses : []).forEach(function (s) { statusCode(k, s); });
});
var nodeStatus = new Uint16Array(N);
var nodeAlphaLevel = new Uint8Array(N); // 0 normal, 1 tentative, 2 faded
var ALPHA_LEVELS = [1, 0.62, 0.28];
var nodeStanding = new Int8Array(N).fill(-1);
for (var i2 = 0; i2 < N; i2++) {
  var n2 = nodes[i2], st = n2.status == null ? "" : String(n2.status);
  nodeStatus[i2] = statusCode(kindNames[nodeKind[i2]], st);
  nodeAlphaLevel[i2] = FADED_STATUSES[st] ? 2 : TENTATIVE_STATUSES[st] ? 1 : 0;
  var sIx = STANDINGS.indexOf(n2.standing);
  nodeStanding[i2] = sIx;
}
var statusCounts = statusKeys.map(function () { return 0; });
for (var i3 = 0; i3 < N; i3++) statusCounts[nodeStatus[i3]]++;

// Tags
var tagCounts = new Map();
for (var i4 = 0; i4 < N; i4++) {
  var tg = nodes[i4].tags;
  if (Array.isArray(tg)) for (var t = 0; t < tg.length; t++) tagCounts.set(tg[t], (tagCounts.get(tg[t]) || 0) + 1);
}
var tagNames = Array.from(tagCounts.keys()).sort(function (a, b) {
  return tagCounts.get(b) - tagCounts.get(a) || (a < b ? -1 : a > b ? 1 : 0);
});

// Relations and links
var relNames = [], relIndex = new Map();
function relCode(r) {
  r = String(r || "?");
  if (!relIndex.has(r)) { relIndex.set(r, relNames.length); relNames.push(r); }
  return relIndex.get(r);
}
Object.keys(META.relations || {}).forEach(relCode);
var M = 0, danglingLinks = 0;
var lsrc = new Int32Array(rawLinks.length), ltgt = new Int32Array(rawLinks.length);
var lrel = new Uint16Array(rawLinks.length), lorig = new Uint8Array(rawLinks.length);
for (var e0 = 0; e0 < rawLinks.length; e0++) {
  var L = rawLinks[e0];
  var s0 = idIndex.get(String(L.source)), t0 = idIndex.get(String(L.target));
  if (s0 === undefined || t0 === undefined) { danglingLinks++; continue; }
  lsrc[M] = s0; ltgt[M] = t0; lrel[M] = relCode(L.relation || (L.origin === "body" ? "mention" : "?"));
  var o = ORIGINS.indexOf(L.origin); lorig[M] = o < 0 ? 3 : o;
  M++;
}
var relColors = relNames.map(function (r) {
  var m = (META.relations || {})[r];
  if (m && validColor(m.color)) return m.color;
  return DEFAULT_REL_COLORS[r] || fallbackColor("rel:" + r);
});
var relCounts = relNames.map(function () { return 0; });
var originCounts = [0, 0, 0, 0];
for (var e1 = 0; e1 < M; e1++) { relCounts[lrel[e1]]++; originCounts[lorig[e1]]++; }

// Undirected adjacency (CSR): neighbour and link index
var degree = new Int32Array(N);
for (var e2 = 0; e2 < M; e2++) { if (lsrc[e2] !== ltgt[e2]) { degree[lsrc[e2]]++; degree[ltgt[e2]]++; } }
var adjStart = new Int32Array(N + 1);
for (var i5 = 0; i5 < N; i5++) adjStart[i5 + 1] = adjStart[i5] + degree[i5];
var adjNode = new Int32Array(adjStart[N]), adjLink = new Int32Array(adjStart[N]);
(function () {
  var fill = adjStart.slice(0, N);
  for (var e = 0; e < M; e++) {
    var s = lsrc[e], t = ltgt[e];
    if (s === t) continue;
    adjNode[fill[s]] = t; adjLink[fill[s]++] = e;
    adjNode[fill[t]] = s; adjLink[fill[t]++] = e;
  }
})();

// Node sizes (world units)
var nodeR = new Float32Array(N);
for (var i6 = 0; i6 < N; i6++) nodeR[i6] = Math.min(15, 4 + 1.6 * Math.sqrt(degree[i6]));

// Draw orders: nodes sorted by (kind, alpha level), edges by (relation, origin)
function sortedOrder(count, keyOf) {
  var order = new Int32Array(count);
  for (var i = 0; i < count; i++) order[i] = i;
  var keys = new Float64Array(count);
  for (var j = 0; j < count; j++) keys[j] = keyOf(j);
  order.sort(function (a, b) { return keys[a] - keys[b] || a - b; });
  return { order: order, keys: keys };
}
var nodeBuckets = sortedOrder(N, function (i) { return nodeKind[i] * 4 + nodeAlphaLevel[i]; });
var edgeBuckets = sortedOrder(M, function (e) {
  // mentions under relations, so typed edges stay visible
  return (lorig[e] === 1 ? 0 : 1) * 1e6 + lrel[e] * 4 + lorig[e];
});
