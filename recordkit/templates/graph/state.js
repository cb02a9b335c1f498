// graph/state.js -- What the reader has chosen: the filters and the visible
// records and relations they leave, focus, selection, hover, search hits.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

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
