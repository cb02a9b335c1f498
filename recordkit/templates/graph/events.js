// graph/events.js -- Pointer, wheel, keyboard and resize handling; the light/dark toggle and
// the system's theme; the phone layout's filters button.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

var drag = null, tip = document.getElementById("rk-tip");
function pointerPos(ev) { var r = canvas.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }

canvas.addEventListener("pointerdown", function (ev) {
  if (ev.button !== 0) return;
  var p = pointerPos(ev), hit = nodeAt(p[0], p[1]);
  drag = { x: p[0], y: p[1], sx: p[0], sy: p[1], node: hit, moved: false, tx: cam.tx, ty: cam.ty, focusMode: !!focusState, wx: 0, wy: 0 };
  canvas.setPointerCapture(ev.pointerId);
});
canvas.addEventListener("pointermove", function (ev) {
  var p = pointerPos(ev);
  if (drag) {
    var dx = p[0] - drag.sx, dy = p[1] - drag.sy;
    if (!drag.moved && dx * dx + dy * dy > 16) { drag.moved = true; canvas.classList.add("rk-drag"); tip.hidden = true; }
    if (!drag.moved) return;
    if (drag.node >= 0) {
      var wx = (p[0] - cam.tx) / cam.k, wy = (p[1] - cam.ty) / cam.k;
      drag.wx = wx; drag.wy = wy;
      if (focusState && focusState.fx) { focusState.fx[drag.node] = wx; focusState.fy[drag.node] = wy; }
      else {
        gx[drag.node] = wx; gy[drag.node] = wy;
        if (layout.port) { layout.port.postMessage({ type: "pin", i: drag.node, x: wx, y: wy }); layout.port.postMessage({ type: "reheat", alpha: 0.08, target: 0.03 }); }
      }
      posVersion++; camMode = "manual";
      invalidate("drag");
    } else {
      cam.tx = drag.tx + dx; cam.ty = drag.ty + dy; camMode = "manual";
      lastCamChange = performance.now(); invalidate("camera");
    }
    return;
  }
  var hit = nodeAt(p[0], p[1]);
  if (hit !== hovered) {
    hovered = hit;
    canvas.classList.toggle("rk-over", hit >= 0);
    if (hit >= 0) {
      var n = nodes[hit];
      tip.innerHTML = '<b>' + esc(n.id) + "</b> · " + esc(n.kind || kindNames[nodeKind[hit]]) + " · " + esc(titleCase(n.status || "")) +
        (n.standing ? " · " + esc(STANDING_LABELS[n.standing] || n.standing) : "") + "<br>" + esc(truncate(n.title, 150));
      tip.hidden = false;
    } else tip.hidden = true;
    invalidate("overlay");
  }
  if (hit >= 0) {
    var tx = Math.min(p[0] + 14, W - 430), ty = p[1] + 16;
    tip.style.left = Math.max(4, tx) + "px"; tip.style.top = (ty > H - 70 ? p[1] - 60 : ty) + "px";
  }
});
function endDrag(ev) {
  if (!drag) return;
  var d = drag; drag = null;
  canvas.classList.remove("rk-drag");
  if (d.moved && d.node >= 0 && !d.focusMode && layout.port) {
    layout.port.postMessage({ type: "unpin", i: d.node });
    layout.port.postMessage({ type: "reheat", alpha: 0.05, target: 0 });
  }
  if (!d.moved && ev.type === "pointerup") {
    if (d.node >= 0) select(d.node);
    else if (!resultsEl.hidden) hideResults();
  }
}
canvas.addEventListener("pointerup", endDrag);
canvas.addEventListener("pointercancel", endDrag);
canvas.addEventListener("pointerleave", function () {
  if (!drag && hovered >= 0) { hovered = -1; tip.hidden = true; invalidate("overlay"); }
});
canvas.addEventListener("dblclick", function (ev) {
  var p = pointerPos(ev), hit = nodeAt(p[0], p[1]);
  if (hit >= 0) { setFocus(hit, focusState ? focusState.depth : 1); select(hit); }
});
function zoomAt(px, py, factor) {
  var k = Math.max(0.005, Math.min(12, cam.k * factor));
  factor = k / cam.k;
  cam.tx = px - (px - cam.tx) * factor; cam.ty = py - (py - cam.ty) * factor; cam.k = k;
  camMode = "manual"; lastCamChange = performance.now(); invalidate("camera");
}
canvas.addEventListener("wheel", function (ev) {
  ev.preventDefault();
  var p = pointerPos(ev), dy = ev.deltaY * (ev.deltaMode === 1 ? 33 : ev.deltaMode === 2 ? 400 : 1);
  zoomAt(p[0], p[1], Math.exp(-dy * 0.0015));
}, { passive: false });
document.getElementById("rk-zoom-in").addEventListener("click", function () { zoomAt(W / 2, H / 2, 1.4); });
document.getElementById("rk-zoom-out").addEventListener("click", function () { zoomAt(W / 2, H / 2, 1 / 1.4); });
document.getElementById("rk-zoom-fit").addEventListener("click", function () {
  fitView(false); camMode = layout.running && !focusState ? "auto" : "manual"; lastCamChange = performance.now(); invalidate("camera");
});

