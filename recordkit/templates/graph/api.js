// graph/api.js -- window.recordkitGraph: what the browser tests and the bench drive and read.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

function indexOf(id) { var j = idIndex.get(String(id)); return j === undefined ? -1 : j; }
var api = {
  version: 1,
  ready: false,
  nodeCount: N,
  linkCount: M,
  stats: stats,
  layout: layout,
  drawnCount: function () { return stats.drawnNodes; },
  visibleCount: function () { return visibleCount; },
  search: function (q, opts) {
    searchEl.value = q;
    return runSearch(String(q), !!(opts && opts.enter));
  },
  focus: function (id, depth) {
    if (id === undefined) return focusState ? nodes[focusState.center].id : null;
    if (id === null) { setFocus(-1); return null; }
    var j = indexOf(id);
    if (j < 0) throw new Error("no record " + id);
    setFocus(j, depth);
    return nodes[j].id;
  },
  currentFocus: function () { return focusState ? { id: nodes[focusState.center].id, depth: focusState.depth, size: focusState.members.length } : null; },
  clearFocus: function () { setFocus(-1); },
  select: function (id) { var j = id == null ? -1 : indexOf(id); select(j); return j >= 0 ? nodes[j].id : null; },
  selected: function () { return selected >= 0 ? nodes[selected].id : null; },
  hovered: function () { return hovered >= 0 ? nodes[hovered].id : null; },
  // the legend's kind of a record ("(no kind)" when it has none), and how
  // it is drawn by its status: "faded", "tentative" or "normal"
  kindOf: function (id) { var j = indexOf(id); return j >= 0 ? kindNames[nodeKind[j]] : null; },
  statusLook: function (id) { var j = indexOf(id); return j >= 0 ? ["normal", "tentative", "faded"][nodeAlphaLevel[j]] : null; },
  isVisible: function (id) { var j = indexOf(id); return j >= 0 && nodeVisible[j] === 1; },
  screenPosition: function (id) {
    var j = indexOf(id);
    if (j < 0 || !nodeVisible[j]) return null;
    var r = canvas.getBoundingClientRect(), X = PX(), Y = PY();
    return { x: r.left + X[j] * cam.k + cam.tx, y: r.top + Y[j] * cam.k + cam.ty, r: screenR(j) };
  },
  nodeAt: function (x, y) { var r = canvas.getBoundingClientRect(), j = nodeAt(x - r.left, y - r.top); return j >= 0 ? nodes[j].id : null; },
  layoutRunning: function () { return layout.running; },
  stopLayout: function () { if (layout.port) layout.port.postMessage({ type: "stop" }); },
  redraw: function () { var t0 = performance.now(); drawBase(); compose(); ctx.getImageData(0, 0, 1, 1); return performance.now() - t0; },
  camera: function () { return { k: cam.k, tx: cam.tx, ty: cam.ty }; },
  // "dark" or "light": the theme the canvas is drawn in; its colours (graph.css's --c-*)
  theme: function () { return inkTheme; },
  ink: function () { var out = {}; for (var key in INK) out[key] = INK[key]; return out; },
  setTheme: function (theme) { setTheme(theme === "dark" || theme === "light" ? theme : null, false); return currentTheme(); },
  renderMode: function () { return scene.mode; },
  // true when the picture shows the current state (no drawing pending)
  settled: function () {
    if (scene.mode === "starting") return false;
    if (scene.mode === "worker") return !scene.inflight && !scene.timer && sceneKey() === scene.requestedKey && !!baseCam &&
      baseCam.k === cam.k && baseCam.tx === cam.tx && baseCam.ty === cam.ty && !rafPending;
    return !dirty.base && !rafPending && !deferTimer;
  }
};
window.recordkitGraph = api;
