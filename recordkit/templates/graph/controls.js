// graph/controls.js -- The sidebar: kind, status, tag, relation and origin filters, the standing
// legend, counts, the status line, the focus bar and the URL hash; the
// light/dark toggle and, on a phone, the button that opens the filters.
//
// One part of the graph page's script: the parts are joined, in the order of
// SCRIPT_PARTS in recordkit/emit/graph_page.py, inside one closure, so a part
// sees everything an earlier part defined.

function swatchLine(color, dash) {
  return '<svg class="rk-swatch" width="26" height="8" aria-hidden="true"><line x1="1" y1="4" x2="25" y2="4" stroke="' + esc(color) +
    '" stroke-width="2"' + (dash && dash.length ? ' stroke-dasharray="' + dash.join(" ") + '"' : "") + "/></svg>";
}
function dotSwatch(color, alpha) {
  return '<span class="rk-dot" style="background:' + esc(color) + ";opacity:" + alpha + '"></span>';
}
function standingSwatch(name) {
  var st = STANDING_STYLE[name], svg = '<svg class="rk-swatch" width="22" height="22" aria-hidden="true"><circle cx="11" cy="11" r="5" fill="#8c959f"/>';
  if (name === "undermined") svg += '<circle cx="11" cy="11" r="6" fill="none" stroke="' + st.color + '" stroke-width="2"/><path d="M7.5 7.5L14.5 14.5M14.5 7.5L7.5 14.5" stroke="' + INK.crossHalo + '" stroke-width="3.4"/><path d="M7.5 7.5L14.5 14.5M14.5 7.5L7.5 14.5" stroke="' + st.cross + '" stroke-width="1.8"/>';
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
  // the legend lists what the record uses: a kind, status or relation of
  // the schema that no record has is left out
  document.getElementById("rk-f-kind").innerHTML = kindNames.map(function (k, j) {
    if (!kindCounts[j]) return "";
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
    if (!relCounts[j]) return "";
    return checkbox("rel", j, relOn[j], r.replace(/_/g, " "), swatchLine(relColors[j], []), relCounts[j], ' data-rel="' + esc(r) + '"');
  }).join("");
  document.getElementById("rk-f-origin").innerHTML = ORIGINS.map(function (o, j) {
    if (!originCounts[j] && j === 3) return "";
    return checkbox("origin", j, originOn[j], ORIGIN_LABELS[o], swatchLine("currentColor", ORIGIN_DASH[o]), originCounts[j]);
  }).join("");
  document.getElementById("rk-f-origin").insertAdjacentHTML("beforeend",
    '<div class="rk-note" id="rk-dense-note" hidden>With over ' + fmt(DENSE_EDGES) + " links shown, all are drawn as plain lines and mentions fainter; hover a record for its links' styles.</div>");
  buildStandingLegend();
}
// The standing legend (drawn in the theme's colours: built again when it changes).
function buildStandingLegend() {
  // the standings some record has (none in a record without a lifecycle or
  // builds-on relations: then only the status note, or no section at all)
  var used = STANDINGS.map(function () { return 0; });
  for (var i = 0; i < N; i++) if (nodeStanding[i] >= 0) used[nodeStanding[i]]++;
  var legend = STANDINGS.filter(function (s, j) { return used[j]; }).map(function (s) {
    return "<div>" + standingSwatch(s) + "<span>" + esc(STANDING_LABELS[s]) + "</span></div>";
  }).join("") + statusNote();
  var box = document.getElementById("rk-legend-standing");
  box.innerHTML = legend;
  if (box.parentNode && box.parentNode.tagName === "DETAILS") box.parentNode.hidden = !legend;
}
// "Faint: set aside, retired; lighter: draft." for the statuses the record
// uses that the schema draws faint or lighter (nothing when none).
function statusNote() {
  var used = Object.create(null);
  statusKeys.forEach(function (key, j) { if (statusCounts[j]) used[key.slice(key.indexOf(":") + 1)] = 1; });
  function words(list) {
    return (Array.isArray(list) ? list : []).filter(function (s) { return used[s]; })
      .map(function (s) { return String(s).replace(/[-_]/g, " "); });
  }
  var faint = words(META.faded_statuses), light = words(META.tentative_statuses), parts = [];
  if (faint.length) parts.push("Faint: " + faint.join(", "));
  if (light.length) parts.push((parts.length ? "lighter: " : "Lighter: ") + light.join(", "));
  return parts.length ? '<div class="rk-note" id="rk-status-note">' + esc(parts.join("; ")) + ".</div>" : "";
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

// Light or dark.  The page follows the system's preference until the reader
// picks one with the toggle; the choice is kept in localStorage under
// CONFIG.theme_key (on a built site the site's own key, so the site's toggle
// and this one are one choice) and applied before the first paint by the
// template's head script.
var THEME_KEY = CONFIG.theme_key || document.documentElement.getAttribute("data-theme-key") || "rk-graph-theme";
function storedTheme() {
  try { var t = localStorage.getItem(THEME_KEY); return t === "dark" || t === "light" ? t : null; }
  catch (err) { return null; }
}
function labelThemeButton() {
  var b = document.getElementById("rk-theme");
  if (!b) return;
  var t = document.documentElement.getAttribute("data-theme");
  b.title = t ? "Theme: " + t + " (click to change)" : "Theme: follows the system (click to change)";
  // a toggle named "Dark theme": pressed while the dark theme is shown
  b.setAttribute("aria-pressed", currentTheme() === "dark" ? "true" : "false");
}
// the theme to show: "dark", "light" or null (the system's); kept when asked
function setTheme(theme, keep) {
  var root = document.documentElement;
  if (theme) root.setAttribute("data-theme", theme); else root.removeAttribute("data-theme");
  if (keep) { try { localStorage.setItem(THEME_KEY, theme); } catch (err) { /* not kept */ } }
  labelThemeButton();
  if (currentTheme() !== inkTheme) applyTheme();
}
function toggleTheme() { setTheme(currentTheme() === "dark" ? "light" : "dark", true); }

// On a phone the sidebar is a strip above the graph; this button opens and
// closes its filters and legend.
function setSideOpen(open) {
  var side = document.getElementById("rk-side"), b = document.getElementById("rk-side-toggle");
  if (!side || !b) return;
  side.classList.toggle("rk-open", !!open);
  b.setAttribute("aria-expanded", open ? "true" : "false");
}