document.getElementById("rk-side").addEventListener("change", function (ev) {
  var t = ev.target;
  if (t.id === "rk-f-tag") {
    var sel = Array.from(t.selectedOptions).map(function (o) { return o.value; });
    tagFilter = sel.length ? new Set(sel) : null;
    onFilterChange(false); return;
  }
  var g = t.getAttribute && t.getAttribute("data-group");
  if (!g) return;
  var j = parseInt(t.getAttribute("data-i"), 10);
  if (g === "kind") kindOn[j] = t.checked;
  else if (g === "status") statusOn[j] = t.checked;
  else if (g === "rel") relOn[j] = t.checked;
  else if (g === "origin") originOn[j] = t.checked;
  onFilterChange(g === "rel" || g === "origin");
});
document.getElementById("rk-tag-clear").addEventListener("click", function () {
  var sel = document.getElementById("rk-f-tag");
  Array.from(sel.options).forEach(function (o) { o.selected = false; });
  tagFilter = null; onFilterChange(false);
});
document.getElementById("rk-unfocus").addEventListener("click", function () { setFocus(-1); });
document.getElementById("rk-depth").addEventListener("change", function (ev) {
  if (focusState) setFocus(focusState.center, parseInt(ev.target.value, 10) || 0);
});

var searchTimer = 0;
searchEl.addEventListener("input", function () {
  clearTimeout(searchTimer);
  var q = searchEl.value;
  searchTimer = setTimeout(function () { runSearch(q, false); }, N > 3000 ? 90 : 30);
});
searchEl.addEventListener("keydown", function (ev) {
  if (ev.key === "Enter") { ev.preventDefault(); clearTimeout(searchTimer); var r = runSearch(searchEl.value, true); if (r.focus) select(idIndex.get(r.focus)); }
  else if (ev.key === "ArrowDown") { ev.preventDefault(); moveCursor(1); }
  else if (ev.key === "ArrowUp") { ev.preventDefault(); moveCursor(-1); }
  else if (ev.key === "Escape") {
    if (!resultsEl.hidden) hideResults();
    else { searchEl.value = ""; searchQuery = ""; searchHits = null; invalidate("overlay"); searchEl.blur(); }
    ev.stopPropagation();
  }
});
searchEl.addEventListener("focus", function () { if (searchQuery.trim() && lastResults.length) resultsEl.hidden = false; });
resultsEl.addEventListener("mousedown", function (ev) {
  var li = ev.target.closest("li[data-i]");
  if (!li) return;
  ev.preventDefault();
  var i = parseInt(li.getAttribute("data-i"), 10);
  hideResults();
  setFocus(i, focusState ? focusState.depth : 1);
  select(i);
});
panel.addEventListener("click", function (ev) {
  var a = ev.target.closest("a.rk-ref");
  if (a) { ev.preventDefault(); var j = idIndex.get(a.getAttribute("data-id")); if (j !== undefined) goTo(j); return; }
  var b = ev.target.closest("button[data-act]");
  if (b && b.getAttribute("data-act") === "focus" && selected >= 0) setFocus(selected, focusState ? focusState.depth : 1);
});
document.getElementById("rk-panel-close").addEventListener("click", function () { select(-1); });
document.addEventListener("keydown", function (ev) {
  var t = ev.target || document.body;
  if (t === searchEl) return; // the search box handles its own keys
  var typing = t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "checkbox");
  if (ev.key === "/" && !typing) { ev.preventDefault(); searchEl.focus(); searchEl.select(); }
  else if (ev.key === "Escape") {
    if (t !== document.body && t.blur) t.blur();
    if (selected >= 0) select(-1);
    else if (focusState) setFocus(-1);
  }
});
if (typeof ResizeObserver !== "undefined") new ResizeObserver(function () { resizeSoon(); }).observe(stage);
else window.addEventListener("resize", resizeSoon);

// Light and dark: the toggle, the system's preference changing, and a choice
// made in another tab or on another page of the site.
if (!document.documentElement.hasAttribute("data-theme") && storedTheme()) setTheme(storedTheme(), false);
labelThemeButton();
var themeButton = document.getElementById("rk-theme");
if (themeButton) themeButton.addEventListener("click", toggleTheme);
if (window.matchMedia) {
  var systemDark = window.matchMedia("(prefers-color-scheme: dark)");
  var onSystemTheme = function () { if (!document.documentElement.hasAttribute("data-theme")) { applyTheme(); labelThemeButton(); } };
  if (systemDark.addEventListener) systemDark.addEventListener("change", onSystemTheme);
  else if (systemDark.addListener) systemDark.addListener(onSystemTheme);
}
window.addEventListener("storage", function (ev) {
  if (ev.key === THEME_KEY) setTheme(ev.newValue === "dark" || ev.newValue === "light" ? ev.newValue : null, false);
});
var sideToggle = document.getElementById("rk-side-toggle");
if (sideToggle) sideToggle.addEventListener("click", function () {
  setSideOpen(sideToggle.getAttribute("aria-expanded") !== "true");
});
