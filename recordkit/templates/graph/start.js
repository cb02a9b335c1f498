// graph/start.js -- First controls, first layout, first frame.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

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
