// graph/search.js -- The search box: ids and title words, ranked results, keyboard navigation.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

var hay = null, hayId = null;
function buildHaystack() {
  hay = new Array(N); hayId = new Array(N);
  for (var i = 0; i < N; i++) {
    var n = nodes[i];
    var parts = [n.id, n.title];
    if (Array.isArray(n.tags)) parts.push(n.tags.join(" "));
    var al = n.fields && n.fields.aliases;
    if (Array.isArray(al)) parts.push(al.join(" ")); else if (typeof al === "string") parts.push(al);
    hay[i] = (" " + parts.join(" ")).toLowerCase();
    hayId[i] = String(n.id).toLowerCase();
  }
}
function findMatches(q) {
  if (!hay) buildHaystack();
  var ql = q.trim().toLowerCase();
  if (!ql) return [];
  var words = ql.split(/\s+/).filter(Boolean);
  var out = [], scores = [];
  for (var i = 0; i < N; i++) {
    var hs = hay[i], ok = true, score = 0;
    for (var w = 0; w < words.length; w++) {
      var at = hs.indexOf(words[w]);
      if (at < 0) { ok = false; break; }
      var prev = hs.charCodeAt(at - 1);
      if (prev === 32 || prev === 45 || prev === 40) score += 2; // at a word start
    }
    if (!ok) continue;
    var hid = hayId[i];
    if (hid === ql) score += 1000;
    else if (hid.indexOf(ql) === 0) score += 100;
    else if (hid.indexOf(ql) >= 0) score += 50;
    score += Math.min(degree[i], 200) / 1000;
    out.push(i); scores.push(score);
  }
  var idx = out.map(function (_, j) { return j; });
  idx.sort(function (a, b) { return scores[b] - scores[a] || (hayId[out[a]] < hayId[out[b]] ? -1 : 1); });
  return idx.map(function (j) { return out[j]; });
}

var resultsEl = document.getElementById("rk-results");
var searchEl = document.getElementById("rk-search");
var resultCursor = 0, lastResults = [];
function runSearch(q, enter) {
  var t0 = performance.now();
  searchQuery = q;
  var res = findMatches(q);
  lastResults = res;
  searchHits = res.length ? Int32Array.from(res.slice(0, 5000)) : null;
  var focusTo = -1;
  var exact = idIndex.get(q.trim()) ;
  if (exact === undefined) exact = idIndex.get(q.trim().toUpperCase());
  if (exact !== undefined) focusTo = exact;
  else if (enter && res.length) focusTo = res[resultCursor] !== undefined ? res[resultCursor] : res[0];
  renderResults(res);
  if (focusTo >= 0) {
    setFocus(focusTo, focusState ? focusState.depth : (CONFIG.depth || 1));
    if (enter || exact !== undefined) hideResults();
  }
  invalidate("overlay");
  return {
    query: q, total: res.length, results: res.slice(0, 50).map(function (i) { return nodes[i].id; }),
    focus: focusState ? nodes[focusState.center].id : null, ms: performance.now() - t0
  };
}
function renderResults(res) {
  resultCursor = 0;
  if (!searchQuery.trim()) { hideResults(); return; }
  var lim = Math.min(res.length, 40), html = "";
  for (var j = 0; j < lim; j++) {
    var n = nodes[res[j]];
    html += '<li role="option" data-i="' + res[j] + '" aria-selected="' + (j === 0) + '" title="' + esc(n.title) + '">' +
      '<span class="rk-dot" style="background:' + esc(kindColors[nodeKind[res[j]]]) + '"></span>' +
      '<span class="rk-id">' + esc(n.id) + "</span> " + esc(truncate(n.title, 70)) + "</li>";
  }
  if (!res.length) html = '<li class="rk-more">No record matches.</li>';
  else if (res.length > lim) html += '<li class="rk-more">' + fmt(res.length - lim) + " more…</li>";
  resultsEl.innerHTML = html;
  resultsEl.hidden = false;
}
function hideResults() { resultsEl.hidden = true; }
function moveCursor(d) {
  var items = resultsEl.querySelectorAll("li[data-i]");
  if (!items.length) return;
  resultCursor = (resultCursor + d + items.length) % items.length;
  items.forEach(function (li, j) { li.setAttribute("aria-selected", String(j === resultCursor)); });
  items[resultCursor].scrollIntoView({ block: "nearest" });
}
