// graph/hit.js -- Hit-testing: a uniform grid over the visible records' positions (counting
// sort into typed arrays), rebuilt lazily when positions or filters change.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

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
