// graph/layout.js -- The force layout: a Barnes-Hut many-body force on a quadtree kept in typed
// arrays, degree-weighted link springs, weak gravity, velocity Verlet with
// cooling.  It runs in a Web Worker made from a Blob of these functions'
// source, or on the main thread in short time slices when no worker can be made.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

// Self-contained (stringified into the worker): returns the engine class.
function makeLayoutEngine() {
  function Engine(opts) {
    var n = this.n = opts.n;
    this.x = Float64Array.from(opts.x); this.y = Float64Array.from(opts.y);
    this.vx = new Float64Array(n); this.vy = new Float64Array(n);
    this.pinned = new Uint8Array(n); this.px = new Float64Array(n); this.py = new Float64Array(n);
    var src = this.src = opts.src, tgt = this.tgt = opts.tgt, m = this.m = src.length;
    var deg = new Float64Array(n);
    for (var e = 0; e < m; e++) { deg[src[e]]++; deg[tgt[e]]++; }
    this.lstrength = new Float64Array(m); this.lbias = new Float64Array(m);
    for (var e2 = 0; e2 < m; e2++) {
      var ds = deg[src[e2]], dt = deg[tgt[e2]];
      this.lstrength[e2] = 1 / Math.min(ds, dt);
      this.lbias[e2] = ds / (ds + dt);
    }
    this.charge = opts.charge || -30;
    this.distance = opts.distance || 30;
    this.gravity = opts.gravity == null ? 0.04 : opts.gravity;
    this.theta2 = (opts.theta || 0.9) * (opts.theta || 0.9);
    this.alpha = opts.alpha == null ? 1 : opts.alpha;
    this.alphaMin = opts.alphaMin || 0.002;
    this.alphaTarget = 0;
    this.alphaDecay = 1 - Math.pow(this.alphaMin, 1 / (opts.ticks || 300));
    this.velocityDecay = 0.6;
    this.ticks = 0;
    var cap = Math.max(64, 2 * n + 16);
    this.allocTree(cap);
    this.ptNext = new Int32Array(n);
    this.stack = new Int32Array(4 * 64 + 16);
    // collision radii (optional)
    this.radii = opts.radii ? Float64Array.from(opts.radii) : null;
    this.maxR = 0;
    if (this.radii) for (var ri = 0; ri < n; ri++) if (this.radii[ri] > this.maxR) this.maxR = this.radii[ri];
    this.cx = new Float64Array(n); this.cy = new Float64Array(n);
    this.cellOf = new Int32Array(n); this.cellItems = new Int32Array(n); this.cellStart = new Int32Array(1);
  }
  // Keeps discs from overlapping: a uniform grid over predicted positions, each
  // pair in neighbouring cells pushed apart (as d3's forceCollide does).
  Engine.prototype.collide = function () {
    var n = this.n, r = this.radii;
    if (!r || n < 2) return;
    var x = this.x, y = this.y, vx = this.vx, vy = this.vy, px = this.cx, py = this.cy, pad = 1.5;
    var minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
    for (var i = 0; i < n; i++) {
      px[i] = x[i] + vx[i]; py[i] = y[i] + vy[i];
      if (px[i] < minx) minx = px[i]; if (px[i] > maxx) maxx = px[i];
      if (py[i] < miny) miny = py[i]; if (py[i] > maxy) maxy = py[i];
    }
    var cell = 2 * this.maxR + pad;
    var span = Math.max(maxx - minx, maxy - miny);
    if (span / cell > 1024) cell = span / 1024;
    var cols = Math.floor((maxx - minx) / cell) + 1, rows = Math.floor((maxy - miny) / cell) + 1;
    var cells = cols * rows;
    if (this.cellStart.length < cells + 1) this.cellStart = new Int32Array(cells + 1);
    var start = this.cellStart, items = this.cellItems, cellOf = this.cellOf;
    start.fill(0, 0, cells + 1);
    for (var a = 0; a < n; a++) {
      var c = Math.floor((px[a] - minx) / cell) + Math.floor((py[a] - miny) / cell) * cols;
      cellOf[a] = c; start[c + 1]++;
    }
    for (var b = 0; b < cells; b++) start[b + 1] += start[b];
    for (var d = 0; d < n; d++) items[start[cellOf[d]]++] = d;
    for (var e = cells; e > 0; e--) start[e] = start[e - 1];
    start[0] = 0;
    var strength = 0.7;
    for (var p = 0; p < n; p++) {
      var cp = cellOf[p], ccol = cp % cols, crow = (cp - ccol) / cols, rp = r[p];
      for (var rr = Math.max(0, crow - 1); rr <= Math.min(rows - 1, crow + 1); rr++) {
        for (var cc = Math.max(0, ccol - 1); cc <= Math.min(cols - 1, ccol + 1); cc++) {
          var q0 = rr * cols + cc;
          for (var t = start[q0]; t < start[q0 + 1]; t++) {
            var q = items[t];
            if (q <= p) continue;
            var dx = px[p] - px[q], dy = py[p] - py[q], sum = rp + r[q] + pad, l2 = dx * dx + dy * dy;
            if (l2 >= sum * sum) continue;
            if (l2 === 0) { dx = ((p * 31 + q) % 7 - 3) * 1e-3 + 1e-4; dy = ((p * 17 + q) % 5 - 2) * 1e-3; l2 = dx * dx + dy * dy; }
            var l = Math.sqrt(l2), f = (sum - l) / l * strength;
            dx *= f; dy *= f;
            var w = r[q] * r[q] / (rp * rp + r[q] * r[q]);
            vx[p] += dx * w; vy[p] += dy * w; vx[q] -= dx * (1 - w); vy[q] -= dy * (1 - w);
          }
        }
      }
    }
  };
  Engine.prototype.allocTree = function (cap) {
    var o = this.qx0;
    var nx0 = new Float64Array(cap), ny0 = new Float64Array(cap), ns = new Float64Array(cap);
    var nm = new Float64Array(cap), ncx = new Float64Array(cap), ncy = new Float64Array(cap);
    var npt = new Int32Array(cap), nch = new Int32Array(4 * cap);
    if (o) {
      nx0.set(this.qx0); ny0.set(this.qy0); ns.set(this.qs); nm.set(this.qm);
      ncx.set(this.qcx); ncy.set(this.qcy); npt.set(this.qpt); nch.set(this.qch);
    }
    this.qx0 = nx0; this.qy0 = ny0; this.qs = ns; this.qm = nm; this.qcx = ncx; this.qcy = ncy;
    this.qpt = npt; this.qch = nch; this.cap = cap;
  };
  Engine.prototype.cell = function (x0, y0, s) {
    if (this.cells >= this.cap) this.allocTree(this.cap * 2);
    var c = this.cells++;
    this.qx0[c] = x0; this.qy0[c] = y0; this.qs[c] = s; this.qpt[c] = -1;
    var b = 4 * c; this.qch[b] = this.qch[b + 1] = this.qch[b + 2] = this.qch[b + 3] = -1;
    return c;
  };
  Engine.prototype.buildTree = function () {
    var n = this.n, x = this.x, y = this.y, ptNext = this.ptNext;
    var minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
    for (var i = 0; i < n; i++) {
      if (x[i] < minx) minx = x[i]; if (x[i] > maxx) maxx = x[i];
      if (y[i] < miny) miny = y[i]; if (y[i] > maxy) maxy = y[i];
    }
    var size = Math.max(maxx - minx, maxy - miny) * 1.0001 + 1e-6;
    this.cells = 0;
    var root = this.cell(minx, miny, size);
    for (var p = 0; p < n; p++) {
      var c = root, depth = 0, px = x[p], py = y[p];
      for (;;) {
        var occ = this.qpt[c];
        if (occ === -1) { this.qpt[c] = p; ptNext[p] = -1; break; }
        var h = this.qs[c] / 2, mx = this.qx0[c] + h, my = this.qy0[c] + h;
        if (occ >= 0) {
          if (depth > 40 || (x[occ] === px && y[occ] === py)) { ptNext[p] = occ; this.qpt[c] = p; break; }
          this.qpt[c] = -2;
          var qo = (x[occ] >= mx ? 1 : 0) | (y[occ] >= my ? 2 : 0);
          var co = this.cell(qo & 1 ? mx : this.qx0[c], qo & 2 ? my : this.qy0[c], h);
          this.qch[4 * c + qo] = co; this.qpt[co] = occ;
        }
        var q = (px >= mx ? 1 : 0) | (py >= my ? 2 : 0);
        var ch = this.qch[4 * c + q];
        if (ch === -1) {
          ch = this.cell(q & 1 ? mx : this.qx0[c], q & 2 ? my : this.qy0[c], h);
          this.qch[4 * c + q] = ch; this.qpt[ch] = p; ptNext[p] = -1; break;
        }
        c = ch; depth++;
      }
    }
    // masses and centroids, children after parents so walk backwards
    var qm = this.qm, qcx = this.qcx, qcy = this.qcy, qpt = this.qpt, qch = this.qch;
    for (var k = this.cells - 1; k >= 0; k--) {
      var m = 0, sx = 0, sy = 0;
      if (qpt[k] === -2) {
        for (var j = 0; j < 4; j++) {
          var cc = qch[4 * k + j];
          if (cc >= 0) { m += qm[cc]; sx += qcx[cc] * qm[cc]; sy += qcy[cc] * qm[cc]; }
        }
      } else {
        for (var pp = qpt[k]; pp >= 0; pp = ptNext[pp]) { m++; sx += x[pp]; sy += y[pp]; }
      }
      qm[k] = m; qcx[k] = m ? sx / m : 0; qcy[k] = m ? sy / m : 0;
    }
  };
  Engine.prototype.tick = function () {
    var n = this.n, x = this.x, y = this.y, vx = this.vx, vy = this.vy;
    var alpha = this.alpha += (this.alphaTarget - this.alpha) * this.alphaDecay;
    // links
    var src = this.src, tgt = this.tgt, ls = this.lstrength, lb = this.lbias, dist = this.distance;
    for (var e = 0; e < this.m; e++) {
      var s = src[e], t = tgt[e];
      var dx = x[t] + vx[t] - x[s] - vx[s], dy = y[t] + vy[t] - y[s] - vy[s];
      var l = Math.sqrt(dx * dx + dy * dy) || 1e-6;
      l = (l - dist) / l * alpha * ls[e];
      dx *= l; dy *= l;
      var b = lb[e];
      vx[t] -= dx * b; vy[t] -= dy * b; vx[s] += dx * (1 - b); vy[s] += dy * (1 - b);
    }
    // many-body (Barnes-Hut)
    if (n > 1) {
      this.buildTree();
      var qm = this.qm, qcx = this.qcx, qcy = this.qcy, qpt = this.qpt, qch = this.qch, qs = this.qs;
      var ptNext = this.ptNext, theta2 = this.theta2, sa = this.charge * alpha, stack = this.stack;
      for (var i = 0; i < n; i++) {
        var xi = x[i], yi = y[i], fx = 0, fy = 0, sp = 0;
        stack[sp++] = 0;
        while (sp) {
          var c = stack[--sp], mass = qm[c];
          if (!mass) continue;
          var ddx = qcx[c] - xi, ddy = qcy[c] - yi, d2 = ddx * ddx + ddy * ddy, w = qs[c];
          if (qpt[c] === -2) {
            if (w * w < theta2 * d2) {
              if (d2 < 1) d2 = Math.sqrt(d2);
              fx += ddx * sa * mass / d2; fy += ddy * sa * mass / d2;
              continue;
            }
            if (sp + 4 > stack.length) { var ns = new Int32Array(stack.length * 2); ns.set(stack); stack = this.stack = ns; }
            for (var j = 0; j < 4; j++) { var cj = qch[4 * c + j]; if (cj >= 0) stack[sp++] = cj; }
          } else {
            for (var p = qpt[c]; p >= 0; p = ptNext[p]) {
              if (p === i) continue;
              var px = x[p] - xi, py = y[p] - yi, l2 = px * px + py * py;
              if (l2 === 0) { px = (((i * 7919 + p) % 13) - 6) * 1e-3 + 1e-4; py = (((i * 104729 + p) % 11) - 5) * 1e-3; l2 = px * px + py * py; }
              if (l2 < 1) l2 = Math.sqrt(l2);
              fx += px * sa / l2; fy += py * sa / l2;
            }
          }
        }
        vx[i] += fx; vy[i] += fy;
      }
    }
    this.collide();
    // gravity, integration
    var g = this.gravity * alpha, vd = this.velocityDecay, pinned = this.pinned;
    for (var k = 0; k < n; k++) {
      if (pinned[k]) { x[k] = this.px[k]; y[k] = this.py[k]; vx[k] = vy[k] = 0; continue; }
      vx[k] -= x[k] * g; vy[k] -= y[k] * g;
      x[k] += vx[k] *= vd; y[k] += vy[k] *= vd;
    }
    this.ticks++;
    return alpha;
  };
  Engine.prototype.done = function () { return this.alpha < this.alphaMin; };
  Engine.prototype.pin = function (i, x, y) { this.pinned[i] = 1; this.px[i] = this.x[i] = x; this.py[i] = this.y[i] = y; };
  Engine.prototype.unpin = function (i) { this.pinned[i] = 0; };
  return Engine;
}

