// Small enhancements for every page: the colour scheme chosen, "/" focuses search, the
// BibTeX copy button, the current section kept in view in the phone's scrolling navigation.
(function () {
  "use strict";

  // --- Colour scheme: auto (the system's), light or dark, kept per site in localStorage ---
  // This script is loaded without `defer`, so <html data-theme> is set before the body is
  // parsed and the page is first drawn in the scheme chosen: no flash of the other one.
  // style.css reads the attribute; its presence also shows the picker, which needs this script.
  var root = document.documentElement;
  var script = document.currentScript;
  var base = script ? new URL(script.src.replace(/static\/site\.js(\?.*)?$/, ""), location.href).pathname : "/";
  var KEY = "papersite:theme:" + base; // two sites on one origin keep two choices
  var THEMES = ["auto", "light", "dark"];

  function stored() {
    try {
      var value = localStorage.getItem(KEY);
      return THEMES.indexOf(value) === -1 ? "auto" : value;
    } catch (error) { // storage disabled: the choice lasts for this page only
      return "auto";
    }
  }

  function apply(theme) {
    if (root.getAttribute("data-theme") === theme) return;
    root.setAttribute("data-theme", theme);
    document.dispatchEvent(new CustomEvent("papersite:theme", { detail: theme })); // map.js redraws
  }

  // The stored choice, applied and shown in the picker: on load, when another tab chose, and when
  // the page comes back from the back-forward cache after a choice on another page.
  function sync() {
    apply(stored());
    var picker = document.getElementById("theme-choice");
    if (picker) picker.value = root.getAttribute("data-theme");
  }

  sync();
  window.addEventListener("storage", function (event) { if (event.key === KEY) sync(); });
  window.addEventListener("pageshow", function (event) { if (event.persisted) sync(); });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var box = document.getElementById("search-input") || document.getElementById("site-search-input");
    if (box) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  });

  // The rest needs the page's body.
  function ready() {
    sync();
    var picker = document.getElementById("theme-choice");
    if (picker) {
      picker.addEventListener("change", function () {
        var theme = THEMES.indexOf(picker.value) === -1 ? "auto" : picker.value;
        try {
          if (theme === "auto") localStorage.removeItem(KEY); else localStorage.setItem(KEY, theme);
        } catch (error) { /* not remembered, still applied */ }
        apply(theme);
      });
    }

    // On a phone the navigation is one row that scrolls sideways, its edges faded (style.css): the
    // current page's link is brought into view, centred so that links cut at both edges show the
    // row goes on, and a link given focus is scrolled clear of the fades (browsers leave a link
    // that is partly in view where it is).
    var nav = document.querySelector(".site-nav");
    if (nav) {
      var reveal = function (link, centre) {
        if (nav.scrollWidth <= nav.clientWidth) return;
        var box = link.getBoundingClientRect(), row = nav.getBoundingClientRect();
        var before = box.left - (row.left + 10), after = box.right - (row.right - 24); // the fades' widths
        if (before >= 0 && after <= 0) return;
        nav.scrollLeft += centre ? (box.left + box.right - row.left - row.right) / 2 : before < 0 ? before : after;
      };
      var current = nav.querySelector('[aria-current="page"]');
      if (current) reveal(current, true);
      nav.addEventListener("focusin", function (event) { reveal(event.target, false); });
    }

    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source || !navigator.clipboard) return;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(source.textContent).then(function () {
          button.textContent = "Copied";
          setTimeout(function () { button.textContent = "Copy BibTeX"; }, 1500);
        });
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
