/* recordkit site: theme toggle, search, hover previews, local graph.
   Offline and CSP-clean: no inline handlers, no eval, no network; data comes
   from .js files that call RK.*(...), loaded by <script> elements, so it
   works from file:// as well as from any sub-path of a server. */
(function () {
  "use strict";
  var doc = document, html = doc.documentElement;
  var ROOT = html.getAttribute("data-root") || "";
  var BUCKETS = parseInt(html.getAttribute("data-buckets") || "1", 10) || 1;
  var RK = window.RK = window.RK || {};

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  /* -- loading data files ------------------------------------------------ */
  var loading = {};
  function loadScript(path, done) {
    var st = loading[path];
    if (st === true) { done(); return; }
    if (st) { st.push(done); return; }
    loading[path] = [done];
    var s = doc.createElement("script");
    s.src = ROOT + path;
    s.async = true;
    s.onload = function () { var w = loading[path]; loading[path] = true; w.forEach(function (f) { f(); }); };
    s.onerror = function () { var w = loading[path]; delete loading[path]; w.forEach(function (f) { f(new Error(path)); }); };
    doc.head.appendChild(s);
  }
  function fnv1a(str) {
    var h = 0x811c9dc5;
    for (var i = 0; i < str.length; i++) { h ^= str.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h >>> 0;
  }
  function bucket(id) { return fnv1a(id) % BUCKETS; }

  var previews = {}, texts = {};
  RK.previews = function (d) { for (var k in d) previews[k] = d[k]; };
  RK.texts = function (d) { for (var k in d) texts[k] = d[k]; };

  /* -- theme ------------------------------------------------------------- */
  function setupTheme() {
    var b = doc.getElementById("rk-theme");
    if (!b) return;
    var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    function shown() { return html.getAttribute("data-theme") || (media && media.matches ? "dark" : "light"); }
    function label() {
      /* the button is a toggle named "Dark theme": aria-pressed tells a
         screen reader whether the dark theme is the one shown */
      var t = html.getAttribute("data-theme");
      b.title = t ? "Theme: " + t + " (click to change)" : "Theme: follows the system (click to change)";
      b.setAttribute("aria-pressed", shown() === "dark" ? "true" : "false");
    }
    label();
    if (media) {
      if (media.addEventListener) media.addEventListener("change", label);
      else if (media.addListener) media.addListener(label);
    }
    b.addEventListener("click", function () {
      var next = shown() === "dark" ? "light" : "dark";
      html.setAttribute("data-theme", next);
      try { localStorage.setItem("rk-theme", next); } catch (e) { /* not kept */ }
      label();
    });
  }

  /* -- search ------------------------------------------------------------- */
  var index = null, parsed = {};
  RK.searchIndex = function (d) { index = d; };
  /* Words as search.py's TOKEN_RE takes them (keep the two alike): a run of
     CJK letters and numbers (CJK: Han, Hiragana, Katakana, Hangul, the
     ranges of search.py's CJK_RANGES) with the marks on them, or letters,
     combining marks and numbers of other scripts joined by "-" or "'";
     lower-cased and in Unicode's composed form (NFC), so a decomposed "é"
     is the same word.  A CJK run is searched by its pairs of characters
     (search.py's cjk_terms): those scripts put no spaces between words. */
  var CJK = "[\\u1100-\\u11ff\\u3000-\\u303f\\u3040-\\u30ff\\u3130-\\u318f\\u31f0-\\u31ff\\u3400-\\u4dbf" +
            "\\u4e00-\\u9fff\\ua960-\\ua97f\\uac00-\\ud7ff\\uf900-\\ufaff\\uff66-\\uffdc" +
            "\\u{1aff0}-\\u{1b16f}\\u{20000}-\\u{3ffff}]";
  var CJK_CHAR = "(?:(?=[\\p{L}\\p{N}])" + CJK + ")";              // a CJK letter or number
  var OTHER = "(?:\\p{M}|(?!" + CJK + ")[\\p{L}\\p{N}])";           // what other words are made of
  var TOKEN = new RegExp(CJK_CHAR + "(?:" + CJK_CHAR + "|\\p{M})*|" + OTHER + "+(?:['-]" + OTHER + "+)*", "gu");
  var CJK_UNIT = new RegExp(CJK_CHAR + "\\p{M}*", "gu");           // a CJK character with its marks
  var CJK_START = new RegExp("^" + CJK_CHAR, "u");
  var MAX_TERM = 40;     // search.py's MAX_TERM: a longer word is indexed by its parts only
  function norm(s) { s = s.toLowerCase(); return s.normalize ? s.normalize("NFC") : s; }
  function words(s) { return norm(s).match(TOKEN) || []; }
  function chars(t) { return t.length - (t.match(/[\uD800-\uDBFF]/g) || []).length; }   // code points, as Python counts
  function isCjk(t) { return CJK_START.test(t); }
  function cjkTerms(run) {
    var cs = run.match(CJK_UNIT) || [], out = [];
    if (cs.length < 2) return cs;
    for (var i = 0; i + 1 < cs.length; i++) out.push(cs[i] + cs[i + 1]);
    return out;
  }
  function tokens(q) {
    /* what a query searches for (search.py's query_terms) */
    var out = [];
    words(q).forEach(function (t) {
      if (isCjk(t)) { out.push.apply(out, cjkTerms(t)); return; }
      if (chars(t) <= MAX_TERM || !/['-]/.test(t)) { out.push(t); return; }
      t.split(/['-]/).forEach(function (p) { if (p && chars(p) <= MAX_TERM) out.push(p); });
    });
    return out;
  }
  RK.words = words;      // for the tests, which hold them to search.py's
  RK.terms = tokens;
  function postings(ti) {
    var p = parsed[ti];
    if (p) return p;
    p = [];
    var s = index.postings[ti], parts = s.split(","), doc = 0;
    for (var i = 0; i < parts.length; i++) {
      var x = parts[i], dot = x.indexOf("."), w = 1;
      if (dot >= 0) { w = parseInt(x.slice(dot + 1), 36); x = x.slice(0, dot); }
      if (x.charAt(0) === "=") doc = parseInt(x.slice(1), 36);   // a later run: its first doc is absolute
      else doc += parseInt(x, 36);
      p.push(doc, w);
    }
    return (parsed[ti] = p);
  }
  function lowerBound(arr, s) {
    var lo = 0, hi = arr.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (arr[m] < s) lo = m + 1; else hi = m; }
    return lo;
  }
  var common = null;
  function search(q) {
    if (!common) { common = {}; (index.common || []).forEach(function (t) { common[t] = true; }); }
    var qs = tokens(q).filter(function (t) { return !common[t]; });
    if (!qs.length || !index) return [];
    var N = index.docs.length, total = null;
    for (var qi = 0; qi < qs.length; qi++) {
      var t = qs[qi], last = qi === qs.length - 1 || /\s$/.test(q) === false;
      var scores = {};
      var i = lowerBound(index.terms, t), n = 0;
      for (; i < index.terms.length && n < 400; i++, n++) {
        var term = index.terms[i];
        if (term.lastIndexOf(t, 0) !== 0) break;
        var exact = term === t;
        if (!exact && !(last || t.length >= 3)) continue;
        var p = postings(i), df = p.length / 2, idf = Math.log(1 + N / df);
        var factor = exact ? 1 : 0.6;
        for (var j = 0; j < p.length; j += 2) {
          // the weight: a body word's saturated count (1 to 3), 5 a title
          // or tag word, 20 an id word (search.py's doc_terms)
          var sc = factor * idf * p[j + 1];
          if (!(scores[p[j]] >= sc)) scores[p[j]] = (scores[p[j]] || 0) < sc ? sc : scores[p[j]];
        }
      }
      if (total === null) total = scores;
      else {
        var both = {};
        for (var d in total) if (scores[d] != null) both[d] = total[d] + scores[d];
        total = both;
      }
    }
    var ql = norm(q.trim()), out = [];
    for (var d2 in total) {
      var docd = index.docs[d2], s2 = total[d2];
      if (norm(docd[0]) === ql) s2 += 1000;
      out.push([s2, +d2]);
    }
    out.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    return out.slice(0, 20).map(function (x) { return x[1]; });
  }
  function esc(t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }
  var WORD_END = new RegExp(OTHER + "$", "u");
  function highlight(target, text, qs) {
    /* text with every word starting with a query token marked, and every
       pair of CJK characters of the query wherever it is (marks that touch
       or overlap are one: 東京大学 is one mark, not 東京 and 大学) */
    if (text.normalize) text = text.normalize("NFC");
    var spans = [], plain = [], m;
    qs.forEach(function (t) {
      if (!isCjk(t)) { plain.push(esc(t)); return; }
      for (var at = text.indexOf(t); at >= 0; at = text.indexOf(t, at + 1)) spans.push([at, at + t.length]);
    });
    if (plain.length) {
      var re = new RegExp("(" + plain.join("|") + ")" + OTHER + "*", "giu");
      while ((m = re.exec(text))) {
        if (m[0].length === 0) { re.lastIndex++; continue; }
        if (m.index > 0 && WORD_END.test(text.slice(Math.max(0, m.index - 2), m.index))) continue;
        spans.push([m.index, m.index + m[0].length]);
      }
    }
    spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var merged = [], last = 0;
    spans.forEach(function (sp) {
      var top = merged[merged.length - 1];
      if (top && sp[0] <= top[1]) { if (sp[1] > top[1]) top[1] = sp[1]; }
      else merged.push([sp[0], sp[1]]);
    });
    merged.forEach(function (sp) {
      if (sp[0] > last) target.appendChild(doc.createTextNode(text.slice(last, sp[0])));
      target.appendChild(el("mark", null, text.slice(sp[0], sp[1])));
      last = sp[1];
    });
    if (last < text.length) target.appendChild(doc.createTextNode(text.slice(last)));
  }
  function snippet(text, qs) {
    if (text.normalize) text = text.normalize("NFC");
    var low = text.toLowerCase(), at = -1;
    if (low.length !== text.length) low = text;     // lower-casing changed the length: offsets would slip
    for (var i = 0; i < qs.length && at < 0; i++) {
      if (isCjk(qs[i])) { at = low.indexOf(qs[i]); continue; }
      var re = new RegExp("(^|(?!" + OTHER + ")[^])" + esc(qs[i]), "iu");
      var m = re.exec(low);
      if (m) at = m.index + m[1].length;
    }
    if (at < 0) return text.slice(0, 160) + (text.length > 160 ? "…" : "");
    var a = Math.max(0, at - 70), b = Math.min(text.length, at + 110);
    return (a > 0 ? "…" : "") + text.slice(a, b) + (b < text.length ? "…" : "");
  }
  function setupSearch() {
    var input = doc.getElementById("rk-q"), list = doc.getElementById("rk-hits");
    if (!input || !list) return;
    var sel = -1, timer = null, shownFor = null;
    function ensure(then) {
      if (index) { then(); return; }
      loadScript("assets/search-index.js", function (err) {
        if (err) { show([], "The search index could not be loaded."); return; }
        then();
      });
    }
    function show(hits, message) {
      list.textContent = "";
      sel = -1;
      input.removeAttribute("aria-activedescendant");
      var q = input.value, qs = tokens(q);
      shownFor = q;
      list.setAttribute("data-q", q);      // which query the list shows (tests wait on it)
      if (!q.trim()) { close(); return; }
      if (!hits.length) list.appendChild(el("li", "rk-empty", message || "No record matches."));
      hits.forEach(function (di, k) {
        var d = index.docs[di];
        /* an option of a listbox is one thing to a screen reader: it holds
           no link of its own (axe's nested-interactive), so the link is
           inert (no focus, no click, out of the accessibility tree), the
           option is named by the hit's id and title, and a click on the
           option follows the link (see onPick); the arrow keys and Enter
           work from the search field as before */
        var li = el("li"); li.setAttribute("role", "option"); li.id = "rk-hit-" + k;
        var name = d[5] ? d[1] : d[0] + ": " + d[1];     /* d[5]: named by its title alone */
        li.setAttribute("aria-label", name);
        li.setAttribute("data-id", d[0]);
        var a = el("a"); a.href = ROOT + d[4]; a.setAttribute("data-id", d[0]);
        a.inert = true; a.setAttribute("inert", "");
        var head = el("span", "rk-hit-title k-" + d[2]);
        head.appendChild(el("span", "rk-dot"));
        highlight(head, name, qs);
        a.appendChild(head);
        var sn = el("span", "rk-hit-snip");
        a.appendChild(sn);
        li.appendChild(a);
        list.appendChild(li);
        var b = "assets/text/" + bucket(d[0]) + ".js";
        loadScript(b, function () {
          var t = texts[d[0]];
          if (t != null && input.value === q) highlight(sn, snippet(t, qs), qs);
        });
      });
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    }
    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }
    function run() { clearTimeout(timer); timer = null; ensure(function () { show(search(input.value)); }); }
    function go() {
      var items = list.querySelectorAll("li[role=option]"), pick = items[sel >= 0 ? sel : 0];
      if (pick) window.location.href = pick.querySelector("a").href;
    }
    function onPick(e) {
      if (e.type === "auxclick" && e.button !== 1) return;
      var li = e.target.closest ? e.target.closest("li[role=option]") : null, a = li && li.querySelector("a");
      if (!a) return;
      e.preventDefault();
      if (e.type === "auxclick" || e.ctrlKey || e.metaKey || e.shiftKey) window.open(a.href, "_blank", "noopener");
      else window.location.href = a.href;
    }
    list.addEventListener("click", onPick);
    list.addEventListener("auxclick", onPick);
    input.addEventListener("focus", function () { ensure(function () {}); });
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(run, 60); });
    input.addEventListener("keydown", function (e) {
      // an IME's Enter confirms the composition: never a search key
      if (e.isComposing || e.keyCode === 229) return;
      var stale = shownFor !== input.value;      // typed since the list was made (its timer pending)
      if (stale && (e.key === "Enter" || e.key === "ArrowDown" || e.key === "ArrowUp")) {
        if (!index) {                            // the index still loading: act once it is there
          if (e.key === "Enter") { e.preventDefault(); clearTimeout(timer); ensure(function () { show(search(input.value)); go(); }); }
          return;
        }
        clearTimeout(timer); timer = null;
        show(search(input.value));               // the list of what is typed now, at once
      }
      if (list.hidden && (e.key === "Enter" || e.key === "ArrowDown" || e.key === "ArrowUp")) {
        // a closed list (Escape) is not acted on unseen: the keys open it
        // again on what is typed (Enter too: never a page the reader cannot see)
        e.preventDefault();
        if (input.value.trim()) { clearTimeout(timer); timer = null; ensure(function () { show(search(input.value)); }); }
        return;
      }
      var items = list.querySelectorAll("li[role=option]");
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        if (!items.length) return;
        e.preventDefault();
        if (sel >= 0) items[sel].removeAttribute("aria-selected");
        sel = (sel + (e.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
        items[sel].setAttribute("aria-selected", "true");
        input.setAttribute("aria-activedescendant", items[sel].id);
        items[sel].scrollIntoView({ block: "nearest" });
      } else if (e.key === "Enter") {
        if (items.length) { e.preventDefault(); go(); }
      } else if (e.key === "Escape") {
        // the list closes and the focus stays in the field; a second
        // Escape (the list already closed) empties the field
        if (!list.hidden) { e.preventDefault(); close(); }
        else if (input.value) { e.preventDefault(); input.value = ""; shownFor = ""; list.textContent = ""; sel = -1; }
      }
    });
    doc.addEventListener("keydown", function (e) {
      if (e.key === "/" && doc.activeElement !== input && !/^(INPUT|TEXTAREA|SELECT)$/.test(doc.activeElement.tagName)) {
        e.preventDefault(); input.focus();
      }
    });
    doc.addEventListener("click", function (e) {
      if (!list.contains(e.target) && e.target !== input) close();
    });
    // Tab out of the field (or the list) closes the list: it would hide the page under it
    input.parentNode.addEventListener("focusout", function (e) {
      var to = e.relatedTarget;
      if (to && to !== input && !list.contains(to)) close();
    });
  }

  /* -- hover previews ------------------------------------------------------ */
  function setupPreviews() {
    var box = doc.getElementById("rk-preview");
    if (!box) return;
    var timer = null, current = null;
    function hide() {
      clearTimeout(timer);
      if (current && current.getAttribute("aria-describedby") === "rk-preview") current.removeAttribute("aria-describedby");
      current = null; box.hidden = true;
    }
    function fill(a, id) {
      var p = previews[id];
      if (!p || current !== a) return;
      box.textContent = "";
      var k = el("div", "pv-kind k-" + p[0]);
      k.appendChild(el("span", "rk-dot"));
      // p[5]: a note named by its title alone (its id is its path): no id, and no status it has not
      k.appendChild(doc.createTextNode(p[5] ? p[0] + (p[1] ? " · " + p[1] : "")
                                            : p[0] + " · " + (p[1] || "no status") + " · " + id));
      box.appendChild(k);
      box.appendChild(el("div", "pv-title", p[2]));
      if (p[4]) box.appendChild(el("p", "pv-text", p[4]));
      box.hidden = false;
      if (!a.hasAttribute("aria-describedby")) a.setAttribute("aria-describedby", "rk-preview");
      var r = a.getBoundingClientRect();
      var left = window.scrollX + r.left;
      var w = box.offsetWidth, maxLeft = window.scrollX + doc.documentElement.clientWidth - w - 8;
      box.style.left = Math.max(window.scrollX + 8, Math.min(left, maxLeft)) + "px";
      // below the link, or above it when it does not fit below (and fits, or fits better, above)
      var h = box.offsetHeight, vh = doc.documentElement.clientHeight;
      var below = vh - r.bottom - 6 - 8, above = r.top - 6 - 8;
      var top = h > below && (h <= above || above > below) ? r.top - 6 - h : r.bottom + 6;
      box.style.top = (window.scrollY + top) + "px";
    }
    var HOVERED = "a[data-id], #rk-hits li[data-id]";    // a hit's link is inert: its option is hovered
    doc.addEventListener("mouseover", function (e) {
      var a = e.target.closest ? e.target.closest(HOVERED) : null;
      if (!a || a === current) return;
      var id = a.getAttribute("data-id");
      current = a;
      clearTimeout(timer);
      timer = setTimeout(function () {
        loadScript("assets/preview/" + bucket(id) + ".js", function () { fill(a, id); });
      }, 250);
    });
    doc.addEventListener("mouseout", function (e) {
      var a = e.target.closest ? e.target.closest(HOVERED) : null;
      if (a && a === current && !a.contains(e.relatedTarget)) hide();
    });
    doc.addEventListener("focusin", function (e) {
      var a = e.target.closest ? e.target.closest("a[data-id]") : null;
      if (!a) return;
      var id = a.getAttribute("data-id");
      current = a;
      loadScript("assets/preview/" + bucket(id) + ".js", function () { fill(a, id); });
    });
    doc.addEventListener("focusout", hide);
    doc.addEventListener("keydown", function (e) { if (e.key === "Escape") hide(); });
  }

  /* -- local graph ---------------------------------------------------------- */
  var SVGNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs) {
    var e = doc.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function setupGraph() {
    var box = doc.getElementById("rk-local-graph"), dataEl = doc.getElementById("rk-graph-data");
    if (!box || !dataEl) return;
    var g;
    try { g = JSON.parse(dataEl.textContent); } catch (e) { return; }
    var nodes = g.nodes || [], edges = g.edges || [];
    var W = 300, H = 300, cx = W / 2, cy = H / 2;
    var pos = {};
    var center = nodes[0];
    pos[center.id] = [cx, cy];
    var others = nodes.slice(1), n = others.length;
    var rings = n > 16 ? 2 : 1;
    others.forEach(function (nd, i) {
      var ring = rings === 2 && i % 2 ? 0.55 : 0.85;
      var a = (2 * Math.PI * i) / Math.max(1, n) - Math.PI / 2;
      pos[nd.id] = [cx + Math.cos(a) * ring * (W / 2 - 18), cy + Math.sin(a) * ring * (H / 2 - 18)];
    });
    /* a named group, not an image: an image's content is hidden from a
       screen reader, and these are links (each named by its <title>) */
    var root = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "group",
      "aria-label": "Graph of " + (center.show_id === false ? center.title : center.id) + " and its " + n + (n === 1 ? " neighbour" : " neighbours") });
    var styles = getComputedStyle(html);
    edges.forEach(function (e) {
      var a = pos[e.s], b = pos[e.t];
      if (!a || !b) return;
      var line = svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], "class": "lg-edge o-" + e.origin });
      var t = svg("title", {});
      t.textContent = e.s + " —" + e.rel + "→ " + e.t;
      line.appendChild(t);
      root.appendChild(line);
    });
    nodes.forEach(function (nd, i) {
      var p = pos[nd.id];
      var link = svg("a", { href: ROOT + nd.url, "class": "k-" + nd.kind + (i === 0 ? " lg-center" : "") });
      link.setAttribute("data-id", nd.id);
      var color = styles.getPropertyValue("--k-" + nd.kind).trim() || styles.getPropertyValue("--k-other").trim();
      var c = svg("circle", { cx: p[0], cy: p[1], r: i === 0 ? 9 : 6, fill: color });
      /* the whole title is the tooltip; the label is short (cut with "…"
         at the build), and a node near a side is labelled towards the
         middle, so that no label runs out of the drawing */
      var title = svg("title", {});
      title.textContent = nd.show_id === false ? nd.title : nd.id + ": " + nd.title;
      link.appendChild(title);
      link.appendChild(c);
      var reach = (p[0] - cx) / (W / 2 - 18);
      var side = i === 0 || Math.abs(reach) < 0.75 ? "middle" : reach < 0 ? "start" : "end";
      var dx = side === "start" ? -6 : side === "end" ? 6 : 0;
      /* above a node of the upper half, below one of the lower half: the
         labels of neighbours side by side are not on one line */
      var dy = i === 0 ? 20 : p[1] < cy - 1 ? -10 : 15;
      var label = svg("text", { x: p[0] + dx, y: p[1] + dy, "text-anchor": side });
      var words = nd.label || nd.id, most = n > 8 ? 16 : 22;
      label.textContent = words.length > most ? words.slice(0, most - 1).replace(/[\s,;:-]+$/, "") + "…" : words;
      link.appendChild(label);
      root.appendChild(link);
    });
    box.appendChild(root);
  }

  /* -- anchors ----------------------------------------------------------------
     A jump to #anchor lands below the sticky header: its height (it wraps on
     narrow screens) is --rk-top, which the stylesheet's scroll-margin-top
     uses (the stylesheet's own value when this has not run). */
  function setupAnchors() {
    var top = doc.querySelector(".rk-top");
    if (!top || !window.getComputedStyle) return;
    function measure() {
      var sticky = getComputedStyle(top).position === "sticky";
      html.style.setProperty("--rk-top", (sticky ? top.offsetHeight + 8 : 8) + "px");
    }
    measure();
    window.addEventListener("resize", measure);
  }

  /* -- scroll regions ----------------------------------------------------------
     A table, code block or display formula wider than the page scrolls on
     its own: it takes a tab stop (tabindex 0) while it does, so that a
     keyboard can scroll it too (WCAG 2.1.1), and gives it back when the
     window is wide enough that it does not. */
  function setupScrollers() {
    var SCROLLERS = "table.rk-list, .rk-body table, pre.rk-code, .math.display";
    function mark() {
      var all = doc.querySelectorAll(SCROLLERS);
      for (var i = 0; i < all.length; i++) {
        var e = all[i], over = e.scrollWidth > e.clientWidth + 1;
        if (over && !e.hasAttribute("tabindex")) { e.setAttribute("tabindex", "0"); e.setAttribute("data-rk-scroll", ""); }
        else if (!over && e.hasAttribute("data-rk-scroll")) { e.removeAttribute("tabindex"); e.removeAttribute("data-rk-scroll"); }
      }
    }
    mark();
    var pending = null;
    window.addEventListener("resize", function () { clearTimeout(pending); pending = setTimeout(mark, 100); });
  }

  /* -- explorer: the vault's folders (assets/explorer.js, one file for
     every page), each a <details> that opens and closes; the page's own
     folders open, the page marked aria-current="page" -------------------- */
  var explorerTree = null;
  RK.explorer = function (tree) { explorerTree = tree; };
  function setupExplorer() {
    var nav = doc.getElementById("rk-explorer");
    if (!nav) return;
    var here = nav.getAttribute("data-page") || "";
    loadScript("assets/explorer.js", function (err) {
      if (err || !explorerTree) return;
      function link(name, url) {
        var a = el("a", null, name);
        a.href = ROOT + url;
        if (url === here) a.setAttribute("aria-current", "page");
        return a;
      }
      function list(entries) {
        var ul = el("ul", "rk-tree"), found = false;
        for (var i = 0; i < entries.length; i++) {
          var e = entries[i], li = el("li");
          if (e.length > 2) {
            var d = el("details"), s = el("summary");
            s.appendChild(link(e[0], e[1]));
            d.appendChild(s);
            var sub = list(e[2]);
            d.appendChild(sub.ul);
            if (sub.found || e[1] === here) { d.open = true; found = true; }
            li.appendChild(d);
          } else {
            li.appendChild(link(e[0], e[1]));
            if (e[1] === here) found = true;
          }
          ul.appendChild(li);
        }
        return { ul: ul, found: found };
      }
      var tree = list(explorerTree);
      nav.appendChild(tree.ul);
      nav.classList.add("rk-explorer-tree");
    });
  }

  function start() {
    setupAnchors();
    setupScrollers();
    setupTheme();
    setupSearch();
    setupPreviews();
    setupGraph();
    setupExplorer();
  }
  if (doc.readyState === "loading") doc.addEventListener("DOMContentLoaded", start);
  else start();
})();
