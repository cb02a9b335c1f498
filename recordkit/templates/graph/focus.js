// graph/focus.js -- Focus: a record and its k-hop neighbourhood over the relations shown, with
// its own small force layout computed at once on the main thread.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

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