// Drives an engine behind a message port (a worker's self, or a local stand-in).
function layoutDriver(port, Engine, sliceMs) {
  var eng = null, running = false, awaiting = false, pending = false, timer = 0;
  function now() { return (typeof performance !== "undefined" ? performance : Date).now(); }
  function post() {
    if (awaiting) { pending = true; return; }
    pending = false;
    var n = eng.n, xy = new Float32Array(2 * n);
    for (var i = 0; i < n; i++) { xy[2 * i] = eng.x[i]; xy[2 * i + 1] = eng.y[i]; }
    awaiting = true;
    port.postMessage({ type: "tick", xy: xy, alpha: eng.alpha, ticks: eng.ticks, done: !running }, [xy.buffer]);
  }
  function schedule() { if (!timer) timer = setTimeout(step, 0); }
  function step() {
    timer = 0;
    if (!running || !eng) return;
    var t0 = now();
    do {
      eng.tick();
      if (eng.done()) { running = false; break; }
    } while (now() - t0 < sliceMs);
    post();
    if (running) schedule();
  }
  port.onmessage = function (ev) {
    var m = ev.data;
    if (m.type === "init") { eng = new Engine(m); running = true; schedule(); }
    else if (m.type === "ack") { awaiting = false; if (pending) post(); }
    else if (!eng) return;
    else if (m.type === "pin") { eng.pin(m.i, m.x, m.y); }
    else if (m.type === "unpin") { eng.unpin(m.i); }
    else if (m.type === "reheat") {
      eng.alpha = Math.max(eng.alpha, m.alpha); eng.alphaTarget = m.target || 0;
      if (!running) { running = true; schedule(); }
    } else if (m.type === "stop") { running = false; post(); }
  };
}

