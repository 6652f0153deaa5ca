// Live reload and build errors for `build.py serve`. Served by the preview
// server only; never part of a built site.
(function () {
  "use strict";
  var script = document.currentScript;
  var pageBuild = script.dataset.build;
  var base = script.src.replace(/__preview\.js.*$/, "");
  var basePath = new URL(base).pathname;
  var overlay = null;
  // Every file this tab loaded is checked against each change: keep all their entries.
  performance.setResourceTimingBufferSize(100000);

  // The site's output file a URL is served from ("papers/x/" -> "papers/x/index.html"), or null.
  function fileOf(url) {
    var u = new URL(url, window.location.href);
    if (u.origin !== window.location.origin || u.pathname.indexOf(basePath) !== 0) return null;
    var relative;
    try {
      relative = decodeURIComponent(u.pathname.slice(basePath.length));
    } catch (error) {
      return null;
    }
    return relative === "" || relative.slice(-1) === "/" ? relative + "index.html" : relative;
  }

  // Whether a change touched this page or a file it loaded (style, scripts, search or map data).
  function touches(changed) {
    var shown = {};
    shown[fileOf(window.location.href)] = true;
    performance.getEntriesByType("resource").forEach(function (entry) {
      var file = fileOf(entry.name);
      if (file) shown[file] = true;
    });
    return changed.some(function (file) { return shown[file] === true; });
  }

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

  // The page it shows: the preview waits for the tabs showing an edited page to load it.
  var events = new EventSource(base + "__reload?page=" + encodeURIComponent(fileOf(window.location.href) || ""));
  events.onopen = function () {
    document.documentElement.dataset.previewConnected = "";  // lets tests wait for the stream
  };
  events.onmessage = function (message) {
    var status = JSON.parse(message.data);
    if (String(status.build) !== pageBuild) {
      // Reload unless the change is the next one after this page's build and left all it shows alone.
      if (status.changed === null || String(status.since) !== pageBuild || touches(status.changed)) {
        events.close();
        window.location.reload();
        return;
      }
      pageBuild = String(status.build);
    }
    document.documentElement.dataset.previewBuild = pageBuild;  // the build this tab is up to date with
    showProblems(status.problems);
  };
})();
