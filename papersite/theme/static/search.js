// Search page: loads lunr.js, the prebuilt index and the document store on open,
// searches as you type and keeps the query and filters in the URL.
//
// Everything shown is built with text nodes and <mark> elements, never with
// innerHTML: titles and abstracts are content, and content may contain markup.
(function () {
  "use strict";

  var app = document.getElementById("search-app");
  if (!app) return;

  var input = document.getElementById("search-input");
  var form = input.form;
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var facetBox = document.getElementById("search-facets");
  var more = document.getElementById("search-more");
  var help = document.getElementById("search-help");

  var DEBOUNCE_MS = 150;
  var PAGE_SIZE = 50;
  var PUSH_AFTER_MS = 1000; // a URL change after a pause gets its own history entry
  var EXACT_BOOST = 10; // a whole word beats words that merely start with it
  var PREFIX_BOOST = 1;
  var FACETS = [
    { param: "venue", key: "venues", label: "Venue" },
    { param: "topic", key: "topics", label: "Topic" }
  ];

  var index = null; // lunr.Index
  var store = null; // {docs, venues, topics} from docs.json
  var state = readUrl();
  var shown = PAGE_SIZE;
  var timer = 0;
  var lastUrlChange = 0;
  var baseTitle = document.title;

  // --- Loading -------------------------------------------------------------

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(script);
    });
  }

  function fetchJson(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + ": HTTP " + response.status);
      return response.json();
    });
  }

  function load() {
    app.setAttribute("data-state", "loading");
    setStatus(state.q ? "Loading the search index…" : "");
    var started = performance.now();
    Promise.all([
      loadScript(app.getAttribute("data-lunr")),
      fetchJson(app.getAttribute("data-index")),
      fetchJson(app.getAttribute("data-docs"))
    ]).then(function (loaded) {
      index = window.lunr.Index.load(loaded[1]);
      store = loaded[2];
      performance.measure("search:load", { start: started, end: performance.now() });
      app.setAttribute("data-state", "ready");
      render();
    }, function (error) {
      app.setAttribute("data-state", "error");
      setStatus("Search is unavailable: the search index could not be loaded. " +
                "Try reloading the page.");
      console.warn("search:", error);
    });
  }

  // --- URL state -------------------------------------------------------------

  function readUrl() {
    var params = new URLSearchParams(location.search);
    return { q: params.get("q") || "", venue: params.getAll("venue"), topic: params.getAll("topic") };
  }

  function writeUrl(forcePush) {
    var params = new URLSearchParams();
    if (state.q.trim()) params.set("q", state.q);
    FACETS.forEach(function (facet) {
      state[facet.param].forEach(function (slug) { params.append(facet.param, slug); });
    });
    var query = params.toString();
    var url = location.pathname + (query ? "?" + query : "") + location.hash;
    if (url === location.pathname + location.search + location.hash) return;
    // One history entry per search, not per keystroke: replace while typing.
    var now = Date.now();
    var method = forcePush || now - lastUrlChange > PUSH_AFTER_MS ? "pushState" : "replaceState";
    history[method](null, "", url);
    lastUrlChange = now;
  }

  window.addEventListener("popstate", function () {
    state = readUrl();
    input.value = state.q;
    shown = PAGE_SIZE;
    render();
  });

  // --- Querying --------------------------------------------------------------

  // lunr.js's trimmer and stemmer, on single words.
  function trim(word) { return word.replace(/^\W+/, "").replace(/\W+$/, ""); }
  function stem(word) { return window.lunr.stemmer(new window.lunr.Token(word)).toString(); }
  function isStopWord(word) { return !window.lunr.stopWordFilter(new window.lunr.Token(word)); }

  // The longest indexed term (4+ letters) that starts `word`: typing
  // "calibrat" is not yet "calibration", whose indexed stem is "calibr".
  function indexedPrefix(word) {
    var node = index.tokenSet, found = "";
    for (var i = 0; i < word.length && node; i++) {
      node = node.edges[word.charAt(i)];
      if (node && node.final && i >= 3) found = word.slice(0, i + 1);
    }
    return word.length - found.length <= 5 ? found : "";
  }

  // The query as "groups": one per word the visitor typed. A plain word expands
  // into several lunr clauses (the whole word through the stemmer, boosted; the
  // stem as a prefix; the raw word as a prefix), so partial words match while
  // typing and "distill" finds "distillation" (indexed as "distil").
  // Words using lunr syntax (title:x, x~1, x^2, +x, -x, x*) keep their meaning.
  function parseQuery(text) {
    var lunr = window.lunr, clauses;
    try {
      var parsed = new lunr.Query(index.fields);
      new lunr.QueryParser(text, parsed).parse();
      clauses = parsed.clauses;
    } catch (error) {
      if (!(error instanceof lunr.QueryParseError)) throw error;
      // Not valid lunr syntax ("title:", a lone "~"): search the plain words.
      clauses = text.replace(/[:~^*+"]/g, " ").split(lunr.tokenizer.separator).map(function (word) {
        return { term: word.toLowerCase(), fields: index.fields, boost: 1,
                 presence: lunr.Query.presence.OPTIONAL };
      });
    }

    var groups = [];
    clauses.forEach(function (clause, position) {
      var special = clause.term.indexOf("*") !== -1 || clause.editDistance !== undefined;
      var term = special ? clause.term.replace(/^[^\w*]+|[^\w*]+$/g, "") : trim(clause.term);
      if (!/\w/.test(term)) return; // nothing left, or only wildcards
      var isLast = position === clauses.length - 1 && !/\s$/.test(text);
      if (!special && isStopWord(term) && !(clauses.length === 1 && isLast)) return;
      groups.push({
        term: term,
        fields: clause.fields,
        boost: clause.boost || 1,
        presence: clause.presence,
        editDistance: clause.editDistance,
        special: special,
        plain: !special && clause.presence === lunr.Query.presence.OPTIONAL,
        exact: [], prefixes: []
      });
    });
    return groups;
  }

  function addClauses(query, group) {
    var lunr = window.lunr;
    function clause(term, options) {
      options.term = term;
      options.fields = group.fields;
      options.presence = group.presence;
      if (options.boost === undefined) options.boost = group.boost;
      query.clause(options);
    }
    if (group.special) {
      var options = { usePipeline: group.term.indexOf("*") === -1 };
      // lunr tests `"editDistance" in clause`: set it only when there is one.
      if (group.editDistance !== undefined) options.editDistance = group.editDistance;
      clause(group.term, options);
      return;
    }
    var stemmed = stem(group.term);
    if (!isStopWord(group.term)) {
      clause(group.term, { usePipeline: true, boost: EXACT_BOOST * group.boost });
      group.exact.push(stemmed);
    }
    if (!group.plain) return; // +word / -word: the whole word only
    if (group.term.length >= 2) {
      clause(stemmed, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING,
                        boost: PREFIX_BOOST * group.boost });
      group.prefixes.push(stemmed);
      if (group.term.indexOf(stemmed) !== 0) {
        clause(group.term, { usePipeline: false, wildcard: lunr.Query.wildcard.TRAILING,
                             boost: PREFIX_BOOST * group.boost });
        group.prefixes.push(group.term);
      }
    }
    var partial = indexedPrefix(group.term);
    if (partial && partial !== stemmed && partial.indexOf(stemmed) !== 0) {
      clause(partial, { usePipeline: false, boost: PREFIX_BOOST * group.boost });
      group.exact.push(partial);
    }
  }

  // Is this indexed term one the word's clauses ask for?
  function wants(group, term) {
    return group.exact.indexOf(term) !== -1 || group.prefixes.some(function (prefix) {
      return term.indexOf(prefix) === 0;
    });
  }

  // Did this result match this word, in one of the word's fields (or of `only`)?
  function groupMatches(group, metadata, only) {
    var fields = only ? group.fields.filter(function (f) { return only.indexOf(f) !== -1; }) : group.fields;
    return Object.keys(metadata).some(function (term) {
      return wants(group, term) && fields.some(function (field) { return field in metadata[term]; });
    });
  }

  // Ranked results for the text query: papers matching every plain word come
  // first (typing more words narrows the list); if none match them all, papers
  // matching the most words are shown instead.
  function search(text) {
    var groups = parseQuery(text);
    if (!groups.length) return { results: [], groups: groups, partial: false };
    var started = performance.now();
    var raw = index.query(function (query) {
      groups.forEach(function (group) { addClauses(query, group); });
    });
    var plain = groups.filter(function (group) { return group.plain; });
    var results = raw.map(function (result) {
      var metadata = result.matchData.metadata;
      return {
        ref: result.ref,
        score: result.score,
        terms: Object.keys(metadata),
        metadata: metadata,
        covered: plain.filter(function (group) { return groupMatches(group, metadata); }).length
      };
    });
    var complete = results.filter(function (result) { return result.covered === plain.length; });
    var partial = !complete.length && results.length > 0;
    if (partial) {
      results.sort(function (a, b) { return b.covered - a.covered || b.score - a.score; });
    } else {
      results = complete;
    }
    performance.measure("search:query", { start: started, end: performance.now() });
    return { results: results, groups: groups, partial: partial };
  }

  // --- Rendering -------------------------------------------------------------

  function setStatus(text) {
    if (status.textContent !== text) status.textContent = text;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  // Text with the words whose indexed form was matched wrapped in <mark>.
  // Words are found the way lunr.js tokenizes (split on spaces and hyphens,
  // trim non-word characters), so highlighting agrees with what was matched.
  function highlighted(text, terms, marked) {
    var fragment = document.createDocumentFragment();
    var word = /[^\s\-]+/g, last = 0, match;
    while (terms.length && (match = word.exec(text))) {
      var token = match[0];
      var lead = token.length - token.replace(/^\W+/, "").length;
      var core = trim(token);
      if (!core || terms.indexOf(stem(core.toLowerCase())) === -1) continue;
      var start = match.index + lead;
      if (start > last) fragment.appendChild(document.createTextNode(text.slice(last, start)));
      fragment.appendChild(el("mark", "", core));
      marked[stem(core.toLowerCase())] = true;
      last = start + core.length;
    }
    if (last < text.length) fragment.appendChild(document.createTextNode(text.slice(last)));
    return fragment;
  }

  // Words of the query found only further into the abstract than the snippet
  // shows, so a result never appears without a visible reason.
  function unseenWords(result, groups, marked) {
    var words = [];
    groups.forEach(function (group) {
      if (!group.plain || !groupMatches(group, result.metadata, ["body"])) return;
      var seen = result.terms.some(function (term) { return marked[term] && wants(group, term); });
      if (!seen && words.indexOf(group.term) === -1) words.push(group.term);
    });
    return words;
  }

  function resultItem(result, groups) {
    var doc = store.docs[result.ref];
    var terms = result.terms, marked = {};
    var item = el("li", "paper-item search-result");
    var heading = el("h2", "paper-item-title");
    var link = el("a", "search-result-link");
    link.href = doc.url;
    link.appendChild(highlighted(doc.title, terms, marked));
    heading.appendChild(link);
    var meta = el("p", "paper-item-meta");
    meta.appendChild(el("span", "venue-name", store.venues[doc.venue] || doc.venue));
    doc.topics.forEach(function (slug) { meta.appendChild(el("span", "tag", store.topics[slug] || slug)); });
    item.appendChild(heading);
    item.appendChild(meta);
    item.appendChild(el("p", "paper-item-snippet")).appendChild(highlighted(doc.snippet, terms, marked));
    var unseen = groups.length ? unseenWords(result, groups, marked) : [];
    if (unseen.length) {
      var also = item.appendChild(el("p", "search-also", "Later in the abstract: "));
      unseen.forEach(function (word, i) {
        if (i) also.appendChild(document.createTextNode(", "));
        also.appendChild(el("mark", "", word));
      });
    }
    return item;
  }

  function inFacets(doc, except) {
    return FACETS.every(function (facet) {
      var chosen = state[facet.param];
      if (facet.param === except || !chosen.length) return true;
      var values = facet.param === "venue" ? [doc.venue] : doc.topics;
      return values.some(function (value) { return chosen.indexOf(value) !== -1; });
    });
  }

  // Counts per option among results that pass the *other* facets, so ticking
  // a second venue shows how many it would add.
  function facetCounts(results, facet) {
    var counts = {};
    results.forEach(function (result) {
      var doc = store.docs[result.ref];
      if (!inFacets(doc, facet.param)) return;
      var values = facet.param === "venue" ? [doc.venue] : doc.topics;
      values.forEach(function (value) { counts[value] = (counts[value] || 0) + 1; });
    });
    return counts;
  }

  function renderFacets(results) {
    var fragment = document.createDocumentFragment();
    var active = document.activeElement;
    var focused = active && facetBox.contains(active) ? [active.name, active.value] : null;
    FACETS.forEach(function (facet) {
      var counts = facetCounts(results, facet);
      var names = store[facet.key];
      var options = Object.keys(names).filter(function (slug) {
        return counts[slug] || state[facet.param].indexOf(slug) !== -1;
      }).sort(function (a, b) {
        return (counts[b] || 0) - (counts[a] || 0) || names[a].localeCompare(names[b]);
      });
      if (!options.length) return;
      var group = el("fieldset", "facet-group");
      group.appendChild(el("legend", "facet-legend", facet.label));
      var box = el("div", "facet-options");
      options.forEach(function (slug) {
        var label = el("label", "facet");
        var check = el("input");
        check.type = "checkbox";
        check.name = facet.param;
        check.value = slug;
        check.checked = state[facet.param].indexOf(slug) !== -1;
        label.appendChild(check);
        label.appendChild(el("span", "facet-name", names[slug]));
        var count = el("span", "facet-count", String(counts[slug] || 0));
        count.setAttribute("aria-label", plural(counts[slug] || 0, "paper"));
        label.appendChild(count);
        box.appendChild(label);
      });
      group.appendChild(box);
      fragment.appendChild(group);
    });
    facetBox.replaceChildren(fragment);
    facetBox.hidden = !facetBox.firstChild;
    if (focused) { // keep keyboard focus on the checkbox that was just toggled
      var again = facetBox.querySelector('input[name="' + CSS.escape(focused[0]) + '"][value="' +
                                         CSS.escape(focused[1]) + '"]');
      if (again) again.focus();
    }
  }

  function plural(n, word) { return n + " " + (n === 1 ? word : word + "s"); }

  function quoted(text) { return "\u201c" + text + "\u201d"; }

  function filterNames() {
    var names = [];
    FACETS.forEach(function (facet) {
      state[facet.param].forEach(function (slug) {
        if (store[facet.key][slug]) names.push(store[facet.key][slug]);
      });
    });
    return names;
  }

  function emptyHelp() {
    var fragment = document.createDocumentFragment();
    fragment.appendChild(el("p", "", "Suggestions"));
    var tips = el("ul");
    tips.appendChild(el("li", "", "Check the spelling, or try fewer or more general words."));
    if (filterNames().length) {
      var clearTip = el("li");
      var clear = el("button", "search-clear", "Clear the filters");
      clear.type = "button";
      clear.addEventListener("click", function () {
        FACETS.forEach(function (facet) { state[facet.param] = []; });
        update(true);
        input.focus();
      });
      clearTip.appendChild(clear);
      tips.appendChild(clearTip);
    }
    var browse = el("li", "", "Or browse ");
    var all = el("a", "", "all papers");
    all.href = app.getAttribute("data-papers");
    browse.appendChild(all);
    browse.appendChild(document.createTextNode(" by venue and topic."));
    tips.appendChild(browse);
    fragment.appendChild(tips);
    return fragment;
  }

  function render() {
    if (!index) return;
    // Drop filter values the catalog does not have (an old or mistyped link).
    FACETS.forEach(function (facet) {
      state[facet.param] = state[facet.param].filter(function (slug) { return slug in store[facet.key]; });
    });
    var q = state.q.trim();
    var found, results;
    if (q.length === 1) { // one letter would match most of the vocabulary
      found = { partial: false, groups: [] };
      results = [];
    } else if (q) {
      found = search(q);
      results = found.results;
    } else {
      found = { partial: false, groups: [] };
      results = Object.keys(store.docs).sort(function (a, b) {
        return store.docs[a].title.localeCompare(store.docs[b].title);
      }).map(function (ref) { return { ref: ref, terms: [] }; });
    }
    var filtered = results.filter(function (result) { return inFacets(store.docs[result.ref]); });
    var filters = filterNames();
    renderFacets(results);

    var items = document.createDocumentFragment();
    var message;
    help.replaceChildren();
    if (q.length === 1) {
      message = "Type another letter or two to search.";
    } else if (!q && !filters.length) {
      message = "Search " + plural(Object.keys(store.docs).length, "paper") +
        " by title, abstract, author, venue or topic, or pick a venue or topic.";
      filtered = [];
    } else if (!filtered.length && q) {
      message = "No paper matches " + quoted(q) + (filters.length ? " in " + filters.join(", ") : "") + ".";
      help.appendChild(emptyHelp());
    } else {
      message = plural(filtered.length, "paper") +
        (q ? (filtered.length === 1 ? " matches " : " match ") + quoted(q) : "") +
        (filters.length ? " in " + filters.join(", ") : "") + "." +
        (found.partial ? " None has every word; showing the closest matches." : "");
    }
    help.hidden = !help.firstChild;
    filtered.slice(0, shown).forEach(function (result) {
      items.appendChild(resultItem(result, found.groups));
    });
    list.replaceChildren(items);
    more.hidden = filtered.length <= shown;
    if (!more.hidden) more.textContent = "Show " + Math.min(PAGE_SIZE, filtered.length - shown) + " more";
    setStatus(message);
    document.title = q ? quoted(q) + " \u2013 " + baseTitle : baseTitle;
    app.setAttribute("data-query", state.q);
  }

  // Apply a state change: render, then record it in the URL.
  function update(push) {
    shown = PAGE_SIZE;
    render();
    writeUrl(push);
  }

  // --- Events ------------------------------------------------------------------

  input.value = state.q;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      state.q = input.value;
      update(false);
    }, DEBOUNCE_MS);
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault(); // the page is already here: search in place
    clearTimeout(timer);
    state.q = input.value;
    update(true);
  });

  facetBox.addEventListener("change", function (event) {
    var check = event.target;
    clearTimeout(timer);
    state.q = input.value;
    var chosen = state[check.name].filter(function (slug) { return slug !== check.value; });
    if (check.checked) chosen.push(check.value);
    state[check.name] = chosen;
    update(true);
  });

  more.addEventListener("click", function () {
    var first = list.children.length;
    shown += PAGE_SIZE;
    render();
    var next = list.children[first] && list.children[first].querySelector("a");
    if (next) next.focus();
  });

  // Arrow keys: from the box into the results and between them; Enter follows
  // the focused link as usual; Escape (or Up from the first) returns to the box.
  function resultLinks() { return Array.prototype.slice.call(list.querySelectorAll(".search-result-link")); }

  input.addEventListener("keydown", function (event) {
    if (event.key !== "ArrowDown" || event.altKey) return;
    var links = resultLinks();
    if (!links.length) return;
    event.preventDefault();
    links[0].focus();
  });

  list.addEventListener("keydown", function (event) {
    var links = resultLinks();
    var at = links.indexOf(document.activeElement);
    if (at === -1) return;
    if (event.key === "ArrowDown" && at < links.length - 1) {
      links[at + 1].focus();
    } else if (event.key === "ArrowUp") {
      (at > 0 ? links[at - 1] : input).focus();
    } else if (event.key === "Escape") {
      input.focus();
    } else {
      return;
    }
    event.preventDefault();
  });

  if (!state.q) input.focus();
  load();
})();