var Engine = makeLayoutEngine();

// Positions used for drawing (global layout), and focus-layout positions.
var gx = new Float32Array(N), gy = new Float32Array(N);
var havePrecomputed = N > 0 && nodes.every(function (n) { return typeof n.x === "number" && typeof n.y === "number" && isFinite(n.x) && isFinite(n.y); });
(function initialPositions() {
  if (havePrecomputed) { for (var i = 0; i < N; i++) { gx[i] = nodes[i].x; gy[i] = nodes[i].y; } return; }
  // phyllotaxis, in breadth-first order so that neighbours start close
  var order = new Int32Array(N), seen = new Uint8Array(N), head = 0, tail = 0;
  var byDeg = Array.from({ length: N }, function (_, i) { return i; }).sort(function (a, b) { return degree[b] - degree[a] || a - b; });
  for (var r = 0; r < N; r++) {
    var root = byDeg[r];
    if (seen[root]) continue;
    seen[root] = 1; order[tail++] = root;
    while (head < tail) {
      var v = order[head++];
      for (var a = adjStart[v]; a < adjStart[v + 1]; a++) {
        var w = adjNode[a];
        if (!seen[w]) { seen[w] = 1; order[tail++] = w; }
      }
    }
  }
  var golden = Math.PI * (3 - Math.sqrt(5));
  for (var k = 0; k < N; k++) {
    var rad = 10 * Math.sqrt(0.5 + k), ang = k * golden, j = order[k];
    gx[j] = rad * Math.cos(ang); gy[j] = rad * Math.sin(ang);
  }
})();

