// The paper map: every paper a dot on a canvas, placed at build time by text
// similarity (papersite/paper_map.py), from map/points.json (papersite/map_data.py).
//
// Hover (or focus a list entry) shows a title; a click opens the paper; a drag
// draws a box that selects the papers inside it; the wheel zooms, Shift+drag
// pans; on the focused canvas the arrow keys pan, + and - zoom and 0 resets.
// On a touch screen a finger pans, two pinch to zoom, and a tap opens a paper.
// The list below the map holds the same papers as links (those in view, or
// the selection, or what is highlighted), so everything is reachable by
// keyboard. Titles are drawn with textContent only: they are content.
(function () {
  "use strict";

  var app = document.getElementById("map-app");
  if (!app) return;
  var canvas = document.getElementById("map-canvas");
  var tooltip = document.getElementById("map-tooltip");
  var status = document.getElementById("map-status");
  var list = document.getElementById("map-list");
  var more = document.getElementById("map-more");
  var clear = document.getElementById("map-clear");
  var legend = document.getElementById("map-legend");
  var find = document.getElementById("map-find");
  var colourBy = document.getElementById("map-colour");
  var papersBase = app.getAttribute("data-papers"); // .../papers/
  var context = canvas.getContext("2d");

  var PAGE = 100; // list entries shown at a time
  var CELL = 64; // spatial index cell, in grid units
  var HIT = 8; // px: how near the pointer a dot must be to be hovered
  var TAP = 16; // px: how near a finger must land (a fingertip covers several dots' worth)
  var NONE = "#8c8c8c";
  var thousands = /^en\b/i.test(document.documentElement.lang || "en") ? "," : "\u202f";

  var data = null, count = 0, xs, ys, venueOf, colours = [], groups = [], groupOf = [];
  var cells = null, side = 0; // spatial index: cell -> paper numbers
  var view = { scale: 1, x: 0, y: 0 }; // screen = grid * scale + (x, y), in CSS pixels
  var fitScale = 1; // the scale that shows the whole map
  var width = 0, height = 0;
  var selection = null; // paper numbers inside the last box, or null
  var highlight = null; // {number: true} of highlighted papers, or null
  var highlightLabel = "";
  var hovered = -1, focused = -1;
  var box = null; // the box being dragged, in screen pixels
  var shown = PAGE;
  var frame = 0;

  // --- Data ------------------------------------------------------------------

  function slugify(title) { // papersite/map_data.py's browser_slug, for ASCII titles
    return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  }

  function urlOf(n) {
    var slug = data.slug[n];
    if (typeof slug === "number") slug = slugify(data.title[n]).slice(0, slug);
    return papersBase + slug + "/";
  }

  function unpack(loaded) {
    data = loaded;
    count = data.title.length;
    xs = Float32Array.from(data.x);
    ys = Float32Array.from(data.y);
    venueOf = new Uint16Array(count);
    var at = 0;
    data.venues.forEach(function (venue, v) { for (var i = 0; i < venue[1]; i++) venueOf[at++] = v; });
    side = Math.ceil(data.grid / CELL);
    cells = new Array(side * side);
    for (var n = 0; n < count; n++) {
      var cell = Math.floor(ys[n] / CELL) * side + Math.floor(xs[n] / CELL);
      (cells[cell] || (cells[cell] = [])).push(n);
    }
  }

  // Colours far apart on the hue circle (golden angle), one per topic or venue, as light as the
  // colour scheme in use wants them (style.css's --map-lightness).
  function colourOf(i, lightness) {
    return "hsl(" + Math.round((i * 137.508) % 360) + " 70% " + lightness + ")";
  }

  var ink = "", paper = ""; // the canvas's text and background colours: outlines and halos

  function colour() {
    var style = getComputedStyle(canvas);
    ink = style.color;
    paper = style.backgroundColor;
    var lightness = getComputedStyle(document.documentElement).getPropertyValue("--map-lightness").trim() || "42%";
    var byVenue = colourBy.value === "venue";
    var names = byVenue ? data.venues.map(function (v) { return v[0]; }) : data.topics;
    colours = names.map(function (_, i) { return colourOf(i, lightness); });
    groupOf = new Int32Array(count);
    for (var n = 0; n < count; n++) groupOf[n] = byVenue ? venueOf[n] : data.topic[n];
    // papers drawn colour by colour: one fillStyle change per colour, not per dot
    groups = names.map(function () { return []; });
    var none = [];
    for (n = 0; n < count; n++) (groupOf[n] < 0 ? none : groups[groupOf[n]]).push(n);
    groups.push(none);
    colours.push(NONE);
    var items = document.createDocumentFragment();
    names.concat(byVenue ? [] : ["No topic"]).forEach(function (name, i) {
      if (!groups[i].length) return;
      var li = el("li", "map-legend-item");
      var swatch = li.appendChild(el("span", "map-swatch"));
      swatch.style.backgroundColor = colours[i];
      li.appendChild(document.createTextNode(name + " (" + number(groups[i].length) + ")"));
      items.appendChild(li);
    });
    legend.replaceChildren(items);
  }

  // --- Geometry --------------------------------------------------------------

  function resize() {
    var rect = canvas.getBoundingClientRect();
    width = rect.width;
    height = rect.height;
    var ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
  }

  function fit() {
    var pad = 16;
    view.scale = fitScale = Math.min((width - 2 * pad) / data.grid, (height - 2 * pad) / data.grid);
    view.x = (width - data.grid * view.scale) / 2;
    view.y = (height - data.grid * view.scale) / 2;
  }

  function screenX(n) { return xs[n] * view.scale + view.x; }
  function screenY(n) { return ys[n] * view.scale + view.y; }

  // Papers whose dots lie in a screen rectangle, by the spatial index.
  function within(left, top, right, bottom) {
    var gx0 = (left - view.x) / view.scale, gx1 = (right - view.x) / view.scale;
    var gy0 = (top - view.y) / view.scale, gy1 = (bottom - view.y) / view.scale;
    var found = [];
    var c0 = Math.max(0, Math.floor(gx0 / CELL)), c1 = Math.min(side - 1, Math.floor(gx1 / CELL));
    var r0 = Math.max(0, Math.floor(gy0 / CELL)), r1 = Math.min(side - 1, Math.floor(gy1 / CELL));
    for (var r = r0; r <= r1; r++) {
      for (var c = c0; c <= c1; c++) {
        var cell = cells[r * side + c];
        if (!cell) continue;
        for (var i = 0; i < cell.length; i++) {
          var n = cell[i];
          if (xs[n] >= gx0 && xs[n] <= gx1 && ys[n] >= gy0 && ys[n] <= gy1) found.push(n);
        }
      }
    }
    return found.sort(function (a, b) { return a - b; });
  }

  // The paper drawn nearest to a screen point, within `reach` (HIT) pixels; a highlighted one first.
  function nearestTo(px, py, reach) {
    var r = reach || HIT;
    var best = -1, bestRank = Infinity;
    within(px - r, py - r, px + r, py + r).forEach(function (n) {
      var dx = screenX(n) - px, dy = screenY(n) - py, d = dx * dx + dy * dy;
      if (d > r * r) return;
      var rank = d + (highlight && !highlight[n] ? 4 * r * r : 0);
      if (rank < bestRank) { best = n; bestRank = rank; }
    });
    return best;
  }

  // --- Drawing -----------------------------------------------------------------

  function redraw() {
    if (!frame) frame = requestAnimationFrame(draw);
  }

  // Highlighted (or selected) papers must stand out from thousands of others whatever their hue
  // and the colour scheme: the others fade, and each highlighted paper is a disc about twice a
  // dot's size, cut out of the faded dots by a halo of the background and outlined in the text
  // colour, which contrasts with the background in light and dark alike. A hovered or focused
  // paper gets a ring beyond that.
  var FADED = 0.2; // opacity of the papers not highlighted

  function draw() {
    frame = 0;
    var started = performance.now();
    context.clearRect(0, 0, width, height);
    // dots about 7 px on a small map, 3 px on a crowded one, growing as you zoom in
    var size = Math.max(2, Math.min(16, Math.max(3, Math.min(7, 300 / Math.sqrt(count))) *
                                    Math.sqrt(view.scale / fitScale))), half = size / 2;
    var dim = highlight || selection;
    var chosen = selection ? toSet(selection) : null;
    var radius = Math.max(4, 0.75 * size + 1.5); // of a highlighted disc
    context.globalAlpha = dim ? FADED : 0.85;
    groups.forEach(function (members, g) {
      context.fillStyle = colours[g];
      for (var i = 0; i < members.length; i++) {
        var n = members[i], x = screenX(n), y = screenY(n);
        if (x < -size || y < -size || x > width + size || y > height + size) continue;
        context.fillRect(x - half, y - half, size, size);
      }
    });
    context.globalAlpha = 1;
    if (dim) { // the highlighted or selected papers again, on top: halos, then discs, then outlines
      var lit = [];
      for (var n = 0; n < count; n++) {
        if ((highlight && !highlight[n]) || (chosen && !chosen[n])) continue;
        var x = screenX(n), y = screenY(n);
        if (x < -radius || y < -radius || x > width + radius || y > height + radius) continue;
        lit.push(n);
      }
      discs(lit, radius + 2, paper, "fill");
      var byGroup = colours.map(function () { return []; });
      lit.forEach(function (m) { byGroup[groupOf[m] < 0 ? colours.length - 1 : groupOf[m]].push(m); });
      byGroup.forEach(function (members, g) { discs(members, radius, colours[g], "fill"); });
      context.lineWidth = 1.5;
      discs(lit, radius, ink, "stroke");
    }
    [hovered, focused].forEach(function (m) {
      if (m < 0) return;
      var ring = Math.max(size, radius) + 5;
      context.lineWidth = 5;
      discs([m], ring, paper, "stroke");
      context.lineWidth = 2.5;
      discs([m], ring, ink, "stroke");
    });
    if (box) {
      context.strokeStyle = ink;
      context.lineWidth = 1;
      context.setLineDash([4, 3]);
      context.strokeRect(box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0);
      context.setLineDash([]);
    }
    performance.measure("map:draw", { start: started, end: performance.now() });
  }

  // Circles around papers' dots, in one path: filled or stroked in one colour.
  function discs(numbers, r, style, how) {
    if (!numbers.length) return;
    context.beginPath();
    numbers.forEach(function (n) {
      var x = screenX(n), y = screenY(n);
      context.moveTo(x + r, y);
      context.arc(x, y, r, 0, 2 * Math.PI);
    });
    if (how === "fill") { context.fillStyle = style; context.fill(); }
    else { context.strokeStyle = style; context.stroke(); }
  }

  function toSet(numbers) {
    var set = {};
    numbers.forEach(function (n) { set[n] = true; });
    return set;
  }

  // --- The list ----------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  function listed() {
    var numbers = selection || within(0, 0, width, height);
    if (highlight) numbers = numbers.filter(function (n) { return highlight[n]; });
    return numbers;
  }

  var listTimer = 0;
  function refreshList(now) {
    clearTimeout(listTimer);
    if (now) return paintList();
    listTimer = setTimeout(paintList, 150); // after a pan or zoom settles
  }

  // Thousands grouped as the pages do (papersite/render.py's number_format): "2,596" in English.
  function number(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, thousands); }
  function plural(n, word) { return number(n) + " " + word + (n === 1 ? "" : "s"); }

  function paintList() {
    var numbers = listed();
    var where = selection ? " in the box you drew" : numbers.length === count ? "" : " in view";
    var what = highlight ? " highlighted (" + highlightLabel + ")" : "";
    status.textContent = plural(numbers.length, "paper") + what + where + "." +
      (numbers.length > shown ? " The first " + number(shown) + " are listed." : "");
    clear.hidden = !selection;
    var items = document.createDocumentFragment();
    numbers.slice(0, shown).forEach(function (n) {
      var li = el("li", "map-list-item");
      var swatch = li.appendChild(el("span", "map-swatch"));
      swatch.style.backgroundColor = groupOf[n] < 0 ? NONE : colours[groupOf[n]];
      var link = li.appendChild(el("a", "map-list-link", data.title[n]));
      link.href = urlOf(n);
      link.setAttribute("data-number", n);
      items.appendChild(li);
    });
    list.replaceChildren(items);
    more.hidden = numbers.length <= shown;
    if (!more.hidden) more.textContent = "Show " + Math.min(PAGE, numbers.length - shown) + " more";
  }

  // --- Tooltip -----------------------------------------------------------------

  function showTip(n) {
    if (n < 0) { tooltip.hidden = true; return; }
    tooltip.textContent = data.title[n];
    tooltip.hidden = false;
    var x = screenX(n), y = screenY(n);
    tooltip.style.left = Math.min(Math.max(0, x + 12), Math.max(0, width - tooltip.offsetWidth)) + "px";
    tooltip.style.top = (y + 12 + tooltip.offsetHeight > height ? y - 12 - tooltip.offsetHeight : y + 12) + "px";
  }

  // --- Highlighting ----------------------------------------------------------

  // Words typed in the box: papers whose title holds every one of them.
  function findWords(text) {
    var words = text.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return null;
    var found = {};
    for (var n = 0; n < count; n++) {
      var title = data.title[n].toLowerCase();
      if (words.every(function (word) { return title.indexOf(word) !== -1; })) found[n] = true;
    }
    return found;
  }

  function setHighlight(found, label) {
    highlight = found;
    highlightLabel = label;
    shown = PAGE;
    redraw();
    refreshList(true);
  }

  // From the search page: #q=<query>&refs=<paper numbers in base 36, joined by ".">
  function fromHash() {
    var params = new URLSearchParams(location.hash.slice(1));
    if (!params.has("refs")) {
      if (highlightLabel.indexOf("search results") === 0) setHighlight(null, "");
      return;
    }
    var found = {};
    params.get("refs").split(".").forEach(function (code) {
      var n = parseInt(code, 36);
      if (n >= 0 && n < count) found[n] = true;
    });
    var label = params.get("q") || "";
    find.value = "";
    setHighlight(found, "search results for \u201c" + label + "\u201d");
  }

  // --- Events ------------------------------------------------------------------

  function pointer(event) {
    var rect = canvas.getBoundingClientRect();
    return { x: event.clientX - rect.left, y: event.clientY - rect.top };
  }

  var drag = null;
  var fingers = {}; // pointerId -> where each finger on the canvas is now
  var pinch = null; // while two fingers are down: their distance and midpoint last time

  function twoFingers() {
    var ids = Object.keys(fingers);
    if (ids.length !== 2) return null;
    var a = fingers[ids[0]], b = fingers[ids[1]];
    return { distance: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }

  canvas.addEventListener("pointerdown", function (event) {
    if (!data || event.button !== 0) return;
    canvas.setPointerCapture(event.pointerId);
    var at = pointer(event);
    var touch = event.pointerType === "touch";
    if (touch) {
      fingers[event.pointerId] = at;
      pinch = twoFingers();
      if (pinch || Object.keys(fingers).length > 1) {
        drag = null; // a second finger turns the gesture into a pinch: no tap, no pan of its own
        return;
      }
    }
    drag = { x: at.x, y: at.y, pan: touch || event.shiftKey, touch: touch, moved: false,
             viewX: view.x, viewY: view.y };
  });

  canvas.addEventListener("pointermove", function (event) {
    if (!data) return;
    var at = pointer(event);
    if (fingers[event.pointerId]) {
      fingers[event.pointerId] = at;
      var now = twoFingers();
      if (pinch && now) {
        view.x += now.x - pinch.x;
        view.y += now.y - pinch.y;
        zoom(now.distance / pinch.distance, now.x, now.y);
        pinch = now;
        return;
      }
    }
    if (drag) {
      if (Math.abs(at.x - drag.x) + Math.abs(at.y - drag.y) > 4) drag.moved = true;
      if (!drag.moved) return;
      if (drag.pan) {
        view.x = drag.viewX + at.x - drag.x;
        view.y = drag.viewY + at.y - drag.y;
        refreshList(false);
      } else {
        box = { x0: Math.min(drag.x, at.x), y0: Math.min(drag.y, at.y),
                x1: Math.max(drag.x, at.x), y1: Math.max(drag.y, at.y) };
      }
      redraw();
      return;
    }
    if (event.pointerType === "touch") return; // a finger hovers nothing
    var n = nearestTo(at.x, at.y);
    if (n !== hovered) {
      hovered = n;
      canvas.style.cursor = n < 0 ? "" : "pointer";
      showTip(n);
      redraw();
    }
  });

  function liftFinger(event) {
    if (!fingers[event.pointerId]) return;
    delete fingers[event.pointerId];
    pinch = twoFingers(); // a third finger lifted leaves a pinch of two
  }

  canvas.addEventListener("pointercancel", function (event) {
    liftFinger(event);
    drag = null;
    box = null;
    redraw();
  });

  canvas.addEventListener("pointerup", function (event) {
    liftFinger(event);
    if (!drag) return;
    var at = pointer(event);
    if (!drag.moved) {
      var n = nearestTo(at.x, at.y, drag.touch ? TAP : HIT);
      if (n >= 0) location.href = urlOf(n);
    } else if (box) {
      selection = within(box.x0, box.y0, box.x1, box.y1);
      if (highlight) selection = selection.filter(function (m) { return highlight[m]; });
      box = null;
      shown = PAGE;
      refreshList(true);
    }
    drag = null;
    redraw();
  });

  canvas.addEventListener("pointerleave", function () {
    if (drag) return;
    hovered = -1;
    showTip(-1);
    redraw();
  });

  function zoom(factor, cx, cy) {
    var scale = Math.max(0.02, Math.min(50, view.scale * factor));
    factor = scale / view.scale;
    view.x = cx - (cx - view.x) * factor;
    view.y = cy - (cy - view.y) * factor;
    view.scale = scale;
    showTip(-1);
    redraw();
    refreshList(false);
  }

  canvas.addEventListener("wheel", function (event) {
    if (!data) return;
    event.preventDefault();
    var at = pointer(event);
    zoom(Math.exp(-event.deltaY * 0.0015), at.x, at.y);
  }, { passive: false });

  canvas.addEventListener("keydown", function (event) {
    if (!data || event.ctrlKey || event.metaKey || event.altKey) return;
    var step = 60;
    var moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (moves[event.key]) {
      view.x += moves[event.key][0];
      view.y += moves[event.key][1];
      redraw();
      refreshList(false);
    } else if (event.key === "+" || event.key === "=") {
      zoom(1.5, width / 2, height / 2);
    } else if (event.key === "-" || event.key === "_") {
      zoom(1 / 1.5, width / 2, height / 2);
    } else if (event.key === "0") {
      reset();
    } else {
      return;
    }
    event.preventDefault();
  });

  function reset() {
    fit();
    selection = null;
    shown = PAGE;
    redraw();
    refreshList(true);
  }

  // A list entry focused or hovered: ring its dot, show its title on the map.
  function markFromList(event) {
    var link = event.target.closest && event.target.closest(".map-list-link");
    focused = link ? Number(link.getAttribute("data-number")) : -1;
    showTip(focused);
    redraw();
  }
  list.addEventListener("focusin", markFromList);
  list.addEventListener("mouseover", markFromList);
  list.addEventListener("focusout", function () { focused = -1; showTip(-1); redraw(); });

  more.addEventListener("click", function () {
    var first = list.children.length;
    shown += PAGE;
    paintList();
    var next = list.children[first] && list.children[first].querySelector("a");
    if (next) next.focus();
  });

  clear.addEventListener("click", function () {
    selection = null;
    shown = PAGE;
    redraw();
    refreshList(true);
    canvas.focus();
  });

  document.getElementById("map-reset").addEventListener("click", reset);
  colourBy.addEventListener("change", restyle);
  // The colour scheme changed (the header's picker, or the system's while on auto): new colours.
  function restyle() {
    if (!data) return;
    colour();
    redraw();
    refreshList(true);
  }
  document.addEventListener("papersite:theme", restyle);
  if (window.matchMedia) matchMedia("(prefers-color-scheme: dark)").addEventListener("change", restyle);

  var findTimer = 0;
  find.addEventListener("input", function () {
    clearTimeout(findTimer);
    findTimer = setTimeout(function () {
      setHighlight(findWords(find.value), "\u201c" + find.value.trim() + "\u201d in the title");
    }, 150);
  });

  window.addEventListener("resize", function () {
    if (!data) return;
    var centre = { x: (width / 2 - view.x) / view.scale, y: (height / 2 - view.y) / view.scale };
    resize();
    view.x = width / 2 - centre.x * view.scale;
    view.y = height / 2 - centre.y * view.scale;
    redraw();
    refreshList(false);
  });
  window.addEventListener("hashchange", fromHash);

  // For tests and scripts: where paper number n is drawn, in page (client) pixels.
  window.papersiteMap = {
    locate: function (n) {
      var rect = canvas.getBoundingClientRect();
      return { x: rect.left + screenX(n), y: rect.top + screenY(n) };
    },
    count: function () { return count; }
  };

  fetch(app.getAttribute("data-points"), { cache: "no-cache" }).then(function (response) {
    if (!response.ok) throw new Error("HTTP " + response.status);
    return response.json();
  }).then(function (loaded) {
    unpack(loaded);
    colour();
    resize();
    fit();
    fromHash();
    redraw();
    refreshList(true);
    app.setAttribute("data-state", "ready");
  }).catch(function (error) {
    status.textContent = "The map could not be loaded: try reloading the page.";
    app.setAttribute("data-state", "error");
    console.warn("map:", error);
  });
})();
