// Reading list: papers saved in this browser's localStorage (nothing leaves it).
//
// On paper pages and search results: a Save button per paper (search.js asks
// window.papersiteReadingList.button for one). On reading-list/: the saved
// papers as their pages describe them (title, venue, year, authors), exported
// as one download of their own citations (the BibTeX entry each page shows, and
// the RIS and CSL-JSON its page's downloads make: site.js), and a link carrying
// the slugs (?papers=a,b) that opens the same list elsewhere. A site without RIS
// and CSL-JSON (site.yaml `omit: [citation-files]`) offers BibTeX alone.
// Everything shown is built with text nodes: titles are content.
(function () {
  "use strict";

  // The site's base path, from this script's own URL: the site may live under /<repo>/.
  var script = document.currentScript;
  var base = script ? script.src.replace(/static\/reading-list\.js(\?.*)?$/, "") : "/";
  var basePath = new URL(base, location.href).pathname;
  var KEY = "papersite:reading-list:" + basePath; // two sites on one origin keep two lists
  var SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/; // papersite/validate.py's: nothing else is ever fetched

  // --- Storage: [{slug, title}], oldest first ------------------------------------

  function load() {
    try {
      var saved = JSON.parse(localStorage.getItem(KEY) || "[]");
      return Array.isArray(saved) ? saved.filter(function (item) {
        return item && typeof item.slug === "string" && SLUG.test(item.slug);
      }) : [];
    } catch (error) { // storage disabled, or not our JSON
      return [];
    }
  }

  function store(items) {
    try {
      localStorage.setItem(KEY, JSON.stringify(items));
      return true;
    } catch (error) {
      return false;
    }
  }

  function has(slug) {
    return load().some(function (item) { return item.slug === slug; });
  }

  function save(slug, title) {
    var items = load();
    if (!items.some(function (item) { return item.slug === slug; })) items.push({ slug: slug, title: title || "" });
    return store(items);
  }

  function remove(slug) {
    return store(load().filter(function (item) { return item.slug !== slug; }));
  }

  // --- Save buttons ------------------------------------------------------------------

  function paint(button) {
    var saved = has(button.getAttribute("data-save"));
    button.setAttribute("aria-pressed", saved ? "true" : "false");
    button.textContent = saved ? "Saved" : "Save";
    button.title = saved ? "In your reading list: press to remove it" : "Add to your reading list";
  }

  function wire(button) {
    button.hidden = false;
    paint(button);
    button.addEventListener("click", function () {
      var slug = button.getAttribute("data-save");
      if (has(slug)) remove(slug); else save(slug, button.getAttribute("data-title") || pageTitle());
      paintAll();
    });
    return button;
  }

  function paintAll() {
    document.querySelectorAll("button[data-save]").forEach(paint);
  }

  // A paper page's title as plain text (its Save button carries none: the page has it).
  function pageTitle() {
    var tag = document.querySelector('meta[name="citation_title"]');
    return tag ? tag.getAttribute("content") : "";
  }

  // A Save button for a paper, for pages that build their lists in script (search.js).
  function button(slug, title) {
    var node = document.createElement("button");
    node.type = "button";
    node.className = "save-button";
    node.setAttribute("data-save", slug);
    node.setAttribute("data-title", title || "");
    return wire(node);
  }

  // The slug of a paper page's URL (…/papers/<slug>/), or "".
  function slugOf(url) {
    var match = /\/papers\/([a-z0-9-]+)\/$/.exec(new URL(url, location.href).pathname);
    return match && SLUG.test(match[1]) ? match[1] : "";
  }

  window.papersiteReadingList = { button: button, slugOf: slugOf, has: has };
  document.querySelectorAll("button[data-save]").forEach(wire);
  window.addEventListener("storage", function (event) { // another tab saved or removed one
    if (event.key === KEY) { paintAll(); if (app) show(); }
  });

  // --- The reading-list page ---------------------------------------------------------

  var app = document.getElementById("reading-list");
  if (!app) return;
  var papers = app.getAttribute("data-papers"); // .../papers/
  var status = document.getElementById("reading-status");
  var list = document.getElementById("reading-items");
  var actions = document.getElementById("reading-actions");
  var shared = document.getElementById("reading-shared");
  var ownNote = document.getElementById("reading-own-note");
  var sharedNote = document.getElementById("reading-shared-note");
  var share = document.getElementById("reading-share");
  var fetched = {}; // url -> Promise of the response text, or null for a paper that is gone

  var sharedParam = new URLSearchParams(location.search).get("papers");
  var sharedSlugs = sharedParam === null ? null : unique(sharedParam.split(",").filter(function (slug) {
    return SLUG.test(slug);
  }));
  if (sharedSlugs) { // say what this list is, where the page names "Reading list"
    var heading = document.getElementById("reading-heading");
    if (heading) heading.textContent = "Shared reading list";
    document.title = document.title.replace(/^Reading list/, "Shared reading list");
  }

  function unique(slugs) {
    return slugs.filter(function (slug, i) { return slugs.indexOf(slug) === i; });
  }

  function current() { // the slugs shown: a shared list, or this browser's
    return sharedSlugs || load().map(function (item) { return item.slug; });
  }

  function get(url) {
    if (!(url in fetched)) {
      fetched[url] = fetch(url).then(function (response) {
        if (response.status === 404) return null;
        if (!response.ok) throw new Error(url + ": HTTP " + response.status);
        return response.text();
      });
      fetched[url].catch(function () { delete fetched[url]; });
    }
    return fetched[url];
  }

  // A paper's page, parsed with DOMParser (which runs nothing), or null for a paper that is gone.
  function page(slug) {
    return get(papers + slug + "/").then(function (html) {
      return html === null ? null : new DOMParser().parseFromString(html, "text/html");
    });
  }

  // A paper's citation, from its page: the BibTeX entry it shows (#bibtex), or the RIS or
  // CSL-JSON its downloads make (#cite-data, site.js).
  function citation(slug, format) {
    return page(slug).then(function (doc) {
      if (format === "bib") {
        var entry = doc && doc.getElementById("bibtex");
        return entry ? entry.textContent : null;
      }
      return doc && doc.getElementById("cite-data") ? window.papersiteCite.text(doc, format) : null;
    });
  }

  // The tags that name a paper's venue, by its kind (a book's publisher last: a paper's may follow its venue).
  var VENUE_TAGS = ["citation_conference_title", "citation_journal_title", "citation_dissertation_institution",
                    "citation_technical_report_institution", "citation_inbook_title", "citation_publisher"];

  // What the list shows of a paper, read from its page: the Google Scholar tags that every paper
  // page carries (the title as plain text, where cite.json has the TeX as written), else its <h1>.
  function described(slug) {
    return page(slug).then(function (doc) {
      if (doc === null) return null;
      function tags(name) {
        return Array.prototype.map.call(doc.querySelectorAll('meta[name="' + name + '"]'),
                                        function (meta) { return meta.getAttribute("content") || ""; });
      }
      var heading = doc.querySelector("h1");
      var date = tags("citation_publication_date")[0] || "";
      var entry = doc.getElementById("bibtex"); // Scholar's tags cannot say the names are some of the authors
      return {
        title: tags("citation_title")[0] || (heading && heading.textContent.trim()),
        authors: tags("citation_author"),
        etAl: !!entry && /^\s*author = \{.* and others\},?$/m.test(entry.textContent),
        venue: VENUE_TAGS.map(tags).reduce(function (all, found) { return all.concat(found); }, [])[0],
        year: date.split("/")[0]
      };
    });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function names(people, etAl) {
    if (etAl) return people.slice(0, 6).join(", ") + ", et al.";
    return people.length > 6 ? people.slice(0, 6).join(", ") + " and " + (people.length - 6) + " more" : people.join(", ");
  }

  function entry(slug, item, storedTitle) {
    var li = el("li", "paper-item reading-item");
    li.setAttribute("data-slug", slug);
    var heading = li.appendChild(el("h2", "paper-item-title"));
    if (item === null) {
      heading.textContent = storedTitle || slug;
      li.appendChild(el("p", "reading-gone", "No longer in this catalog: it is left out of the downloads."));
    } else {
      var link = heading.appendChild(el("a", "reading-link", item.title || storedTitle || slug));
      link.href = papers + slug + "/";
      var meta = [item.venue, item.year].filter(Boolean).join(" · ");
      if (meta) li.appendChild(el("p", "paper-item-meta", meta));
      if (item.authors.length) li.appendChild(el("p", "paper-item-authors", names(item.authors, item.etAl)));
    }
    if (!sharedSlugs) {
      var drop = li.appendChild(el("button", "reading-remove", "Remove"));
      drop.type = "button";
      drop.setAttribute("aria-label", "Remove " + (heading.textContent || slug) + " from the reading list");
      drop.addEventListener("click", function () {
        var next = li.nextElementSibling || li.previousElementSibling;
        remove(slug);
        show().then(function () { // keep the keyboard where it was
          var target = next && list.querySelector('li[data-slug="' + next.getAttribute("data-slug") + '"] .reading-remove');
          (target || status).focus();
        });
      });
    }
    return li;
  }

  // What a shared list is to this browser: kept (every paper saved here too) or not (the page's
  // words). A template of an older theme may have neither note.
  var notKept = sharedNote ? sharedNote.textContent : "";
  function paintSharedNote() {
    if (!sharedNote) return;
    var kept = sharedSlugs.length && sharedSlugs.every(has);
    sharedNote.textContent = kept ? "A list shared with you by a link: every paper in it is in your own reading list too." :
      notKept;
  }

  var showing = 0;
  function show() {
    var ticket = ++showing;
    var slugs = current();
    var titles = {};
    load().forEach(function (item) { titles[item.slug] = item.title; });
    shared.hidden = !sharedSlugs;
    if (ownNote) ownNote.hidden = !!sharedSlugs;
    if (sharedSlugs) paintSharedNote();
    share.value = slugs.length ? location.origin + location.pathname + "?papers=" + slugs.join(",") : "";
    if (!slugs.length) {
      list.replaceChildren();
      actions.hidden = true;
      status.textContent = sharedSlugs ? "This shared list is empty." :
        "Your reading list is empty. Save papers from their pages or from search results.";
      return Promise.resolve();
    }
    return Promise.all(slugs.map(described)).then(function (items) {
      if (ticket !== showing) return;
      var fragment = document.createDocumentFragment();
      slugs.forEach(function (slug, i) { fragment.appendChild(entry(slug, items[i], titles[slug])); });
      list.replaceChildren(fragment);
      actions.hidden = false;
      var count = slugs.length === 1 ? "1 paper" : slugs.length + " papers";
      status.textContent = (sharedSlugs ? "A shared reading list of " : "Your reading list: ") + count + ".";
      app.setAttribute("data-state", "ready");
    }, function (error) {
      status.textContent = "The reading list could not be loaded: try reloading the page.";
      console.warn("reading list:", error);
    });
  }

  var FORMATS = {
    bib: { type: "application/x-bibtex", name: "reading-list.bib" },
    ris: { type: "application/x-research-info-systems", name: "reading-list.ris" },
    json: { type: "application/vnd.citationstyles.csl+json", name: "reading-list.json" }
  };

  // One file of every paper still in the catalog, in list order, from their own citation files.
  function exported(format) {
    return Promise.all(current().map(function (slug) { return citation(slug, format); })).then(function (texts) {
      texts = texts.filter(function (text) { return text !== null; });
      if (format === "json") {
        var items = [];
        texts.forEach(function (text) { items.push.apply(items, JSON.parse(text)); });
        return JSON.stringify(items, null, 2) + "\n";
      }
      return texts.map(function (text) { return text.replace(/\s+$/, "") + "\n"; }).join("\n");
    });
  }

  actions.addEventListener("click", function (event) {
    var format = event.target.getAttribute && event.target.getAttribute("data-export");
    if (!format) return;
    exported(format).then(function (text) {
      var link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([text], { type: FORMATS[format].type }));
      link.download = FORMATS[format].name;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    }, function (error) {
      status.textContent = "The download could not be made: try again.";
      console.warn("reading list:", error);
    });
  });

  document.getElementById("reading-copy").addEventListener("click", function (event) {
    share.select();
    if (navigator.clipboard) {
      navigator.clipboard.writeText(share.value).then(function () { event.target.textContent = "Copied"; },
                                                      function () {});
    }
  });

  document.getElementById("reading-keep").addEventListener("click", function () {
    var titles = {};
    list.querySelectorAll(".reading-link").forEach(function (link) {
      titles[link.closest("li").getAttribute("data-slug")] = link.textContent;
    });
    sharedSlugs.forEach(function (slug) { save(slug, titles[slug] || ""); });
    paintSharedNote();
    status.textContent = "Added " + (sharedSlugs.length === 1 ? "1 paper" : sharedSlugs.length + " papers") +
      " to your reading list.";
  });

  show();
})();
