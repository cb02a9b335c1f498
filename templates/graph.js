/* recordkit graph page.
 *
 * Everything here is written for recordkit; no third-party code.
 *
 * Design
 *  - Layout: a force layout (Barnes-Hut many-body repulsion on a quadtree kept in
 *    typed arrays, degree-weighted link springs, weak gravity, velocity Verlet
 *    with cooling, in the manner of d3-force) runs progressively in a Web Worker
 *    made from a Blob, posting positions back a few times a second; if a worker
 *    cannot be made it runs on the main thread in short time slices.  Nodes that
 *    carry numeric x/y in the index start there (a precomputed layout).
 *  - Drawing: canvas 2D.  A base layer (edges batched by style, nodes batched by
 *    colour and opacity, standing marks, labels placed greedily without overlap)
 *    is drawn into an offscreen canvas only when positions, filters or the view
 *    change; hover highlights, the selection and search hits are drawn over a
 *    copy of it, so hovering a 10,000-node graph costs one bitmap copy.  While a
 *    large graph is panned or zoomed the cached bitmap is transformed and the
 *    base is redrawn once the view settles.
 *  - Hit-testing: a uniform grid over the visible nodes' positions (counting
 *    sort into typed arrays), rebuilt lazily when positions or filters change.
 *  - Focus: a record and its k-hop neighbourhood (over the relations shown) get
 *    their own small force layout, computed at once on the main thread.
 */
