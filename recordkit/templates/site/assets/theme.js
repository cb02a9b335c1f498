/* recordkit site: apply the saved theme before the page is painted (no flash). */
(function () {
  try {
    var t = localStorage.getItem("rk-theme");
    if (t === "dark" || t === "light") document.documentElement.setAttribute("data-theme", t);
  } catch (e) { /* storage refused (private mode, file:// policy): follow the system */ }
})();
