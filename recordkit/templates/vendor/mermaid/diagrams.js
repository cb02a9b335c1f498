/* recordkit site: draws the page's ```mermaid blocks with the copy of
   mermaid beside this file (loaded only by pages that have a diagram), in
   the page's theme, and again when the theme toggle changes it. */
(function () {
  "use strict";
  var m = window.mermaid;
  if (!m) return;
  var html = document.documentElement;
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var blocks = Array.prototype.slice.call(document.querySelectorAll("pre.mermaid"));
  blocks.forEach(function (b) { b.setAttribute("data-source", b.textContent); });
  function dark() {
    var t = html.getAttribute("data-theme");
    return t ? t === "dark" : !!(media && media.matches);
  }
  var drawn = null;
  function draw() {
    var theme = dark() ? "dark" : "default";
    if (theme === drawn) return;
    drawn = theme;
    blocks.forEach(function (b) {
      b.removeAttribute("data-processed");
      b.textContent = b.getAttribute("data-source");
    });
    m.initialize({ startOnLoad: false, securityLevel: "strict", theme: theme });
    m.run({ nodes: blocks }).catch(function (e) {
      if (window.console) console.warn("recordkit: a diagram could not be drawn:", e && e.message ? e.message : e);
    });
  }
  draw();
  if (window.MutationObserver) new MutationObserver(draw).observe(html, { attributes: true, attributeFilter: ["data-theme"] });
  if (media && media.addEventListener) media.addEventListener("change", draw);
})();