var layout = { running: false, ticks: 0, alpha: 1, worker: null, mode: "none", port: null };
var posVersion = 0;

function dedupLinks(count, srcOf, tgtOf, n) {
  var seen = new Set(), s = [], t = [];
  for (var e = 0; e < count; e++) {
    var a = srcOf(e), b = tgtOf(e);
    if (a === b) continue;
    var key = a < b ? a * n + b : b * n + a;
    if (seen.has(key)) continue;
    seen.add(key); s.push(a); t.push(b);
  }
  return { src: Int32Array.from(s), tgt: Int32Array.from(t) };
}

function startLayout() {
  if (N < 2) return;
  var links = dedupLinks(M, function (e) { return lsrc[e]; }, function (e) { return ltgt[e]; }, N);
  var ticks = N > 3000 ? 260 : 300;
  var msg = {
    type: "init", n: N, x: Float32Array.from(gx), y: Float32Array.from(gy),
    src: links.src, tgt: links.tgt, alpha: havePrecomputed ? 0.08 : 1, ticks: ticks, radii: Float32Array.from(nodeR),
    charge: -30, distance: 30, gravity: 0.04, theta: N > 3000 ? 1.0 : 0.9
  };
  var onmessage = function (ev) {
    var m = ev.data;
    if (m.type !== "tick") return;
    layout.port.postMessage({ type: "ack" });
    var xy = m.xy;
    for (var i = 0; i < N; i++) { gx[i] = xy[2 * i]; gy[i] = xy[2 * i + 1]; }
    if (drag && !drag.focusMode && drag.node >= 0) { gx[drag.node] = drag.wx; gy[drag.node] = drag.wy; }
    layout.ticks = m.ticks; layout.alpha = m.alpha; layout.running = !m.done;
    if (!focusState) { posVersion++; invalidate("layout"); }
    updateStatusLine();
  };
  try {
    var src = "(" + layoutDriver.toString() + ")(self, (" + makeLayoutEngine.toString() + ")(), 30);";
    var url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
    var w = new Worker(url);
    URL.revokeObjectURL(url);
    w.onmessage = onmessage;
    w.onerror = function (ev) {
      if (ev && ev.preventDefault) ev.preventDefault();
      if (layout.mode === "worker") { w.terminate(); startLocal(msg); }
    };
    layout.worker = w; layout.port = w; layout.mode = "worker";
    w.postMessage(msg);
  } catch (err) {
    startLocal(msg);
  }
  layout.running = true;

  function startLocal(m) {
    // main-thread fallback: a pair of ports that deliver asynchronously
    var outside = { onmessage: onmessage, postMessage: function (d) { setTimeout(function () { inside.onmessage({ data: d }); }, 0); } };
    var inside = { onmessage: null, postMessage: function (d) { setTimeout(function () { outside.onmessage({ data: d }); }, 0); } };
    layoutDriver(inside, Engine, 8);
    layout.port = outside; layout.mode = "main-thread"; layout.worker = null;
    outside.postMessage(m);
  }
}
