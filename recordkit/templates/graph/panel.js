// graph/panel.js -- The selected record's panel: fields, relations, backlinks, standing, checks.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

var panel = document.getElementById("rk-panel");
var panelBody = document.getElementById("rk-panel-body");

function refLink(id) {
  var j = idIndex.get(String(id));
  if (j === undefined) return '<span class="rk-missing" title="not in the record">' + esc(id) + "</span>";
  var n = nodes[j];
  return '<a class="rk-ref" data-id="' + esc(n.id) + '" title="' + esc(n.title) + '">' +
    '<span class="rk-dot" style="background:' + esc(kindColors[nodeKind[j]]) + '"></span>' +
    '<span class="rk-id">' + esc(n.id) + "</span></a> — " + esc(truncate(n.title, 90));
}
function refList(ids) {
  if (!Array.isArray(ids)) ids = [ids];
  return "<ul>" + ids.map(function (id) { return "<li>" + refLink(id) + "</li>"; }).join("") + "</ul>";
}
function fieldValue(v) {
  if (v == null) return "—";
  if (Array.isArray(v)) return esc(v.map(function (x) { return typeof x === "object" ? JSON.stringify(x) : String(x); }).join(", "));
  if (typeof v === "object") return "<code>" + esc(JSON.stringify(v)) + "</code>";
  var s = String(v);
  if (/^https?:\/\//.test(s)) return '<a href="' + esc(s) + '" target="_blank" rel="noopener">' + esc(s) + "</a>";
  return esc(s);
}

function panelHTML(i) {
  var n = nodes[i], h = "";
  var kind = kindNames[nodeKind[i]], st = n.status == null ? "" : String(n.status);
  h += '<div class="rk-kindline"><span class="rk-dot" style="background:' + esc(kindColors[nodeKind[i]]) + '"></span>' +
    '<span class="rk-id">' + esc(n.id) + "</span><span>" + esc(kind) + "</span>";
  if (n.standing) h += '<span class="rk-badge ' + esc(n.standing) + '">' + esc(STANDING_LABELS[n.standing] || n.standing) + "</span>";
  h += "</div>";
  h += '<h2 id="rk-panel-title">' + esc(n.title) + "</h2>";
  var f = n.fields || {};
  h += '<h3>Properties</h3><dl id="rk-props">';
  h += "<dt>Status</dt><dd>" + esc(titleCase(st || "—")) + (f.status_note ? " — " + esc(f.status_note) : "") + "</dd>";
  if (Array.isArray(n.tags) && n.tags.length) h += "<dt>Tags</dt><dd>" + esc(n.tags.join(", ")) + "</dd>";
  var rels = n.relations || {};
  Object.keys(rels).forEach(function (r) {
    var v = rels[r];
    if (v == null || (Array.isArray(v) && !v.length)) return;
    h += "<dt>" + esc(titleCase(r)) + "</dt><dd>" + refList(v) + "</dd>";
  });
  Object.keys(f).forEach(function (key) {
    if (key === "status_note" || key === "title" || key === "id" || key === "status" || key === "tags") return;
    if (Object.prototype.hasOwnProperty.call(rels, key)) return;
    h += "<dt>" + esc(titleCase(key)) + "</dt><dd>" + fieldValue(f[key]) + "</dd>";
  });
  h += "</dl>";
  if (n.standing_detail || n.standing) {
    h += "<h3>Standing</h3><p>" + (n.standing ? '<span class="rk-badge ' + esc(n.standing) + '">' + esc(STANDING_LABELS[n.standing] || n.standing) + "</span> " : "") +
      esc(n.standing_detail || "") + "</p>";
  }
  if (n.promote) {
    h += '<h3>Promote when</h3><div id="rk-promote">';
    if (n.promote.summary) h += "<p>" + esc(n.promote.summary) + "</p>";
    var req = n.promote.requires || [];
    if (req.length) {
      h += "<ul>";
      req.forEach(function (r) {
        h += '<li class="rk-req"><span class="rk-badge ' + (r.ok ? "ok" : "bad") + '">' + (r.ok ? "✓ met" : "✗ unmet") + "</span><span>" + esc(r.text) +
          (r.reason ? ' <span class="rk-why">— ' + esc(r.reason) + "</span>" : "") + "</span></li>";
      });
      h += "</ul>";
    } else if (n.standing === "awaiting-judgement") h += '<p class="rk-note">No machine-checkable requirement: waits for a person\'s judgement.</p>';
    h += "</div>";
  }
  if (Array.isArray(n.checks) && n.checks.length) {
    h += "<h3>Checks</h3><ul>";
    n.checks.forEach(function (c) {
      var v = c.verdict || "unknown";
      h += '<li><span class="rk-badge ' + esc(v) + '">' + esc(v) + "</span> <code>" + esc(c.id) + "</code></li>";
    });
    h += "</ul>";
  }
  // typed backlinks: from the index, else derived from the links
  var back = n.backlinks;
  if (!back) {
    back = {};
    for (var a = adjStart[i]; a < adjStart[i + 1]; a++) {
      var e = adjLink[a];
      if (ltgt[e] !== i || lorig[e] === 1) continue;
      var rn = relNames[lrel[e]], rm = (META.relations || {})[rn];
      var label = rm && rm.label ? rm.label : "Cited as \u201c" + rn + "\u201d by";
      (back[label] = back[label] || []).push(nodes[lsrc[e]].id);
    }
  }
  var bkeys = Object.keys(back).filter(function (k) { return back[k] && back[k].length; });
  if (bkeys.length) {
    h += '<h3>Backlinks</h3><dl id="rk-backlinks">';
    bkeys.forEach(function (k) {
      h += "<dt>" + esc(k) + "</dt><dd>" + refList(back[k]) + "</dd>";
    });
    h += "</dl>";
  }
  // body mentions, both ways
  var mout = [], min = [], minLabel = null;
  for (var a2 = adjStart[i]; a2 < adjStart[i + 1]; a2++) {
    var e2 = adjLink[a2];
    if (lorig[e2] !== 1) continue;
    if (lsrc[e2] === i) { mout.push(nodes[ltgt[e2]].id); continue; }
    min.push(nodes[lsrc[e2]].id);
    // the schema's label of body backlinks ("Linked from" in a vault), as the site and show say it
    var mrel = (META.relations || {})[relNames[lrel[e2]]];
    if (minLabel === null && mrel && mrel.label) minLabel = mrel.label;
  }
  var uniq = function (arr) { return Array.from(new Set(arr)); };
  mout = uniq(mout); min = uniq(min);
  if (mout.length || min.length) {
    h += "<h3>Body mentions</h3><dl>";
    if (mout.length) h += "<dt>Mentions</dt><dd>" + refList(mout) + "</dd>";
    if (min.length) h += "<dt>" + esc(minLabel || "Mentioned by") + "</dt><dd>" + refList(min) + "</dd>";
    h += "</dl>";
  }
  h += '<div class="rk-actions"><button type="button" data-act="focus">Focus here</button>';
  if (n.url) h += '<a href="' + esc(n.url) + '" id="rk-page-link">Open the record\'s page</a>';
  h += "</div>";
  if (n.path) h += '<p class="rk-note">' + esc(n.path) + "</p>";
  return h;
}

function select(i, opts) {
  selected = i == null ? -1 : i;
  if (selected < 0) { panel.hidden = true; panelBody.innerHTML = ""; }
  else {
    panelBody.innerHTML = panelHTML(selected);
    panel.hidden = false;
    panelBody.scrollTop = 0;
  }
  invalidate("overlay");
}

function goTo(i) {
  if (focusState && !focusState.inFocus[i]) setFocus(i, focusState.depth);
  if (!nodeVisible[i]) { setFocus(i, focusState ? focusState.depth : 1); }
  select(i);
  var X = PX(), Y = PY(), sx = X[i] * cam.k + cam.tx, sy = Y[i] * cam.k + cam.ty;
  if (sx < 40 || sx > W - 40 || sy < 40 || sy > H - 40) {
    cam.tx = W / 2 - X[i] * cam.k; cam.ty = H / 2 - Y[i] * cam.k;
    camMode = "manual"; lastCamChange = performance.now(); invalidate("camera");
  }
}
