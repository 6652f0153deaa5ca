// A paper page's "Formatted citation" panel: the paper's CSL-JSON item formatted in APA,
// Chicago (author-date) or IEEE by citeproc-js, whose engine (static/citeproc.js), styles and
// locale (static/csl/) are fetched when the reader first opens the panel, never before.
(function () {
  "use strict";
  var STYLES = [["apa", "APA"], ["chicago-author-date", "Chicago"], ["ieee", "IEEE"]];
  var base = document.currentScript.src.replace(/[^/]*$/, ""); // this script's folder: static/
  var fetched = {};

  function text(url) {
    if (!fetched[url]) {
      fetched[url] = fetch(url).then(function (response) {
        if (!response.ok) throw new Error(url + ": HTTP " + response.status);
        return response.text();
      });
      fetched[url].catch(function () { delete fetched[url]; }); // a failed fetch is tried again
    }
    return fetched[url];
  }

  // citeproc.js is a CommonJS module: it ends with `module.exports = CSL`, which a page
  // gives it a `module` to take.
  var engine = null;
  function loadEngine() {
    if (!engine) {
      engine = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        window.module = { exports: {} };
        script.src = base + "citeproc.js";
        script.onload = function () {
          var CSL = window.module.exports;
          delete window.module;
          resolve(CSL);
        };
        script.onerror = function () {
          delete window.module;
          engine = null;
          reject(new Error("citeproc.js did not load"));
        };
        document.head.appendChild(script);
      });
    }
    return engine;
  }

  // The paper's CSL-JSON item: the page's own #cite-data when it carries one, else its cite.json.
  function citationItem() {
    var data = document.getElementById("cite-data");
    if (data) return Promise.resolve(window.papersiteCite.item(document)); // site.js reads it with the page
    var link = document.querySelector('section.cite a[href$="/cite.json"]');
    return text(link.href).then(function (json) { return JSON.parse(json)[0]; });
  }

  // The bibliography entry of `item` in `style` as citeproc-js writes it (HTML it escapes).
  function formatted(style) {
    return Promise.all([loadEngine(), text(base + "csl/" + style + ".csl"), text(base + "csl/locales-en-US.xml"),
                        citationItem()]).then(function (got) {
      var CSL = got[0], item = Object.assign({}, got[3], { id: "paper" });
      var processor = new CSL.Engine({
        retrieveLocale: function () { return got[2]; },
        retrieveItem: function () { return item; }
      }, got[1], "en-US", true);
      processor.setOutputFormat("html");
      processor.updateItems(["paper"]);
      return processor.makeBibliography()[1].join("");
    });
  }

  function ready() {
    var section = document.querySelector("section.cite");
    if (!section || !window.fetch || !window.Promise || document.getElementById("cite-styles")) return; // once a page
    if (!document.getElementById("cite-data") && !section.querySelector('a[href$="/cite.json"]')) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "cite-styles-button";
    button.textContent = "Formatted citation";
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", "cite-styles");
    var panel = document.createElement("div");
    panel.id = "cite-styles";
    panel.className = "cite-styles";
    panel.hidden = true;
    section.append(button, panel);

    var label = document.createElement("label");
    label.textContent = "Style ";
    var choice = document.createElement("select");
    STYLES.forEach(function (style) {
      var option = document.createElement("option");
      option.value = style[0];
      option.textContent = style[1];
      choice.appendChild(option);
    });
    label.appendChild(choice);
    var output = document.createElement("div");
    output.className = "cite-styles-output";
    output.setAttribute("aria-live", "polite");
    output.tabIndex = 0;
    var copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy-button";
    copy.textContent = "Copy citation";
    copy.hidden = !navigator.clipboard;
    panel.append(label, output, copy);

    var shown = 0; // the latest request wins when the reader changes style quickly
    function show() {
      var asked = ++shown;
      output.textContent = "Formatting…";
      copy.disabled = true;
      formatted(choice.value).then(function (html) {
        if (asked !== shown) return;
        output.innerHTML = html; // citeproc-js escapes the item's text; its markup is <i>, <b>, <div>
        copy.disabled = false;
      }, function (error) {
        if (asked !== shown) return;
        console.warn("citation:", error);
        output.textContent = "The citation could not be formatted: try again.";
      });
    }
    choice.addEventListener("change", show);
    button.addEventListener("click", function () {
      var open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      panel.hidden = !open;
      if (open && !output.hasChildNodes()) show();
    });
    copy.addEventListener("click", function () {
      navigator.clipboard.writeText(output.textContent.trim()).then(function () {
        copy.textContent = "Copied";
        setTimeout(function () { copy.textContent = "Copy citation"; }, 1500);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
