// Small enhancements for every page: "/" focuses search, BibTeX copy button.
(function () {
  "use strict";
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
})();
