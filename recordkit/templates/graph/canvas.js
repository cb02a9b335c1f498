// graph/canvas.js -- The view (camera, resize) and drawing on a canvas 2D:
// the base layer (edges batched by style, nodes by colour and opacity,
// standing marks, labels placed greedily without overlap), drawn in a worker
// for large graphs, and the overlay (hover, selection, search hits) drawn over
// a copy of it.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

var stage = document.getElementById("rk-stage");
var canvas = document.getElementById("rk-canvas");
var ctx = canvas.getContext("2d");
var base = document.createElement("canvas");
var bctx = base.getContext("2d");
var W = 1, H = 1, dpr = 1;
var cam = { k: 1, tx: 0, ty: 0 }, baseCam = null, camMode = "auto"; // auto | manual
var lastCamChange = 0;
var stats = {
  firstFrameMs: null, firstPaintMs: null, firstFullFrameMs: null, baseDraws: 0, lastBaseMs: 0, lastBaseFrameMs: 0, lastComposeMs: 0,
  drawnNodes: 0, drawnEdges: 0,
  labels: 0, layoutMode: "none", errors: []
};
var dirty = { base: true, overlay: true }, rafPending = false, deferTimer = 0, lastBaseAt = 0;

// The canvas's colours: the stylesheet's --c-* custom properties, which
// graph.css sets for the light and the dark theme (the kind and relation
// colours are the schema's, the same in both).  Read again when the theme
// changes (applyTheme), and passed to the scene worker with every frame.
var INK_VARS = {
  label: ["--c-label", "#1f2328"], halo: ["--c-halo", "rgba(247,247,245,0.92)"],
  nodeLine: ["--c-node-line", "#ffffff"], veil: ["--c-veil", "rgba(247,247,245,0.78)"],
  hover: ["--c-hover", "#1f2328"], hoverLabel: ["--c-hover-label", "#24292f"],
  hoverStrong: ["--c-hover-strong", "#000000"], hoverHalo: ["--c-hover-halo", "rgba(255,255,255,0.95)"],
  empty: ["--c-empty", "#6a737d"], hit: ["--c-hit", "#e3b341"], focus: ["--c-focus", "#bf8700"],
  selected: ["--c-selected", "#0969da"], edgeAlpha: ["--c-edge-alpha", "1"],
  ready: ["--c-ready", "#1a7f37"], blocked: ["--c-blocked", "#9a6700"], awaiting: ["--c-awaiting", "#6e40c9"],
  established: ["--c-established", "#1f2328"], undermined: ["--c-undermined", "#cf222e"],
  cross: ["--c-cross", "#82071e"], crossHalo: ["--c-cross-halo", "#ffffff"]
};
function readInk() {
  var cs = getComputedStyle(document.documentElement), out = {};
  for (var key in INK_VARS) {
    var v = cs.getPropertyValue(INK_VARS[key][0]).trim();
    out[key] = v && (key === "edgeAlpha" || validColor(v)) ? v : INK_VARS[key][1];
  }
  out.edgeAlpha = Math.max(0.2, Math.min(3, parseFloat(out.edgeAlpha) || 1));
  return out;
}
function standingStyles(ink) {
  return {
    ready: { color: ink.ready, dash: [], gap: 3, width: 1.6 },
    blocked: { color: ink.blocked, dash: [3, 2.2], gap: 2.2, width: 1.5 },
    "awaiting-judgement": { color: ink.awaiting, dash: [1, 2], gap: 2.2, width: 1.6 },
    established: { color: ink.established, dash: [], gap: 0, width: 2.2 },
    undermined: { color: ink.undermined, dash: [], gap: 0, width: 2, cross: ink.cross }
  };
}
var INK = readInk(), STANDING_STYLE = standingStyles(INK), themeVersion = 0, inkTheme = currentTheme();
// "dark" or "light": the reader's choice (data-theme on <html>), else the system's
function currentTheme() {
  var t = document.documentElement.getAttribute("data-theme");
  if (t === "dark" || t === "light") return t;
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
// The theme changed (the toggle, the system, another tab): new colours, a new picture.
function applyTheme() {
  INK = readInk();
  inkTheme = currentTheme();
  STANDING_STYLE = standingStyles(INK);
  themeVersion++;
  if (typeof buildStandingLegend === "function") buildStandingLegend();
  invalidate("theme");
}

function resize() {
  var r = stage.getBoundingClientRect();
  dpr = Math.min(window.devicePixelRatio || 1, 2);
  W = Math.max(1, Math.round(r.width)); H = Math.max(1, Math.round(r.height));
  var keep = null;
  if (baseCam && base.width > 1) {
    // keep the old picture until the new one is drawn (the worker takes a moment)
    keep = document.createElement("canvas");
    keep.width = base.width; keep.height = base.height;
    keep.getContext("2d").drawImage(base, 0, 0);
  }
  canvas.width = base.width = Math.round(W * dpr);
  canvas.height = base.height = Math.round(H * dpr);
  if (keep) bctx.drawImage(keep, 0, 0);
  if (camMode === "auto") fitView(false);
  invalidate("resize");
}

function invalidate(why) {
  if (why === "overlay") dirty.overlay = true;
  else { dirty.base = true; dirty.overlay = true; dirty.why = why; }
  requestFrame();
}
function requestFrame() {
  if (rafPending) return;
  rafPending = true;
  requestAnimationFrame(frame);
}

function frame() {
  rafPending = false;
  var t = performance.now();
  if (camMode === "auto" && !focusState && layout.running) fitView(false);
  var camMoved = !baseCam || baseCam.k !== cam.k || baseCam.tx !== cam.tx || baseCam.ty !== cam.ty;
  // what a full redraw really costs (recording plus rasterising, which the
  // browser defers to the copy in compose)
  var big = stats.lastBaseFrameMs > 30;
  var needBase = dirty.base || camMoved;
  if (scene.mode === "starting") {
    // the scene worker is starting: meanwhile draw the records alone (cheap),
    // the worker adds the links
    if (!baseCam) drawNodesOnly();
    needBase = false;
  } else if (scene.mode === "worker") {
    // the worker draws; meanwhile the last bitmap is shown, moved to the camera
    if (needBase) requestScene();
    dirty.base = false; dirty.why = null;
    needBase = false;
  }
  if (needBase) {
    var wait = 0;
    if (!dirty.base || dirty.why === "layout") {
      // camera-only or layout-only change on a slow-to-draw graph: keep the
      // main thread responsive; transform the cached bitmap meanwhile
      if (big && dirty.why !== "layout" && camMoved) wait = Math.max(0, 140 - (t - lastCamChange));
      if (big && dirty.why === "layout") wait = Math.max(wait, stats.lastBaseFrameMs * 3 - (t - lastBaseAt));
    }
    if (wait > 0 && baseCam) {
      if (!deferTimer) deferTimer = setTimeout(function () { deferTimer = 0; requestFrame(); }, wait);
    } else {
      drawBase();
      dirty.base = false; dirty.why = null;
      var drewBase = true;
    }
  }
  compose();
  if (drewBase) { stats.lastBaseFrameMs = performance.now() - t; lastBaseAt = performance.now(); }
  if (scene.mode === "worker" && !scene.inflight && sceneKey() !== scene.requestedKey) requestScene();
  dirty.overlay = false;
  if (stats.firstFrameMs === null && stats.baseDraws > 0) {
    stats.firstFrameMs = performance.now();
    requestAnimationFrame(function () { stats.firstPaintMs = performance.now(); });
    api.ready = true;
    setTimeout(function () { if (!hay) buildHaystack(); }, 30);
  }
}

function fitView(animateOnly) {
  var X = PX(), Y = PY();
  var minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity, any = false;
  for (var i = 0; i < N; i++) {
    if (!nodeVisible[i]) continue;
    any = true;
    var r = nodeR[i];
    if (X[i] - r < minx) minx = X[i] - r; if (X[i] + r > maxx) maxx = X[i] + r;
    if (Y[i] - r < miny) miny = Y[i] - r; if (Y[i] + r > maxy) maxy = Y[i] + r;
  }
  if (!any) { cam.k = 1; cam.tx = W / 2; cam.ty = H / 2; return; }
  // leave room on the right for labels when there are few nodes
  var pad = 36, padR = visibleCount <= 80 ? Math.min(220, W * 0.25) : 36;
  var w = Math.max(maxx - minx, 1), h = Math.max(maxy - miny, 1);
  var k = Math.min((W - pad - padR) / w, (H - 2 * pad) / h);
  k = Math.max(0.01, Math.min(k, 1.8));
  cam.k = k;
  cam.tx = (W - padR + pad) / 2 - k * (minx + maxx) / 2;
  cam.ty = H / 2 - k * (miny + maxy) / 2;
}

function screenR(i) { return Math.max(1.6, nodeR[i] * (cam.k <= 1 ? cam.k : Math.sqrt(cam.k))); }

// Edges, nodes and standing marks for one view.  Self-contained (it is also
// stringified into the scene worker): everything comes in S.
function drawScene(c, S) {
  var X = S.X, Y = S.Y, k = S.k, tx = S.tx, ty = S.ty, W = S.W, H = S.H, N = S.N, M = S.M;
  var vis = S.nodeVisible, lsrc = S.lsrc, ltgt = S.ltgt, lrel = S.lrel, lorig = S.lorig;
  var relOn = S.relOn, originOn = S.originOn, nodeR = S.nodeR, TAU = 6.283185307179586;
  // node size follows the zoom, but only as its square root past 1, so that
  // zooming in opens space between nodes
  var rs = k <= 1 ? k : Math.sqrt(k);
  function sr(i) { return Math.max(1.6, nodeR[i] * rs); }
  c.setTransform(S.dpr, 0, 0, S.dpr, 0, 0);
  c.clearRect(0, 0, W, H);
  c.lineCap = "butt";

  // edges, one stroke per (relation, origin)
  var shown = 0;
  for (var e = 0; e < M; e++) {
    if (relOn[lrel[e]] && originOn[lorig[e]] && vis[lsrc[e]] && vis[ltgt[e]] && lsrc[e] !== ltgt[e]) shown++;
  }
  var ink = S.ink, ealpha = Math.min(0.9, Math.min(0.75, Math.max(0.05, 22 / Math.sqrt(shown + 1))) * ink.edgeAlpha);
  // Many links: 1px solid hairlines, which software rasterisers draw several
  // times faster than thinner, thicker or dashed lines; mentions then stand
  // apart by colour and faintness only.
  var dense = shown > S.DENSE_EDGES;
  var ewidth = dense ? 1 : 1.2;
  var order = S.edgeOrder, keys = S.edgeKeys, drawnEdges = 0, a = 0, margin = 20;
  while (a < M) {
    var key = keys[order[a]], b = a;
    while (b < M && keys[order[b]] === key) b++;
    var e0 = order[a];
    if (relOn[lrel[e0]] && originOn[lorig[e0]]) {
      c.beginPath();
      var any = false;
      for (var q = a; q < b; q++) {
        var ee = order[q], s = lsrc[ee], t = ltgt[ee];
        if (!vis[s] || !vis[t] || s === t) continue;
        var x1 = X[s] * k + tx, y1 = Y[s] * k + ty, x2 = X[t] * k + tx, y2 = Y[t] * k + ty;
        if ((x1 < -margin && x2 < -margin) || (x1 > W + margin && x2 > W + margin) ||
            (y1 < -margin && y2 < -margin) || (y1 > H + margin && y2 > H + margin)) continue;
        c.moveTo(x1, y1); c.lineTo(x2, y2);
        any = true; drawnEdges++;
      }
      if (any) {
        c.strokeStyle = S.relColors[lrel[e0]];
        c.globalAlpha = lorig[e0] === 1 ? ealpha * (dense ? 0.6 : 0.85) : ealpha;
        c.lineWidth = ewidth;
        c.setLineDash(dense ? [] : S.ORIGIN_DASH[S.ORIGINS[lorig[e0]]]);
        c.stroke();
      }
    }
    a = b;
  }
  c.setLineDash([]);
  c.globalAlpha = 1;

  // nodes, one fill per (kind, opacity)
  var norder = S.nodeOrder, nkeys = S.nodeKeys, drawn = 0, outline = S.visibleCount <= 3000;
  a = 0;
  while (a < N) {
    var nk = nkeys[norder[a]], nb = a;
    while (nb < N && nkeys[norder[nb]] === nk) nb++;
    c.beginPath();
    var anyN = false;
    for (var qq = a; qq < nb; qq++) {
      var i = norder[qq];
      if (!vis[i]) continue;
      var sx = X[i] * k + tx, sy = Y[i] * k + ty, r = sr(i);
      if (sx < -r || sx > W + r || sy < -r || sy > H + r) continue;
      c.moveTo(sx + r, sy); c.arc(sx, sy, r, 0, TAU);
      anyN = true; drawn++;
    }
    if (anyN) {
      var i0n = norder[a];
      c.globalAlpha = S.ALPHA_LEVELS[S.nodeAlphaLevel[i0n]];
      c.fillStyle = S.kindColors[S.nodeKind[i0n]];
      c.fill();
      if (outline) { c.globalAlpha = Math.min(1, c.globalAlpha + 0.2); c.strokeStyle = ink.nodeLine; c.lineWidth = 0.8; c.stroke(); }
    }
    a = nb;
  }
  c.globalAlpha = 1;

  // standing marks: rings, and a cross for undermined
  var standing = S.nodeStanding;
  for (var si = 0; si < S.STANDINGS.length; si++) {
    var st = S.STANDING_STYLE[S.STANDINGS[si]];
    c.beginPath();
    var anyS = false;
    for (var j = 0; j < N; j++) {
      if (standing[j] !== si || !vis[j]) continue;
      var jx = X[j] * k + tx, jy = Y[j] * k + ty, jr = sr(j);
      if (jx < -jr - 8 || jx > W + jr + 8 || jy < -jr - 8 || jy > H + jr + 8) continue;
      anyS = true;
      var rr = st.cross ? jr + 1 : jr + st.gap + st.width / 2;
      c.moveTo(jx + rr, jy); c.arc(jx, jy, rr, 0, TAU);
    }
    if (!anyS) continue;
    c.strokeStyle = st.color; c.lineWidth = st.width; c.setLineDash(st.dash); c.stroke();
    if (st.cross) {
      // legible on any fill: the background's colour under the cross's
      c.setLineDash([]);
      c.beginPath();
      for (var j2 = 0; j2 < N; j2++) {
        if (standing[j2] !== si || !vis[j2]) continue;
        var cx = X[j2] * k + tx, cy = Y[j2] * k + ty, cr = sr(j2);
        if (cx < -cr || cx > W + cr || cy < -cr || cy > H + cr) continue;
        var d = Math.max(cr * 0.72, 2.5);
        c.moveTo(cx - d, cy - d); c.lineTo(cx + d, cy + d);
        c.moveTo(cx + d, cy - d); c.lineTo(cx - d, cy + d);
      }
      c.strokeStyle = ink.crossHalo; c.lineWidth = 3.4; c.stroke();
      c.strokeStyle = st.cross; c.lineWidth = 1.8; c.stroke();
    }
  }
  c.setLineDash([]);
  return { drawnNodes: drawn, drawnEdges: drawnEdges, shownEdges: shown, dense: dense };
}

// The scene worker draws drawScene into an OffscreenCanvas and hands back an
// ImageBitmap, so the main thread never rasterises 100,000 edges itself.
function sceneWorkerMain(self, drawScene) {
  var S = null, canvas = null, ctx = null;
  self.onmessage = function (ev) {
    var m = ev.data;
    if (m.type === "init") {
      S = m.scene;
      try { canvas = new OffscreenCanvas(1, 1); ctx = canvas.getContext("2d"); } catch (err) { ctx = null; }
      self.postMessage({ type: "ready", ok: !!ctx && typeof canvas.transferToImageBitmap === "function" });
      return;
    }
    if (m.type !== "render" || !ctx) return;
    var st = m.state, w = Math.max(1, Math.round(st.W * st.dpr)), h = Math.max(1, Math.round(st.H * st.dpr));
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    var P = {};
    for (var key in S) P[key] = S[key];
    for (var key2 in st) P[key2] = st[key2];
    var t0 = performance.now();
    var out = drawScene(ctx, P);
    var bitmap = canvas.transferToImageBitmap();
    out.ms = performance.now() - t0;
    self.postMessage({ type: "frame", seq: m.seq, bitmap: bitmap, stats: out }, [bitmap]);
  };
}

var STATIC_SCENE = null;
function staticScene() {
  if (!STATIC_SCENE) STATIC_SCENE = {
    N: N, M: M, lsrc: lsrc.subarray(0, M), ltgt: ltgt.subarray(0, M), lrel: lrel.subarray(0, M), lorig: lorig.subarray(0, M),
    edgeOrder: edgeBuckets.order, edgeKeys: edgeBuckets.keys, nodeOrder: nodeBuckets.order, nodeKeys: nodeBuckets.keys,
    nodeKind: nodeKind, nodeAlphaLevel: nodeAlphaLevel, nodeR: nodeR, nodeStanding: nodeStanding,
    kindColors: kindColors, relColors: relColors, ALPHA_LEVELS: ALPHA_LEVELS, ORIGIN_DASH: ORIGIN_DASH,
    ORIGINS: ORIGINS, STANDINGS: STANDINGS, DENSE_EDGES: DENSE_EDGES
  };
  return STATIC_SCENE;
}
function sceneState(X, Y) {
  return { X: X, Y: Y, nodeVisible: nodeVisible, relOn: relOn, originOn: originOn, visibleCount: visibleCount,
    k: cam.k, tx: cam.tx, ty: cam.ty, W: W, H: H, dpr: dpr, ink: INK, STANDING_STYLE: STANDING_STYLE };
}
function applySceneStats(out) {
  stats.drawnNodes = out.drawnNodes; stats.drawnEdges = out.drawnEdges; stats.shownEdges = out.shownEdges;
  if (stats.denseEdges !== out.dense) { var dn = document.getElementById("rk-dense-note"); if (dn) dn.hidden = !out.dense; }
  stats.denseEdges = out.dense;
}

// Main-thread base layer: the scene, then labels.
function drawBase() {
  var t0 = performance.now();
  var X = PX(), Y = PY();
  var P = {}, S = staticScene(), st = sceneState(X, Y);
  for (var key in S) P[key] = S[key];
  for (var key2 in st) P[key2] = st[key2];
  applySceneStats(drawScene(bctx, P));
  stats.labels = drawLabels(bctx, X, Y, cam.k, cam.tx, cam.ty);
  baseCam = { k: cam.k, tx: cam.tx, ty: cam.ty };
  stats.baseDraws++;
  if (stats.firstFullFrameMs === null) stats.firstFullFrameMs = performance.now();
  lastBaseAt = performance.now();
  stats.lastBaseMs = lastBaseAt - t0;
}

// A first picture without links, while the scene worker starts.
function drawNodesOnly() {
  var X = PX(), Y = PY(), P = {}, S = staticScene(), st = sceneState(X, Y);
  for (var key in S) P[key] = S[key];
  for (var key2 in st) P[key2] = st[key2];
  P.M = 0;
  var out = drawScene(bctx, P);
  stats.drawnNodes = out.drawnNodes;
  baseCam = { k: cam.k, tx: cam.tx, ty: cam.ty };
  stats.baseDraws++;
}

// Worker-drawn base layer (large graphs).
var scene = { worker: null, mode: "main", inflight: false, requestedKey: null, requestedStill: null, req: null,
  seq: 0, lastDone: 0, timer: 0 };
// what the picture depends on apart from the layout's motion (in auto-fit the
// camera follows the layout, so it moves with it)
function sceneStillKey() {
  return [filterVersion, themeVersion, focusState ? focusState.center : -1, camMode === "auto" ? "auto" : cam.k + "," + cam.tx + "," + cam.ty, W, H, dpr].join("|");
}
function sceneKey() {
  return [posVersion, cam.k, cam.tx, cam.ty, sceneStillKey()].join("|");
}
function requestScene() {
  var key = sceneKey();
  if (scene.inflight || key === scene.requestedKey) return;
  if (layout.running && sceneStillKey() === scene.requestedStill) {
    // only the layout moved: redraw now and then, leaving the CPU to the layout
    var wait = Math.min(1000, Math.max(250, 1.5 * stats.lastBaseMs)) - (performance.now() - scene.lastDone);
    if (wait > 0) {
      if (!scene.timer) scene.timer = setTimeout(function () { scene.timer = 0; requestScene(); }, wait);
      return;
    }
  }
  scene.requestedStill = sceneStillKey();
  var X = PX(), Y = PY();
  var st = sceneState(Float32Array.from(X), Float32Array.from(Y));
  st.nodeVisible = nodeVisible.slice();
  scene.inflight = true; scene.requestedKey = key;
  scene.req = { cam: { k: cam.k, tx: cam.tx, ty: cam.ty }, X: st.X, Y: st.Y, t: performance.now() };
  scene.worker.postMessage({ type: "render", seq: ++scene.seq, state: st });
}
function onSceneFrame(m) {
  scene.inflight = false;
  scene.lastDone = performance.now();
  var req = scene.req;
  bctx.setTransform(1, 0, 0, 1, 0, 0);
  bctx.clearRect(0, 0, base.width, base.height);
  if (m.bitmap.width === base.width && m.bitmap.height === base.height) bctx.drawImage(m.bitmap, 0, 0);
  if (m.bitmap.close) m.bitmap.close();
  applySceneStats(m.stats);
  stats.labels = drawLabels(bctx, req.X, req.Y, req.cam.k, req.cam.tx, req.cam.ty);
  baseCam = req.cam;
  stats.baseDraws++;
  if (stats.firstFullFrameMs === null) stats.firstFullFrameMs = performance.now();
  stats.lastBaseMs = m.stats.ms;
  stats.lastBaseFrameMs = performance.now() - req.t;
  lastBaseAt = performance.now();
  dirty.overlay = true;
  requestFrame();
}
function startSceneWorker() {
  if (M <= DENSE_EDGES || typeof Worker === "undefined") return;
  try {
    var src = "(" + sceneWorkerMain.toString() + ")(self, " + drawScene.toString() + ");";
    var url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
    var w = new Worker(url);
    URL.revokeObjectURL(url);
    w.onmessage = function (ev) {
      var m = ev.data;
      if (m.type === "ready") {
        if (m.ok) { scene.mode = "worker"; invalidate("scene"); }
        else { w.terminate(); scene.worker = null; scene.mode = "main"; invalidate("scene"); }
      } else if (m.type === "frame") onSceneFrame(m);
    };
    w.onerror = function (ev) {
      if (ev && ev.preventDefault) ev.preventDefault();
      w.terminate(); scene.worker = null; scene.mode = "main"; scene.inflight = false; invalidate("scene");
    };
    scene.worker = w; scene.mode = "starting";
    w.postMessage({ type: "init", scene: staticScene() });
  } catch (err) {
    scene.worker = null; scene.mode = "main";
  }
}

// Greedy non-overlapping labels, by priority
var labelBudget = 260;
var baseLabels = new Map(); // node -> the label the base layer drew for it
function labelText(i, long) {
  var n = nodes[i];
  return long ? n.id + " · " + truncate(n.title, 42) : String(n.id);
}
function drawLabels(c, X, Y, k, tx, ty) {
  var cand = [];
  var few = visibleCount <= 80;
  for (var i = 0; i < N; i++) {
    if (!nodeVisible[i]) continue;
    var sx = X[i] * k + tx, sy = Y[i] * k + ty;
    if (sx < 0 || sx > W || sy < 0 || sy > H) continue;
    cand.push(i);
  }
  if (!cand.length) return 0;
  var prio = function (i) {
    return (i === selected ? 1e9 : 0) + (focusState && i === focusState.center ? 1e8 : 0) + degree[i];
  };
  cand.sort(function (p, q) { return prio(q) - prio(p); });
  if (!few) {
    // small nodes get no label, except the best-connected few
    var minR = visibleCount > 2000 ? 7.5 : 5.5, kept = [];
    for (var ci = 0; ci < cand.length; ci++) if (ci < 20 || screenR(cand[ci]) >= minR) kept.push(cand[ci]);
    cand = kept;
  }
  if (cand.length > 4000) cand.length = 4000;
  var boxes = [], placed = 0;
  var cell = 64, grid = new Map();
  function collides(x0, y0, x1, y1) {
    for (var gxi = Math.floor(x0 / cell); gxi <= Math.floor(x1 / cell); gxi++) {
      for (var gyi = Math.floor(y0 / cell); gyi <= Math.floor(y1 / cell); gyi++) {
        var list = grid.get(gxi * 100003 + gyi);
        if (!list) continue;
        for (var j = 0; j < list.length; j++) {
          var bx = boxes[list[j]];
          if (x0 < bx[2] && x1 > bx[0] && y0 < bx[3] && y1 > bx[1]) return true;
        }
      }
    }
    return false;
  }
  function add(x0, y0, x1, y1) {
    var id = boxes.length; boxes.push([x0, y0, x1, y1]);
    for (var gxi = Math.floor(x0 / cell); gxi <= Math.floor(x1 / cell); gxi++) {
      for (var gyi = Math.floor(y0 / cell); gyi <= Math.floor(y1 / cell); gyi++) {
        var key = gxi * 100003 + gyi, list = grid.get(key);
        if (list) list.push(id); else grid.set(key, [id]);
      }
    }
  }
  c.font = "11px system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
  c.textBaseline = "middle";
  c.lineJoin = "round";
  var long = visibleCount <= 60 || k > 2.5;
  if (visibleCount <= 2500) {
    // nodes are obstacles too
    for (var v = 0; v < N; v++) {
      if (!nodeVisible[v]) continue;
      var vx = X[v] * k + tx, vy = Y[v] * k + ty, vr = screenR(v);
      if (vx < -vr || vx > W + vr || vy < -vr || vy > H + vr) continue;
      add(vx - vr, vy - vr, vx + vr, vy + vr);
    }
  }
  var out = [];
  var budget = visibleCount > 2000 ? Math.min(labelBudget, 60 + Math.round(40 * Math.max(0, Math.log2(k * 4)))) : labelBudget;
  for (var q = 0; q < cand.length && placed < budget; q++) {
    var n = cand[q], r = screenR(n), y = Y[n] * k + ty, cx = X[n] * k + tx;
    // try: long label right, short right, short left, short above
    var tries = long ? [[labelText(n, true), 0], [labelText(n, false), 0]] : [[labelText(n, false), 0]];
    tries.push([labelText(n, false), 1], [labelText(n, false), 2]);
    for (var tIx = 0; tIx < tries.length; tIx++) {
      var txt = tries[tIx][0], side = tries[tIx][1], w = c.measureText(txt).width;
      var x = side === 0 ? cx + r + 4 : side === 1 ? cx - r - 4 - w : cx - w / 2;
      var yy = side === 2 ? y - r - 9 : y;
      var bx0 = x - 1, by0 = yy - 7, bx1 = x + w + 1, by1 = yy + 7;
      if (collides(bx0, by0, bx1, by1)) continue;
      add(bx0, by0, bx1, by1);
      out.push([txt, x, yy, n]);
      placed++;
      break;
    }
  }
  c.strokeStyle = INK.halo; c.lineWidth = 3;
  baseLabels = new Map();
  for (var o = 0; o < out.length; o++) {
    baseLabels.set(out[o][3], { txt: out[o][0], x: out[o][1], y: out[o][2] });
    c.strokeText(out[o][0], out[o][1], out[o][2]);
  }
  c.fillStyle = INK.label;
  for (var o2 = 0; o2 < out.length; o2++) c.fillText(out[o2][0], out[o2][1], out[o2][2]);
  return placed;
}

function compose() {
  var t0 = performance.now(), c = ctx;
  c.setTransform(1, 0, 0, 1, 0, 0);
  c.clearRect(0, 0, canvas.width, canvas.height);
  if (baseCam) {
    var s = cam.k / baseCam.k;
    c.setTransform(s, 0, 0, s, dpr * (cam.tx - baseCam.tx * s), dpr * (cam.ty - baseCam.ty * s));
    c.drawImage(base, 0, 0);
  }
  c.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (N === 0) {
    c.fillStyle = INK.empty; c.font = "14px system-ui, sans-serif"; c.textAlign = "center";
    c.fillText("No records in this index.", W / 2, H / 2); c.textAlign = "start";
    return;
  }
  drawOverlay(c);
  stats.lastComposeMs = performance.now() - t0;
}

function ring(c, i, X, Y, extra, color, width) {
  var sx = X[i] * cam.k + cam.tx, sy = Y[i] * cam.k + cam.ty, r = screenR(i) + extra;
  c.beginPath(); c.arc(sx, sy, r, 0, 6.283185307179586);
  c.strokeStyle = color; c.lineWidth = width; c.stroke();
}

// One node's standing mark, as drawScene draws them in batches.
function standingMark(c, name, x, y, r) {
  var st = STANDING_STYLE[name];
  c.beginPath();
  c.arc(x, y, st.cross ? r + 1 : r + st.gap + st.width / 2, 0, 6.283185307179586);
  c.strokeStyle = st.color; c.lineWidth = st.width; c.setLineDash(st.dash); c.stroke();
  c.setLineDash([]);
  if (st.cross) {
    var d = Math.max(r * 0.72, 2.5);
    c.beginPath();
    c.moveTo(x - d, y - d); c.lineTo(x + d, y + d); c.moveTo(x + d, y - d); c.lineTo(x - d, y + d);
    c.strokeStyle = INK.crossHalo; c.lineWidth = 3.4; c.stroke();
    c.strokeStyle = st.cross; c.lineWidth = 1.8; c.stroke();
  }
}

function drawArrow(c, x1, y1, x2, y2, rTarget) {
  var dx = x2 - x1, dy = y2 - y1, l = Math.sqrt(dx * dx + dy * dy);
  if (l < rTarget + 8) return;
  var ux = dx / l, uy = dy / l, ex = x2 - ux * (rTarget + 1.5), ey = y2 - uy * (rTarget + 1.5);
  var s = 6.5;
  c.moveTo(ex, ey);
  c.lineTo(ex - ux * s - uy * s * 0.45, ey - uy * s + ux * s * 0.45);
  c.lineTo(ex - ux * s + uy * s * 0.45, ey - uy * s - ux * s * 0.45);
  c.closePath();
}

function drawOverlay(c) {
  var X = PX(), Y = PY(), k = cam.k, tx = cam.tx, ty = cam.ty;
  // search hits
  if (searchHits && searchHits.length) {
    c.beginPath();
    var lim = Math.min(searchHits.length, 3000);
    for (var h = 0; h < lim; h++) {
      var i = searchHits[h];
      if (!nodeVisible[i]) continue;
      var sx = X[i] * k + tx, sy = Y[i] * k + ty, r = screenR(i) + 3;
      c.moveTo(sx + r, sy); c.arc(sx, sy, r, 0, 6.283185307179586);
    }
    c.strokeStyle = INK.hit; c.lineWidth = 2.5; c.stroke();
  }
  var hi = hovered >= 0 ? hovered : -1;
  if (hi >= 0 && nodeVisible[hi]) {
    // veil, then the neighbourhood on top
    c.fillStyle = INK.veil;
    c.fillRect(0, 0, W, H);
    var nb = [hi];
    for (var a = adjStart[hi]; a < adjStart[hi + 1]; a++) {
      var e = adjLink[a], o = adjNode[a];
      if (!edgeShown(e)) continue;
      nb.push(o);
    }
    // edges, one stroke per style
    var byStyle = new Map();
    for (var a2 = adjStart[hi]; a2 < adjStart[hi + 1]; a2++) {
      var e2 = adjLink[a2];
      if (!edgeShown(e2)) continue;
      var key = lrel[e2] * 4 + lorig[e2];
      if (!byStyle.has(key)) byStyle.set(key, []);
      byStyle.get(key).push(e2);
    }
    byStyle.forEach(function (list) {
      var e0 = list[0];
      c.beginPath();
      for (var j = 0; j < list.length; j++) {
        var ee = list[j], s = lsrc[ee], t = ltgt[ee];
        c.moveTo(X[s] * k + tx, Y[s] * k + ty); c.lineTo(X[t] * k + tx, Y[t] * k + ty);
      }
      c.strokeStyle = relColors[lrel[e0]]; c.globalAlpha = 0.95;
      c.lineWidth = 1.8; c.setLineDash(ORIGIN_DASH[ORIGINS[lorig[e0]]]); c.stroke();
      c.setLineDash([]);
      c.beginPath();
      for (var j2 = 0; j2 < list.length; j2++) {
        var e3 = list[j2], s3 = lsrc[e3], t3 = ltgt[e3];
        drawArrow(c, X[s3] * k + tx, Y[s3] * k + ty, X[t3] * k + tx, Y[t3] * k + ty, screenR(t3));
      }
      c.fillStyle = relColors[lrel[e0]]; c.fill();
    });
    c.globalAlpha = 1;
    var seen = new Set();
    for (var q = 0; q < nb.length; q++) {
      var v = nb[q];
      if (seen.has(v)) continue;
      seen.add(v);
      var vx = X[v] * k + tx, vy = Y[v] * k + ty, vr = screenR(v);
      c.beginPath(); c.arc(vx, vy, vr, 0, 6.283185307179586);
      c.fillStyle = kindColors[nodeKind[v]]; c.globalAlpha = Math.max(0.55, ALPHA_LEVELS[nodeAlphaLevel[v]]); c.fill();
      c.globalAlpha = 1; c.strokeStyle = INK.nodeLine; c.lineWidth = 1; c.stroke();
      if (nodeStanding[v] >= 0) standingMark(c, STANDINGS[nodeStanding[v]], vx, vy, vr);
    }
    ring(c, hi, X, Y, nodeStanding[hi] >= 0 ? 6.5 : 2.5, INK.hover, 2);
    // labels for the neighbourhood (hovered one first, long)
    c.font = "11px system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
    c.textBaseline = "middle"; c.lineJoin = "round";
    var labels = Array.from(seen).slice(0, 80);
    var bs = baseCam ? cam.k / baseCam.k : 1;
    for (var li = 0; li < labels.length; li++) {
      // a label the base layer placed is redrawn in place, in full ink
      var u = labels[li], pl = u !== hi && baseCam ? baseLabels.get(u) : null, txt, lx, ly;
      if (pl) { txt = pl.txt; lx = (pl.x - baseCam.tx) * bs + cam.tx; ly = (pl.y - baseCam.ty) * bs + cam.ty; }
      else { txt = u === hi ? labelText(u, true) : String(nodes[u].id); lx = X[u] * k + tx + screenR(u) + 4; ly = Y[u] * k + ty; }
      c.strokeStyle = INK.hoverHalo; c.lineWidth = 3; c.strokeText(txt, lx, ly);
      c.fillStyle = u === hi ? INK.hoverStrong : INK.hoverLabel; c.fillText(txt, lx, ly);
    }
  }
  if (focusState && nodeVisible[focusState.center]) ring(c, focusState.center, X, Y, nodeStanding[focusState.center] >= 0 ? 10.5 : 6, INK.focus, 2);
  if (selected >= 0 && nodeVisible[selected]) {
    ring(c, selected, X, Y, nodeStanding[selected] >= 0 ? 7 : 3.5, INK.selected, 3);
  }
}
