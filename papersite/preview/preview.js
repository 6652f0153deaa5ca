// Live reload and build errors for `build.py serve`. Served by the preview
// server only; never part of a built site.
(function () {
  "use strict";
  var script = document.currentScript;
  var pageBuild = script.dataset.build;
  var base = script.src.replace(/__preview\.js.*$/, "");
  var overlay = null;

  function showProblems(problems) {
    if (overlay) {
      overlay.remove();
      overlay = null;
    }
    if (!problems.length) return;
    // Built with textContent only: error messages quote user input.
    overlay = document.createElement("div");
    overlay.id = "papersite-preview-error";
    overlay.setAttribute("role", "alert");
    var heading = document.createElement("h2");
    heading.textContent = "Build failed: showing the last good build";
    overlay.appendChild(heading);
    var list = document.createElement("ul");
    problems.forEach(function (problem) {
      var item = document.createElement("li");
      var where = document.createElement("code");
      where.textContent = problem.path + (problem.line ? ":" + problem.line : "");
      item.appendChild(where);
      item.appendChild(document.createTextNode(" " + problem.message));
      list.appendChild(item);
    });
    overlay.appendChild(list);
    var note = document.createElement("p");
    note.textContent = "Fix the file and save: this page updates by itself.";
    overlay.appendChild(note);
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "Hide";
    close.addEventListener("click", function () { overlay.hidden = true; });
    overlay.appendChild(close);
    document.body.appendChild(overlay);
  }

  var events = new EventSource(base + "__reload");
  events.onopen = function () {
    document.documentElement.dataset.previewConnected = "";  // lets tests wait for the stream
  };
  events.onmessage = function (message) {
    var status = JSON.parse(message.data);
    if (String(status.build) !== pageBuild) {
      events.close();
      window.location.reload();
      return;
    }
    showProblems(status.problems);
  };
})();