(function () {
  "use strict";

  // ---------------------------------------------------------------- data ---
  var DATA = JSON.parse(document.getElementById("rk-data").textContent);
  var CONFIG = JSON.parse(document.getElementById("rk-config").textContent);
  var META = DATA.meta || {};
  var nodes = Array.isArray(DATA.nodes) ? DATA.nodes : [];
  var rawLinks = Array.isArray(DATA.links) ? DATA.links : [];
  var N = nodes.length;

  var DEFAULT_KIND_COLORS = {
    LIT: "#4e79a7", NOTE: "#f28e2b", THEORY: "#b07aa1", CLAIM: "#59a14f", QUESTION: "#e15759"
  };
  var DEFAULT_REL_COLORS = {
    paper: "#9c755f", source: "#4e79a7", extends: "#b07aa1", bears_on: "#f28e2b",
    grounds: "#59a14f", about: "#b6992d", answered_by: "#2a9d8f", promoted_by: "#e15759",
    cites: "#6f8fb3", contradicts: "#d62728", mention: "#8c959f", mentions: "#8c959f"
  };
  var FADED_STATUSES = { "set-aside": 1, retired: 1, rejected: 1, refuted: 1, dropped: 1 };
  var TENTATIVE_STATUSES = { queued: 1, draft: 1 };
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
    nodeKind[i0] = kindCode(nd.kind || String(nd.id).split("-")[0]);
  }
  var kindColors = kindNames.map(function (k) {
    var m = (META.kinds || {})[k];
    if (m && validColor(m.color)) return m.color;
    return DEFAULT_KIND_COLORS[k] || fallbackColor(k);
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

  // ----------------------------------------------------------- layout ---
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

  // ------------------------------------------------------------ state ---
  var kindOn = kindNames.map(function () { return true; });
  var statusOn = statusKeys.map(function () { return true; });
  var relOn = relNames.map(function () { return true; });
  var originOn = [true, true, true, true];
  var tagFilter = null; // Set of tags, or null
  var nodeVisible = new Uint8Array(N);
  var visibleCount = 0;
  var filterVersion = 0;

  var focusState = null; // {center, depth, members:Int32Array, inFocus:Uint8Array, fx, fy}
  var selected = -1, hovered = -1;
  var searchHits = null; // Int32Array of node indices
  var searchQuery = "";

  function recomputeVisible() {
    var tagSet = tagFilter && tagFilter.size ? tagFilter : null;
    var count = 0;
    for (var i = 0; i < N; i++) {
      var v = kindOn[nodeKind[i]] && statusOn[nodeStatus[i]];
      if (v && tagSet) {
        var tg = nodes[i].tags, any = false;
        if (Array.isArray(tg)) for (var t = 0; t < tg.length; t++) if (tagSet.has(tg[t])) { any = true; break; }
        v = any;
      }
      if (v && focusState) v = focusState.inFocus[i] === 1;
      if (focusState && i === focusState.center) v = true;
      nodeVisible[i] = v ? 1 : 0;
      if (v) count++;
    }
    visibleCount = count;
    filterVersion++;
    updateCounts();
  }

  function edgeShown(e) {
    return relOn[lrel[e]] && originOn[lorig[e]] && nodeVisible[lsrc[e]] && nodeVisible[ltgt[e]];
  }
  function edgeTypeShown(e) { return relOn[lrel[e]] && originOn[lorig[e]]; }

  // Active positions
  function PX() { return focusState && focusState.fx ? focusState.fx : gx; }
  function PY() { return focusState && focusState.fy ? focusState.fy : gy; }

  // ----------------------------------------------------------- canvas ---
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
    var ealpha = Math.min(0.75, Math.max(0.05, 22 / Math.sqrt(shown + 1)));
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
        if (outline) { c.globalAlpha = Math.min(1, c.globalAlpha + 0.2); c.strokeStyle = "#ffffff"; c.lineWidth = 0.8; c.stroke(); }
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
        // legible on any fill: white under dark red
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
        c.strokeStyle = "#ffffff"; c.lineWidth = 3.4; c.stroke();
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
      ORIGINS: ORIGINS, STANDINGS: STANDINGS, STANDING_STYLE: STANDING_STYLE, DENSE_EDGES: DENSE_EDGES
    };
    return STATIC_SCENE;
  }
  function sceneState(X, Y) {
    return { X: X, Y: Y, nodeVisible: nodeVisible, relOn: relOn, originOn: originOn, visibleCount: visibleCount,
      k: cam.k, tx: cam.tx, ty: cam.ty, W: W, H: H, dpr: dpr };
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
    return [filterVersion, focusState ? focusState.center : -1, camMode === "auto" ? "auto" : cam.k + "," + cam.tx + "," + cam.ty, W, H, dpr].join("|");
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

  var STANDING_STYLE = {
    ready: { color: "#1a7f37", dash: [], gap: 3, width: 1.6 },
    blocked: { color: "#9a6700", dash: [3, 2.2], gap: 2.2, width: 1.5 },
    "awaiting-judgement": { color: "#6e40c9", dash: [1, 2], gap: 2.2, width: 1.6 },
    established: { color: "#1f2328", dash: [], gap: 0, width: 2.2 },
    undermined: { color: "#cf222e", dash: [], gap: 0, width: 2, cross: "#82071e" }
  };

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
    c.strokeStyle = "rgba(247,247,245,0.92)"; c.lineWidth = 3;
    baseLabels = new Map();
    for (var o = 0; o < out.length; o++) {
      baseLabels.set(out[o][3], { txt: out[o][0], x: out[o][1], y: out[o][2] });
      c.strokeText(out[o][0], out[o][1], out[o][2]);
    }
    c.fillStyle = "#1f2328";
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
      c.fillStyle = "#6a737d"; c.font = "14px system-ui, sans-serif"; c.textAlign = "center";
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
      c.strokeStyle = "#ffffff"; c.lineWidth = 3.4; c.stroke();
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
      c.strokeStyle = "#e3b341"; c.lineWidth = 2.5; c.stroke();
    }
    var hi = hovered >= 0 ? hovered : -1;
    if (hi >= 0 && nodeVisible[hi]) {
      // veil, then the neighbourhood on top
      c.fillStyle = "rgba(247,247,245,0.78)";
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
        c.globalAlpha = 1; c.strokeStyle = "#fff"; c.lineWidth = 1; c.stroke();
        if (nodeStanding[v] >= 0) standingMark(c, STANDINGS[nodeStanding[v]], vx, vy, vr);
      }
      ring(c, hi, X, Y, nodeStanding[hi] >= 0 ? 6.5 : 2.5, "#1f2328", 2);
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
        c.strokeStyle = "rgba(255,255,255,0.95)"; c.lineWidth = 3; c.strokeText(txt, lx, ly);
        c.fillStyle = u === hi ? "#000" : "#24292f"; c.fillText(txt, lx, ly);
      }
    }
    if (focusState && nodeVisible[focusState.center]) ring(c, focusState.center, X, Y, nodeStanding[focusState.center] >= 0 ? 10.5 : 6, "#bf8700", 2);
    if (selected >= 0 && nodeVisible[selected]) {
      ring(c, selected, X, Y, nodeStanding[selected] >= 0 ? 7 : 3.5, "#0969da", 3);
    }
  }

  // ----------------------------------------------------- hit testing ---
  var grid = { version: -1, cell: 1, minx: 0, miny: 0, cols: 0, rows: 0, start: null, items: null };
  function buildGrid() {
    var X = PX(), Y = PY();
    var minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity, count = 0;
    for (var i = 0; i < N; i++) {
      if (!nodeVisible[i]) continue;
      count++;
      if (X[i] < minx) minx = X[i]; if (X[i] > maxx) maxx = X[i];
      if (Y[i] < miny) miny = Y[i]; if (Y[i] > maxy) maxy = Y[i];
    }
    var cellSize = 32;
    if (count) {
      var span = Math.max(maxx - minx, maxy - miny, 1);
      cellSize = Math.max(cellSize, span / 512);
    }
    var cols = count ? Math.floor((maxx - minx) / cellSize) + 1 : 1;
    var rows = count ? Math.floor((maxy - miny) / cellSize) + 1 : 1;
    var start = new Int32Array(cols * rows + 1), items = new Int32Array(count), cellOf = new Int32Array(N);
    for (var j = 0; j < N; j++) {
      if (!nodeVisible[j]) continue;
      var cidx = Math.floor((X[j] - minx) / cellSize) + Math.floor((Y[j] - miny) / cellSize) * cols;
      cellOf[j] = cidx; start[cidx + 1]++;
    }
    for (var c = 0; c < cols * rows; c++) start[c + 1] += start[c];
    var fill = start.slice(0, cols * rows);
    for (var j2 = 0; j2 < N; j2++) if (nodeVisible[j2]) items[fill[cellOf[j2]]++] = j2;
    grid = { version: posVersion * 1e6 + filterVersion + (focusState ? 0.5 : 0), cell: cellSize, minx: minx, miny: miny, cols: cols, rows: rows, start: start, items: items };
  }
  function nodeAt(sx, sy) {
    if (!N) return -1;
    var ver = posVersion * 1e6 + filterVersion + (focusState ? 0.5 : 0);
    if (grid.version !== ver) buildGrid();
    if (!grid.items.length) return -1;
    var X = PX(), Y = PY();
    var wx = (sx - cam.tx) / cam.k, wy = (sy - cam.ty) / cam.k;
    var reach = (15 * (cam.k <= 1 ? cam.k : Math.sqrt(cam.k)) + 5) / cam.k; // largest node plus tolerance, in world units
    var c0 = Math.max(0, Math.floor((wx - reach - grid.minx) / grid.cell)), c1 = Math.min(grid.cols - 1, Math.floor((wx + reach - grid.minx) / grid.cell));
    var r0 = Math.max(0, Math.floor((wy - reach - grid.miny) / grid.cell)), r1 = Math.min(grid.rows - 1, Math.floor((wy + reach - grid.miny) / grid.cell));
    var best = -1, bestD = Infinity;
    for (var r = r0; r <= r1; r++) {
      for (var c = c0; c <= c1; c++) {
        var cell = c + r * grid.cols;
        for (var p = grid.start[cell]; p < grid.start[cell + 1]; p++) {
          var i = grid.items[p];
          var dx = (X[i] * cam.k + cam.tx) - sx, dy = (Y[i] * cam.k + cam.ty) - sy;
          var d = Math.sqrt(dx * dx + dy * dy), lim = screenR(i) + 4;
          if (d <= lim && d - lim < bestD) { bestD = d - lim; best = i; }
        }
      }
    }
    return best;
  }

  // ------------------------------------------------------------ focus ---
  function neighbourhood(center, depth) {
    var dist = new Int32Array(N).fill(-1), queue = [center];
    dist[center] = 0;
    for (var h = 0; h < queue.length; h++) {
      var v = queue[h];
      if (dist[v] >= depth) continue;
      for (var a = adjStart[v]; a < adjStart[v + 1]; a++) {
        var w = adjNode[a];
        if (dist[w] >= 0 || !edgeTypeShown(adjLink[a])) continue;
        dist[w] = dist[v] + 1; queue.push(w);
      }
    }
    return { members: Int32Array.from(queue), dist: dist };
  }

  function focusLayout(fs) {
    var mem = fs.members, n = mem.length, local = new Int32Array(N).fill(-1);
    for (var i = 0; i < n; i++) local[mem[i]] = i;
    var fx = new Float32Array(N), fy = new Float32Array(N);
    // initial: rings by hop distance, ordered by angle in the global layout
    var cx = gx[fs.center], cy = gy[fs.center];
    var byHop = [];
    for (var j = 0; j < n; j++) {
      var d = fs.dist[mem[j]];
      (byHop[d] = byHop[d] || []).push(mem[j]);
    }
    var x0 = new Float32Array(n), y0 = new Float32Array(n);
    for (var hop = 0; hop < byHop.length; hop++) {
      var ring = byHop[hop] || [];
      ring.sort(function (p, q) { return Math.atan2(gy[p] - cy, gx[p] - cx) - Math.atan2(gy[q] - cy, gx[q] - cx); });
      var rad = hop * Math.max(70, Math.sqrt(ring.length) * 22);
      for (var r = 0; r < ring.length; r++) {
        var ang = 2 * Math.PI * r / ring.length + hop * 0.4;
        x0[local[ring[r]]] = rad * Math.cos(ang); y0[local[ring[r]]] = rad * Math.sin(ang);
      }
    }
    if (n > 1) {
      var links = dedupLinks(M, function (e) { return local[lsrc[e]] >= 0 && local[ltgt[e]] >= 0 && edgeTypeShown(e) ? local[lsrc[e]] : -1; },
        function (e) { return local[lsrc[e]] >= 0 && local[ltgt[e]] >= 0 && edgeTypeShown(e) ? local[ltgt[e]] : -1; }, n);
      // drop the links that were filtered out (both ends -1)
      var ks = [], kt = [];
      for (var q = 0; q < links.src.length; q++) if (links.src[q] >= 0 && links.tgt[q] >= 0) { ks.push(links.src[q]); kt.push(links.tgt[q]); }
      var rad = new Float32Array(n);
      for (var z0 = 0; z0 < n; z0++) rad[z0] = nodeR[mem[z0]] + 4;
      var eng = new Engine({ n: n, x: x0, y: y0, src: Int32Array.from(ks), tgt: Int32Array.from(kt), radii: rad,
        charge: -120, distance: 70, gravity: 0.06, ticks: 220 });
      eng.pin(0, 0, 0);
      var t0 = performance.now();
      while (!eng.done() && performance.now() - t0 < 40) eng.tick();
      for (var z = 0; z < n; z++) { fx[mem[z]] = eng.x[z]; fy[mem[z]] = eng.y[z]; }
    } else { fx[mem[0]] = 0; fy[mem[0]] = 0; }
    fs.fx = fx; fs.fy = fy;
  }

  function setFocus(i, depth, opts) {
    opts = opts || {};
    if (i == null || i < 0) {
      if (!focusState) return;
      focusState = null;
      recomputeVisible();
      camMode = "auto"; fitView(false); if (!layout.running) camMode = "manual";
      posVersion++;
      updateFocusBar(); updateHash();
      invalidate("focus");
      return;
    }
    depth = Math.max(0, Math.min(9, depth == null ? (focusState ? focusState.depth : CONFIG.depth || 1) : depth | 0));
    var nbh = neighbourhood(i, depth);
    var inFocus = new Uint8Array(N);
    for (var m = 0; m < nbh.members.length; m++) inFocus[nbh.members[m]] = 1;
    focusState = { center: i, depth: depth, members: nbh.members, dist: nbh.dist, inFocus: inFocus, fx: null, fy: null };
    if (nbh.members.length <= 1500) focusLayout(focusState);
    recomputeVisible();
    camMode = "auto";
    fitView(false);
    posVersion++;
    updateFocusBar(); updateHash();
    invalidate("focus");
  }

  // ----------------------------------------------------------- search ---
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

  // ------------------------------------------------------------ panel ---
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
    var mout = [], min = [];
    for (var a2 = adjStart[i]; a2 < adjStart[i + 1]; a2++) {
      var e2 = adjLink[a2];
      if (lorig[e2] !== 1) continue;
      if (lsrc[e2] === i) mout.push(nodes[ltgt[e2]].id); else min.push(nodes[lsrc[e2]].id);
    }
    var uniq = function (arr) { return Array.from(new Set(arr)); };
    mout = uniq(mout); min = uniq(min);
    if (mout.length || min.length) {
      h += "<h3>Body mentions</h3><dl>";
      if (mout.length) h += "<dt>Mentions</dt><dd>" + refList(mout) + "</dd>";
      if (min.length) h += "<dt>Mentioned by</dt><dd>" + refList(min) + "</dd>";
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

  // -------------------------------------------------------- controls ---
  function swatchLine(color, dash) {
    return '<svg class="rk-swatch" width="26" height="8" aria-hidden="true"><line x1="1" y1="4" x2="25" y2="4" stroke="' + esc(color) +
      '" stroke-width="2"' + (dash && dash.length ? ' stroke-dasharray="' + dash.join(" ") + '"' : "") + "/></svg>";
  }
  function dotSwatch(color, alpha) {
    return '<span class="rk-dot" style="background:' + esc(color) + ";opacity:" + alpha + '"></span>';
  }
  function standingSwatch(name) {
    var st = STANDING_STYLE[name], svg = '<svg class="rk-swatch" width="22" height="22" aria-hidden="true"><circle cx="11" cy="11" r="5" fill="#8c959f"/>';
    if (name === "undermined") svg += '<circle cx="11" cy="11" r="6" fill="none" stroke="' + st.color + '" stroke-width="2"/><path d="M7.5 7.5L14.5 14.5M14.5 7.5L7.5 14.5" stroke="#fff" stroke-width="3.4"/><path d="M7.5 7.5L14.5 14.5M14.5 7.5L7.5 14.5" stroke="' + st.cross + '" stroke-width="1.8"/>';
    else {
      var rr = 5 + st.gap + st.width / 2;
      svg += '<circle cx="11" cy="11" r="' + rr + '" fill="none" stroke="' + st.color + '" stroke-width="' + st.width + '"' + (st.dash.length ? ' stroke-dasharray="' + st.dash.join(" ") + '"' : "") + "/>";
    }
    return svg + "</svg>";
  }
  function checkbox(group, idx, checked, label, swatch, count, extra) {
    return '<label' + (extra || "") + '><input type="checkbox" data-group="' + group + '" data-i="' + idx + '"' + (checked ? " checked" : "") + ">" +
      (swatch || "") + "<span>" + esc(label) + '</span><span class="rk-n">' + fmt(count) + "</span></label>";
  }
  function buildControls() {
    document.getElementById("rk-f-kind").innerHTML = kindNames.map(function (k, j) {
      return checkbox("kind", j, kindOn[j], k, dotSwatch(kindColors[j], 1), kindCounts[j], ' data-kind="' + esc(k) + '"');
    }).join("");
    var html = "", lastKind = null;
    statusKeys.forEach(function (key, j) {
      var cut = key.indexOf(":"), kind = key.slice(0, cut), st = key.slice(cut + 1);
      if (!statusCounts[j]) return;
      if (kind !== lastKind) { html += '<div class="rk-group">' + esc(kind) + "</div>"; lastKind = kind; }
      var lvl = FADED_STATUSES[st] ? 2 : TENTATIVE_STATUSES[st] ? 1 : 0;
      html += checkbox("status", j, statusOn[j], st ? titleCase(st) : "(none)", dotSwatch(kindColors[kindIndex.get(kind)], ALPHA_LEVELS[lvl]), statusCounts[j]);
    });
    document.getElementById("rk-f-status").innerHTML = html;
    var tagSel = document.getElementById("rk-f-tag");
    tagSel.innerHTML = tagNames.map(function (t) { return '<option value="' + esc(t) + '">' + esc(t) + " (" + fmt(tagCounts.get(t)) + ")</option>"; }).join("");
    document.getElementById("rk-tag-count").textContent = tagNames.length ? "(" + fmt(tagNames.length) + ")" : "";
    document.getElementById("rk-f-rel").innerHTML = relNames.map(function (r, j) {
      if (!relCounts[j] && !(META.relations || {})[r]) return "";
      return checkbox("rel", j, relOn[j], r.replace(/_/g, " "), swatchLine(relColors[j], []), relCounts[j], ' data-rel="' + esc(r) + '"');
    }).join("");
    document.getElementById("rk-f-origin").innerHTML = ORIGINS.map(function (o, j) {
      if (!originCounts[j] && j === 3) return "";
      return checkbox("origin", j, originOn[j], ORIGIN_LABELS[o], swatchLine("#57606a", ORIGIN_DASH[o]), originCounts[j]);
    }).join("");
    document.getElementById("rk-f-origin").insertAdjacentHTML("beforeend",
      '<div class="rk-note" id="rk-dense-note" hidden>With over ' + fmt(DENSE_EDGES) + " links shown, all are drawn as plain lines and mentions fainter; hover a record for its links' styles.</div>");
    document.getElementById("rk-legend-standing").innerHTML = STANDINGS.map(function (s) {
      return "<div>" + standingSwatch(s) + "<span>" + esc(STANDING_LABELS[s]) + "</span></div>";
    }).join("") + '<div class="rk-note">Faint: set aside, retired, rejected, refuted, dropped; lighter: queued, draft.</div>';
  }

  function onFilterChange(relationChanged) {
    if (relationChanged && focusState) { setFocus(focusState.center, focusState.depth); return; }
    recomputeVisible();
    if (hovered >= 0 && !nodeVisible[hovered]) hovered = -1;
    invalidate("filter");
  }

  function updateCounts() {
    document.getElementById("rk-counts").textContent =
      fmt(N) + " records · " + fmt(M) + " links" + (visibleCount !== N ? " · " + fmt(visibleCount) + " shown" : "") +
      (danglingLinks ? " · " + fmt(danglingLinks) + " dangling" : "");
  }
  function updateStatusLine() {
    var el = document.getElementById("rk-status");
    el.textContent = layout.running ? "laying out… (" + layout.ticks + " steps)" : "";
  }
  function updateFocusBar() {
    var bar = document.getElementById("rk-focusbar");
    if (!focusState) { bar.hidden = true; return; }
    bar.hidden = false;
    document.getElementById("rk-focus-id").textContent = nodes[focusState.center].id + " (" + focusState.members.length + ")";
    document.getElementById("rk-depth").value = focusState.depth;
  }
  function updateHash() {
    try {
      var h = focusState ? "#focus=" + encodeURIComponent(nodes[focusState.center].id) + "&depth=" + focusState.depth : " ";
      history.replaceState(null, "", h === " " ? location.pathname + location.search : h);
    } catch (err) { /* some file:// setups refuse; the page works without it */ }
  }

  var resizeTimer = 0;
  function resizeSoon() { if (!resizeTimer) resizeTimer = setTimeout(function () { resizeTimer = 0; resize(); }, 0); }

  // ----------------------------------------------------------- events ---
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

  // --------------------------------------------------------------- API ---
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

  // ------------------------------------------------------------ start ---
  buildControls();
  recomputeVisible();
  resize();
  (function initialFocus() {
    var id = CONFIG.focus, depth = CONFIG.depth;
    var m = /[#&]focus=([^&]+)(?:&depth=(\d+))?/.exec(location.hash || "");
    if (m) { id = decodeURIComponent(m[1]); if (m[2] !== undefined) depth = parseInt(m[2], 10); }
    if (id != null && idIndex.has(String(id))) setFocus(idIndex.get(String(id)), depth == null ? 1 : depth);
    else if (CONFIG.depth != null) document.getElementById("rk-depth").value = CONFIG.depth;
  })();
  startSceneWorker();
  startLayout();
  stats.layoutMode = layout.mode;
  updateStatusLine();
  requestFrame();
})();
