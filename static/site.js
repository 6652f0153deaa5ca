// Small enhancements for every page: the colour scheme chosen, "/" focuses search, the
// BibTeX copy button, the current section kept in view in the phone's scrolling navigation,
// and the citation downloads (RIS, CSL-JSON, a listing's .bib) and formatted citations, made
// in the browser.
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
    // The picker is made here, not repeated in every page (its room is kept by style.css).
    var room = document.querySelector("label.theme-choice");
    if (room && !document.getElementById("theme-choice")) {
      room.title = "Colour scheme";
      room.innerHTML = '<span class="visually-hidden">Colour scheme</span><select id="theme-choice" autocomplete="off">' +
        '<option value="auto">Auto</option><option value="light">Light</option><option value="dark">Dark</option></select>';
    }
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

    // A paper page's controls that need script are made here, not carried by every page: the
    // BibTeX's Copy button, the RIS and CSL-JSON downloads (from #cite-data) and the "Formatted
    // citation" panel (static/cite-styles.js). A theme's own (older) buttons are used as they are.
    var entry = document.getElementById("bibtex");
    if (entry && !document.querySelector('button[data-copy="bibtex"]')) {
      entry.insertAdjacentHTML("afterend", '<button type="button" class="copy-button" data-copy="bibtex" hidden>Copy BibTeX</button>');
    }
    var downloads = document.querySelector(".cite-downloads");
    if (document.getElementById("cite-data")) {
      if (downloads && !downloads.querySelector("button[data-cite]")) {
        var buttons = document.createElement("span");
        buttons.innerHTML = '<button type="button" class="link-button" data-cite="ris">RIS</button> · ' +
          '<button type="button" class="link-button" data-cite="json">CSL-JSON</button> · ';
        downloads.insertBefore(buttons, downloads.querySelector("a"));
      }
      if (!document.querySelector('script[src$="static/cite-styles.js"]')) {
        var styles = document.createElement("script");
        styles.src = base + "static/cite-styles.js";
        document.head.appendChild(styles);
      }
    }

    // A paper page's Save button is wired by static/reading-list.js, loaded here rather than
    // linked from every paper page (pages that build Save buttons in script link it themselves).
    if (document.querySelector("button[data-save]") &&
        !document.querySelector('script[src$="static/reading-list.js"]')) {
      var list = document.createElement("script");
      list.src = base + "static/reading-list.js";
      document.head.appendChild(list);
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

  // --- Citation downloads, made here from what the page carries (papersite/site/citations.py) ---
  // The bytes are those the site once wrote as files: a paper's cite.ris and cite.json, and the
  // .bib of a topic, an author or the whole catalog.

  // JSON as Python's json.dumps(value, ensure_ascii=False, sort_keys=True) writes it (cite.json's).
  function pythonJson(value) {
    if (Array.isArray(value)) return "[" + value.map(pythonJson).join(", ") + "]";
    if (value !== null && typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (key) {
        return JSON.stringify(key) + ": " + pythonJson(value[key]);
      }).join(", ") + "}";
    }
    return JSON.stringify(value);
  }

  // RIS types by CSL type (citations.py: RIS_TYPES, CSL_TYPES)
  var RIS_TYPES = {"paper-conference": "CPAPER", "article-journal": "JOUR", "article": "UNPB", "thesis": "THES",
                   "report": "RPRT", "book": "BOOK", "chapter": "CHAP"};

  // The RIS of a CSL item alone: the twin of citations.ris_from_csl (a page carries its RIS
  // itself, as "ris", wherever the two would not give the bytes of citations.ris).
  function risFromCsl(item) {
    var lines = [["TY", RIS_TYPES[item.type] || ""], ["TI", item.title]];
    (item.author || []).forEach(function (name) {
      lines.push(["AU", name.literal || [[name["non-dropping-particle"], name.family].filter(Boolean).join(" "),
                                         name.given, name.suffix].filter(Boolean).join(", ")]);
    });
    lines.push(["PY", String(item.issued["date-parts"][0][0])]);
    if ("container-title" in item) lines.push(["T2", item["container-title"]]);
    if ("abstract" in item) lines.push(["AB", item.abstract]);
    if ("keyword" in item) item.keyword.split(", ").forEach(function (word) { lines.push(["KW", word]); });
    if ("DOI" in item) lines.push(["DO", item.DOI]);
    lines.push(["UR", item.URL], ["ID", item.id]);
    return lines.map(function (line) { return line[0] + "  - " + line[1] + "\n"; }).join("") + "ER  - \n";
  }

  // CSL types by BibTeX entry type (citations.py: CSL_OF_ENTRY), CSL fields by BibTeX field
  var CSL_OF_ENTRY = {inproceedings: "paper-conference", article: "article-journal", misc: "article",
                      phdthesis: "thesis", mastersthesis: "thesis", techreport: "report", book: "book",
                      incollection: "chapter"};
  var CSL_OF_FIELD = {booktitle: "container-title", journal: "container-title", url: "URL", doi: "DOI"};

  // The CSL-JSON fields a paper page shows: the twin of citations.page_item. The abstract is the
  // text of #abstract-text, the rest read from the BibTeX entry of #bibtex, field by field.
  function pageItem(doc) {
    var item = {}, abstract = doc.getElementById("abstract-text"), shown = doc.getElementById("bibtex");
    if (abstract) item.abstract = abstract.textContent.replace(/\s+/g, " ").trim();
    var entry = shown ? shown.textContent : "", head = /^@(\w+)\{([^,\n]*),\n/.exec(entry);
    if (!head) return item;
    // (an entry holding a CR, NUL or line separator may read otherwise here: #cite-data then gives
    // every field, citations.page_item)
    item.id = head[2];
    if (CSL_OF_ENTRY.hasOwnProperty(head[1])) item.type = CSL_OF_ENTRY[head[1]];
    var field = /^ {2}(\w+) = \{(.*)\},?$/gm, found;
    while ((found = field.exec(entry))) {
      var name = found[1], value = found[2];
      if (name === "title") {
        item.title = /^\{.*\}$/.test(value) ? value.slice(1, -1) : value;
      } else if (name === "author") {
        item.author = value.split(" and ").map(function (person) {
          var parts = person.split(", "), named = {};
          (parts.length === 3 ? ["family", "suffix", "given"] : ["family", "given"]).forEach(function (key, n) {
            if (n < parts.length) named[key] = parts[n];
          });
          return named;
        });
      } else if (name === "year") {
        if (/^[0-9]+$/.test(value)) item.issued = {"date-parts": [[parseInt(value, 10)]]};
      } else if (CSL_OF_FIELD.hasOwnProperty(name)) {
        item[CSL_OF_FIELD[name]] = value;
      }
    }
    return item;
  }

  // A paper's RIS ("ris") or CSL-JSON ("json") from its page `doc` (citations.citation_data):
  // #cite-data's item where it says "page": the fields pageItem reads, less those #cite-data gives
  // (or nulls); the citation-key is the id. The RIS as "ris" says (text and, in turn, names of the
  // item's fields whose values it holds: ris_parts), else risFromCsl's.
  function citeItem(doc) {
    var data = JSON.parse(doc.getElementById("cite-data").textContent);
    var item = data.page ? pageItem(doc) : {};
    Object.keys(data.csl).forEach(function (name) {
      if (data.csl[name] === null) delete item[name];
      else item[name] = data.csl[name];
    });
    item["citation-key"] = item.id;
    return { item: item, ris: data.ris };
  }

  function citeText(doc, format) {
    var cited = citeItem(doc), item = cited.item;
    if (format === "json") return pythonJson([item]) + "\n";
    if (!cited.ris) return risFromCsl(item);
    return cited.ris.map(function (part, n) { return n % 2 ? item[part] : part; }).join("");
  }

  var bibs = {}; // venue slug -> Promise of the entries of venues/<slug>/papers.bib
  function venueEntries(slug) {
    if (!bibs[slug]) {
      bibs[slug] = fetch(base + "venues/" + slug + "/papers.bib").then(function (response) {
        if (!response.ok) throw new Error(slug + ": HTTP " + response.status);
        return response.text();
      }).then(function (text) { // entries end with "}" alone on a line, one blank line between them
        return text.replace(/\n$/, "").split(/(?<=\n\})\n\n(?=@)/);
      });
      bibs[slug].catch(function () { delete bibs[slug]; });
    }
    return bibs[slug];
  }

  // The .bib of a listing from its data-bib (citations.bib_parts): "icml-2024:0-3,7 colt-2024",
  // the places of its entries in each venue's .bib (a slug alone: all of them), in order; or, with
  // data-keys (an author's: citations.bib_keys), the venues' slugs and the entries' keys in order.
  function listingBib(parts, keys) {
    var wanted = parts.split(" ").filter(Boolean).map(function (part) { return part.split(":"); });
    return Promise.all(wanted.map(function (part) { return venueEntries(part[0]); })).then(function (lists) {
      if (keys !== null) {
        var byKey = {};
        lists.forEach(function (list) {
          list.forEach(function (entry) { byKey[/^@[^{]*\{([^,]*),/.exec(entry)[1]] = entry; });
        });
        return keys.split(" ").map(function (key) { return byKey[key]; }).join("\n\n") + "\n";
      }
      var entries = [];
      wanted.forEach(function (part, i) {
        if (part.length === 1) { entries = entries.concat(lists[i]); return; }
        part[1].split(",").forEach(function (run) {
          var ends = run.split("-").map(Number);
          for (var n = ends[0]; n <= ends[ends.length - 1]; n++) entries.push(lists[i][n]);
        });
      });
      return entries.join("\n\n") + "\n";
    });
  }

  var TYPES = { ris: "application/x-research-info-systems", json: "application/vnd.citationstyles.csl+json",
                bib: "application/x-bibtex" };

  function save(text, name) {
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: TYPES[name.split(".").pop()] }));
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-cite], button[data-bib]");
    if (!button) return;
    var format = button.getAttribute("data-cite");
    var made = format ? Promise.resolve().then(function () {
      return citeText(document, format);
    }) : listingBib(button.getAttribute("data-bib"), button.getAttribute("data-keys"));
    made.then(function (text) {
      save(text, format ? "cite." + format : button.getAttribute("data-name") || "papers.bib");
    }, function (error) {
      console.warn("download:", error);
      var label = button.textContent;
      button.textContent = "Download failed: try again";
      setTimeout(function () { button.textContent = label; }, 3000);
    });
  });

  // for reading-list.js (another page's citation) and cite-styles.js (the CSL-JSON item)
  window.papersiteCite = { text: citeText, item: function (doc) { return citeItem(doc).item; } };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
