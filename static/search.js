// Search page: lunr.js over the prebuilt index shards, as you type, with the
// query and filters kept in the URL.
//
// On open it fetches lunr.js and two small files: search/index.json (which
// shard holds which range of terms) and search/docs.json (paper count,
// venues, topics). For each query it fetches only the shards holding the
// query's terms and builds one lunr index from them with lunr.js's own
// Builder, so weights and scores are exactly those of one index over the
// whole catalog (see papersite/search/shards.py); then the document-store
// files of the results shown. Everything fetched is kept for later queries.
//
// A word that finds nothing may be misspelt: only then is the vocabulary
// (search/terms.json) fetched, and the indexed words within one or two edits
// of it are searched too, ranked below every exact or prefix match.
//
// Everything shown is built with text nodes and <mark> elements, never with
// innerHTML: titles and abstracts are content, and content may contain markup.
(function () {
  "use strict";

  var EXACT_BOOST = 10; // a whole word beats words that merely start with it
  var PREFIX_BOOST = 1;
  var TYPO_BOOST = 1; // words spelt like a misspelt one (ranked after exact and prefix matches anyway)
  var TYPO_MIN_LENGTH = 5; // shorter words have too many neighbours one edit away
  var TYPO_TWO_EDITS = 8; // from this length, two edits if one finds no word
  var TYPO_TERMS = 6; // indexed words searched in place of a misspelt one, at most

  // --- The engine: from query text to ranked refs (no DOM; node tests load it) ---

  function engine(lunr) {
    // The trimmer: lunr.js's own strips ASCII \W from both ends, which leaves nothing of "שלום"
    // or "中文" and only "caf" of "café"; this one keeps every script's letters, marks and numbers
    // (papersite/search/lunr_text.py's trim is the same, for the index). Registered, so that a
    // lunr.js pipeline may hold it (the parity tests build lunr.js indexes with it).
    var wordChar = /[\p{L}\p{M}\p{N}_]/u;
    var nonWordStart = /^[^\p{L}\p{M}\p{N}_]+/u, nonWordEnd = /[^\p{L}\p{M}\p{N}_]+$/u;
    function trim(word) { return word.replace(nonWordStart, "").replace(nonWordEnd, ""); }
    function trimmer(token) { return token.update(trim); }
    if (lunr.Pipeline.registeredFunctions.unicodeTrimmer === undefined) {
      lunr.Pipeline.registerFunction(trimmer, "unicodeTrimmer");
    } else {
      trimmer.label = "unicodeTrimmer";
    }
    // lunr.js's stemmer and stop words, on single words.
    function stem(word) { return lunr.stemmer(new lunr.Token(word)).toString(); }
    function isStopWord(word) { return !lunr.stopWordFilter(new lunr.Token(word)); }
    // The word without its accents: author names are indexed both ways (papersite/search/files.py),
    // so "rocktäschel" also finds papers that spell it "Rocktaschel".
    function bare(word) { return word.normalize("NFD").replace(/[\u0300-\u036f]/g, ""); }

    // Greek letters spelt out, as titles and abstracts are indexed with the names of their letters
    // (papersite/text/words.py's GREEK, made from the same string): "ε-greedy" searches "epsilon-greedy",
    // "ΦFlow" "phi Flow".
    var greek = {};
    ("α alpha β beta γ gamma δ delta ε epsilon ζ zeta η eta θ theta ι iota κ kappa λ lambda μ mu " +
     "ν nu ξ xi ο omicron π pi ρ rho ς sigma σ sigma τ tau υ upsilon φ phi χ chi ψ psi ω omega " +
     "ϐ beta ϑ theta ϕ phi ϖ pi ϰ kappa ϱ rho ϵ epsilon").replace(/(\S+) (\S+)/g, function (_, letter, name) {
      greek[letter] = greek[letter.toUpperCase()] = name;
    });
    var greekLetter = new RegExp("[" + Object.keys(greek).join("") + "]", "g");
    var joinedBefore = /[^\s:]$/; // a field name ("title:") or a space keeps its place before a word
    var wordStart = /(^|\s)[+\-]$/; // nor does "+" or "-" before a word: lunr's required, excluded
    var joinedAfter = /^[^\s\-~^*]/; // lunr splits at "-"; "~1", "^2" and "*" belong to the word
    // "ℓ_p" typed as TeX writes it reads as the plain text of `$\ell_p$` does: "lp" (lunr_text.py's _SUBSCRIPT).
    var subscript = /(?<![\p{L}\p{N}_])([\p{L}\p{N}])_(?:\{([\p{L}\p{N}]+)\}|(?=[\p{L}\p{N}]))/gu;
    // The query as titles and abstracts are indexed (lunr_text.py's searchable): compatibility forms
    // folded as their plain text has them ("ℓ1" -> "l1", "𝑥" -> "x"), subscripts joined ("ℓ_p" -> "lp"),
    // and each Greek letter its name, a word of its own: "ΦFlow" -> "phi Flow", "λ=0.5" -> "lambda =0.5",
    // "ε-greedy" -> "epsilon-greedy", "title:ε" -> "title:epsilon". (Han text is cut in parseQuery.)
    function asIndexed(query) {
      var text = query.normalize("NFKC");
      if (text.indexOf("_") !== -1) text = text.replace(subscript, function (_, base, braced) { return base + (braced || ""); });
      return text.replace(greekLetter, function (letter, at) {
        var before = text.slice(0, at);
        return (joinedBefore.test(before) && !wordStart.test(before) ? " " : "") + greek[letter] +
          (joinedAfter.test(text.slice(at + 1)) ? " " : "");
      });
    }

    // Han ideographs: runs of them are indexed as overlapping pairs ("深度学习" -> 深度 度学 学习;
    // lunr_text.py's HAN and han_words), so a query's runs are cut the same way: any two or more
    // characters of a title's run find it.
    var HAN = "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{3ffff}";
    var hanRun = new RegExp("[" + HAN + "]+", "gu");
    function hanWords(word) {
      return word.replace(hanRun, function (run) {
        var chars = Array.from(run), pairs = [];
        for (var i = 0; i + 1 < chars.length; i++) pairs.push(chars[i] + chars[i + 1]);
        return " " + (pairs.length ? pairs.join(" ") : run) + " ";
      });
    }

    // One Latin letter or digit (after folding: "ℓ", "𝑥", "é") would match most of the
    // vocabulary as a prefix: the page asks for another letter instead of searching. Anything
    // else of one character ("ε" is "epsilon", "中" a word) is searched.
    function tooShort(query) { return /^[a-z0-9]$/i.test(bare(asIndexed(query.trim()))); }

    // The query as "groups": one per word the visitor typed. A plain word expands
    // into several lunr clauses (the whole word through the stemmer, boosted; the
    // stem as a prefix; the raw word as a prefix), so partial words match while
    // typing and "distill" finds "distillation" (indexed as "distil").
    // Words using lunr syntax (title:x, x~1, x^2, +x, -x, x*) keep their meaning.
    var specialEdges = /^[^\p{L}\p{M}\p{N}_*]+|[^\p{L}\p{M}\p{N}_*]+$/gu; // trimmed, but not the wildcards
    function parseQuery(text, fields) {
      text = asIndexed(text);
      var clauses;
      try {
        var parsed = new lunr.Query(fields);
        new lunr.QueryParser(text, parsed).parse();
        clauses = parsed.clauses;
      } catch (error) {
        if (!(error instanceof lunr.QueryParseError)) throw error;
        // Not valid lunr syntax ("title:", a lone "~"): search the plain words.
        clauses = text.replace(/[:~^*+"]/g, " ").split(lunr.tokenizer.separator).map(function (word) {
          return { term: word.toLowerCase(), fields: fields, boost: 1, presence: lunr.Query.presence.OPTIONAL };
        });
      }

      var groups = [];
      clauses.forEach(function (clause, position) {
        var special = clause.term.indexOf("*") !== -1 || clause.editDistance !== undefined;
        // A word holding Han text is the words it is indexed as, each with the clause's syntax.
        var words = special ? [clause.term.replace(specialEdges, "")] : hanWords(clause.term).split(/\s+/).map(trim).filter(Boolean);
        words.forEach(function (term, piece) {
          if (!wordChar.test(term)) return; // nothing left, or only wildcards
          var isLast = position === clauses.length - 1 && piece === words.length - 1 && !/\s$/.test(text);
          if (!special && isStopWord(term) && !(clauses.length === 1 && words.length === 1 && isLast)) return;
          groups.push({
            term: term,
            fields: clause.fields,
            boost: clause.boost || 1,
            presence: clause.presence,
            editDistance: clause.editDistance,
            special: special,
            plain: !special && clause.presence === lunr.Query.presence.OPTIONAL,
            exact: [], prefixes: [], typos: []
          });
        });
      });
      return groups;
    }

    // Which terms the groups' clauses may touch (addClauses below makes the
    // clauses): exact terms and prefixes locate their shards directly;
    // "patterns" (fuzzy or leading-wildcard terms) can match anywhere, so
    // they are first matched against the whole vocabulary.
    function needsOf(groups) {
      var needs = { exact: [], prefixes: [], patterns: [] };
      groups.forEach(function (group) {
        var term = group.term;
        if (group.special) {
          var star = term.indexOf("*");
          var pattern = star === -1 ? stem(term) : term; // addClauses runs the pipeline only without *
          if (group.editDistance !== undefined || star === 0) {
            needs.patterns.push({ term: pattern, editDistance: group.editDistance });
          } else {
            needs.prefixes.push(term.slice(0, star));
          }
          return;
        }
        if (!isStopWord(term)) needs.exact.push(stem(term));
        if (bare(term) !== term) needs.exact.push(stem(bare(term)));
        needs.exact.push.apply(needs.exact, group.typos);
        if (!group.plain) return;
        if (term.length >= 2) needs.prefixes.push(stem(term), term);
        for (var end = 4; end <= term.length; end++) needs.exact.push(term.slice(0, end)); // indexedPrefix
      });
      return needs;
    }

    // The terms of `vocabulary` (a lunr.TokenSet) that the patterns match.
    function expandPatterns(patterns, vocabulary) {
      var terms = [];
      patterns.forEach(function (pattern) {
        var clause = { term: pattern.term };
        if (pattern.editDistance !== undefined) clause.editDistance = pattern.editDistance;
        terms.push.apply(terms, vocabulary.intersect(lunr.TokenSet.fromClause(clause)).toArray());
      });
      return terms;
    }

    // Shard numbers (ascending) holding the given terms and every term that
    // starts with one of the prefixes. `bounds` are the shards' first terms
    // (or prefixes of them), sorted; bounds[0] is "".
    function shardsFor(bounds, exact, prefixes) {
      var found = {};
      function at(word) { // the last shard whose bound is <= word
        var lo = 0, hi = bounds.length;
        while (hi - lo > 1) {
          var mid = (lo + hi) >> 1;
          if (bounds[mid] <= word) lo = mid; else hi = mid;
        }
        return lo;
      }
      exact.forEach(function (term) { found[at(term)] = true; });
      prefixes.forEach(function (prefix) {
        var i = at(prefix);
        found[i] = true;
        while (++i < bounds.length && bounds[i].lastIndexOf(prefix, 0) === 0) found[i] = true;
      });
      return Object.keys(found).map(Number).sort(function (a, b) { return a - b; });
    }

    // Does a term matter to a query with these needs (an exact term, or one
    // starting with a prefix)? Other terms of its shards cannot change its
    // results: a lunr score only sums over the terms the clauses match.
    function wanted(exact, prefixes) {
      var set = Object.create(null);
      exact.forEach(function (term) { set[term] = true; });
      return function (term) {
        return set[term] === true || prefixes.some(function (prefix) { return term.lastIndexOf(prefix, 0) === 0; });
      };
    }

    // One lunr.Index over the postings of some shards (in vocabulary order),
    // of the terms `keep` accepts (all if no `keep`). lunr.js's Builder
    // computes the field vectors, so every weight is the one lunr.js would
    // give over the whole catalog: idf needs only the term's postings and the
    // document count, and with b=0 field lengths do not count (they are set
    // to 1 here, as any value would do).
    function buildIndex(settings, shards, keep) {
      var none = Object.create(null); // every posting's metadata: lunr only reads (copies) it
      var builder = new lunr.Builder();
      builder.ref("ref");
      settings.fields.forEach(function (name, i) { builder.field(name, { boost: settings.boosts[i] }); });
      builder.b(settings.b);
      builder.searchPipeline.add(lunr.stemmer);
      builder.documentCount = settings.count;
      var fields = settings.fields, frequencies = {};
      shards.forEach(function (shard) {
        shard.terms.forEach(function (term, t) {
          if (keep && !keep(term)) return;
          var posting = Object.create(null);
          posting._index = builder.termIndex++;
          fields.forEach(function (field, f) {
            var docs = posting[field] = Object.create(null);
            var codes = shard.postings[t][f], doc = 0;
            for (var k = 0; k < codes.length; k++) {
              var tf = codes[k] % 16;
              doc += (codes[k] - tf) / 16;
              if (tf === 0) tf = codes[++k]; // a frequency of 16 or more comes next
              docs[doc] = none;
              var slot = doc * fields.length + f;
              (frequencies[slot] || (frequencies[slot] = Object.create(null)))[term] = tf;
            }
          });
          builder.invertedIndex[term] = posting;
        });
      });
      // Field vectors in the order lunr.js adds them: by document, then field.
      Object.keys(frequencies).map(Number).sort(function (a, b) { return a - b; }).forEach(function (slot) {
        var doc = Math.floor(slot / fields.length), fieldRef = fields[slot % fields.length] + "/" + doc;
        builder.fieldTermFrequencies[fieldRef] = frequencies[slot];
        builder.fieldLengths[fieldRef] = 1;
        builder._documents[doc] = none;
      });
      // builder.build(), with the average field lengths set rather than computed (with b=0
      // they do not count, and computing them costs more than the rest).
      builder.averageFieldLength = {};
      fields.forEach(function (field) { builder.averageFieldLength[field] = 1; });
      builder.createFieldVectors();
      builder.createTokenSet();
      return new lunr.Index({
        invertedIndex: builder.invertedIndex,
        fieldVectors: builder.fieldVectors,
        tokenSet: builder.tokenSet,
        fields: fields,
        pipeline: builder.searchPipeline
      });
    }

    // The longest indexed term (4+ letters) that starts `word`: typing
    // "calibrat" is not yet "calibration", whose indexed stem is "calibr".
    function indexedPrefix(index, word) {
      var node = index.tokenSet, found = "";
      for (var i = 0; i < word.length && node; i++) {
        node = node.edges[word.charAt(i)];
        if (node && node.final && i >= 3) found = word.slice(0, i + 1);
      }
      return word.length - found.length <= 5 ? found : "";
    }

    function addClauses(index, query, group) {
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
        var unaccented = bare(group.term);
        if (unaccented !== group.term) {
          clause(unaccented, { usePipeline: true, boost: EXACT_BOOST * group.boost });
          group.exact.push(stem(unaccented));
        }
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
      var partial = indexedPrefix(index, group.term);
      if (partial && partial !== stemmed && partial.indexOf(stemmed) !== 0) {
        clause(partial, { usePipeline: false, boost: PREFIX_BOOST * group.boost });
        group.exact.push(partial);
      }
      group.typos.forEach(function (term) { clause(term, { usePipeline: false, boost: TYPO_BOOST * group.boost }); });
    }

    // Is this indexed term one the word's clauses ask for? (Remembered per
    // group: a common word at 50,000 papers asks this for every result.)
    function wants(group, term) {
      return wantsSpelt(group, term) || group.typos.indexOf(term) !== -1;
    }

    // ...as the word is spelt: exactly or as a prefix, not as a typo's neighbour.
    function wantsSpelt(group, term) {
      var known = group.wanted || (group.wanted = Object.create(null));
      if (!(term in known)) {
        known[term] = group.exact.indexOf(term) !== -1 || group.prefixes.some(function (prefix) {
          return term.indexOf(prefix) === 0;
        });
      }
      return known[term];
    }

    // Did this result match this word, in one of the word's fields (or of `only`)?
    function groupMatches(group, metadata, only, accept) {
      var fields = only ? group.fields.filter(function (f) { return only.indexOf(f) !== -1; }) : group.fields;
      return Object.keys(metadata).some(function (term) {
        return (accept || wants)(group, term) && fields.some(function (field) { return field in metadata[term]; });
      });
    }

    // Ranked results for the groups, on an index holding every term they may
    // touch: papers matching every plain word come first (typing more words
    // narrows the list); if none match them all, papers matching the most
    // words are shown instead. `count` is the number of papers in the catalog.
    function search(index, groups, count) {
      if (!groups.length) return { results: [], groups: groups, partial: false };
      groups.forEach(function (group) { group.exact = []; group.prefixes = []; group.wanted = null; });
      var clauses = null;
      var raw = index.query(function (query) {
        groups.forEach(function (group) { addClauses(index, query, group); });
        if (query.isNegated()) clauses = query.clauses;
      });
      if (clauses) raw = allBut(index, clauses, count);
      var plain = groups.filter(function (group) { return group.plain; });
      var matched = plain.map(function () { return 0; }); // papers per plain word
      var results = raw.map(function (result) {
        var metadata = result.matchData.metadata, covered = 0, typos = 0;
        plain.forEach(function (group, i) {
          if (!groupMatches(group, metadata)) return;
          covered++;
          matched[i]++;
          if (group.typos.length && !groupMatches(group, metadata, null, wantsSpelt)) typos++;
        });
        return { ref: result.ref, score: result.score, terms: Object.keys(metadata), metadata: metadata,
                 covered: covered, typos: typos };
      });
      var complete = results.filter(function (result) { return result.covered === plain.length; });
      var partial = !complete.length && results.length > 0;
      if (!partial) results = complete;
      // Most words first; then fewest words matched only by their spelling's neighbours
      // (so exact and prefix matches come first); then lunr's score.
      results.sort(function (a, b) { return b.covered - a.covered || a.typos - b.typos || b.score - a.score; });
      return { results: results, groups: groups, partial: partial, matched: matched };
    }

    // The plain words that may be misspelt: long enough, made of letters, and
    // matching no paper, exactly or as a prefix. (A word that matches even one
    // paper is taken as meant: a rare real word such as "grokking" is one edit
    // from common ones.)
    function misspelt(found) {
      var plain = found.groups.filter(function (group) { return group.plain; });
      return plain.filter(function (group, i) {
        return found.matched[i] === 0 && group.term.length >= TYPO_MIN_LENGTH && /^[a-z]+$/.test(group.term) &&
          !isStopWord(group.term);
      });
    }

    // Give each of these groups the terms of `vocabulary` (every indexed
    // term, in JS order) one edit from the word or its stem (two for a long
    // word if one finds none) that share the longest start with the word: a
    // typo is rarely in the first letters ("difussion" means "diffus", not
    // "discuss"). So the terms sharing its first 3 letters are tried first,
    // then 2, 1, 0: the whole vocabulary is scanned only for a word that
    // resembles nothing. Returns whether any group got some.
    function addTypos(groups, vocabulary) {
      var any = false;
      groups.forEach(function (group) {
        var word = group.term, stemmed = stem(word), found = [];
        function near(range, limit) {
          for (var i = range[0]; i < range[1]; i++) {
            var term = vocabulary[i];
            if (term !== stemmed && (withinEdits(term, stemmed, limit) || withinEdits(term, word, limit))) {
              found.push(term);
            }
          }
        }
        for (var shared = Math.min(3, word.length); shared >= 0 && !found.length; shared--) {
          var range = startingWith(vocabulary, word.slice(0, shared));
          near(range, 1);
          if (!found.length && word.length >= TYPO_TWO_EDITS) near(range, 2);
        }
        function common(term) { var n = 0; while (n < term.length && term[n] === word[n]) n++; return n; }
        var longest = Math.max.apply(null, found.map(common));
        group.typos = found.filter(function (term) { return common(term) === longest; }).slice(0, TYPO_TERMS);
        if (group.typos.length) any = true;
      });
      return any;
    }

    // [start, end) of the terms of a sorted list that start with `prefix`.
    function startingWith(terms, prefix) {
      function first(before) { // the first index whose term is not `before` it
        var lo = 0, hi = terms.length;
        while (lo < hi) {
          var mid = (lo + hi) >> 1;
          if (before(terms[mid])) lo = mid + 1; else hi = mid;
        }
        return lo;
      }
      return [first(function (term) { return term < prefix; }),
              first(function (term) { return term < prefix || term.lastIndexOf(prefix, 0) === 0; })];
    }

    // Are a and b at most `limit` edits apart (a letter inserted, deleted or
    // replaced, or two neighbours swapped)? Three rows of the edit-distance
    // table, reused; given up as soon as a row exceeds the limit.
    var rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];
    function withinEdits(a, b, limit) {
      if (Math.abs(a.length - b.length) > limit) return false;
      if (b.length + 1 > rows[0].length) rows = rows.map(function () { return new Int32Array(2 * b.length + 2); });
      var before = rows[0], previous = rows[1], current = rows[2], j;
      for (j = 0; j <= b.length; j++) previous[j] = j;
      for (var i = 1; i <= a.length; i++) {
        current[0] = i;
        var least = i, ai = a.charCodeAt(i - 1);
        for (j = 1; j <= b.length; j++) {
          var bj = b.charCodeAt(j - 1);
          var d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ai === bj ? 0 : 1));
          if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
            d = Math.min(d, before[j - 2] + 1);
          }
          current[j] = d;
          if (d < least) least = d;
        }
        if (least > limit) return false;
        var spare = before;
        before = previous;
        previous = current;
        current = spare;
      }
      return previous[b.length] <= limit;
    }

    // Where a text (a title, snippet or name, as shown) holds the given indexed terms:
    // [start, end, [terms]] ranges, in order. Words are cut as they are indexed (split at
    // spaces and hyphens, trimmed; each Greek letter a word of its own, read by its name; a
    // Han run by its pairs of characters), so what is marked is what was matched.
    var letters = Object.keys(greek).join("");
    var piece = new RegExp("([" + letters + "])|([" + HAN + "]+)|[^" + letters + HAN + "]+", "gu");
    function marks(text, terms) {
      var found = [], word = /[^\s\-]+/g, match;
      function mark(start, end, term) {
        if (terms.indexOf(term) === -1) return;
        var last = found[found.length - 1];
        if (last && last[1] > start) { // the pairs of a Han run overlap
          last[1] = Math.max(last[1], end);
          if (last[2].indexOf(term) === -1) last[2].push(term);
        } else {
          found.push([start, end, [term]]);
        }
      }
      while (terms.length && (match = word.exec(text))) {
        var part;
        piece.lastIndex = 0;
        while ((part = piece.exec(match[0]))) {
          var at = match.index + part.index, chars = part[0];
          if (part[1]) {
            mark(at, at + chars.length, stem(greek[chars]));
          } else if (part[2]) {
            var units = Array.from(chars);
            if (units.length === 1) mark(at, at + chars.length, chars);
            for (var i = 0, offset = 0; i + 1 < units.length; offset += units[i].length, i++) {
              mark(at + offset, at + offset + units[i].length + units[i + 1].length, units[i] + units[i + 1]);
            }
          } else {
            var core = trim(chars);
            if (!core) continue;
            var lead = chars.length - chars.replace(nonWordStart, "").length;
            var folded = core.normalize("NFKC").replace(subscript, function (_, base, braced) { return base + (braced || ""); });
            mark(at + lead, at + lead + core.length, stem(folded.toLowerCase()));
          }
        }
      }
      return found;
    }

    // Only -word clauses: lunr lists every paper of its index but those. This
    // index holds only the papers of some shards, so list every paper (in the
    // order lunr would, with score 0) but those the same clauses match.
    function allBut(index, clauses, count) {
      var excluded = {};
      if (clauses.length) {
        index.query(function (query) {
          clauses.forEach(function (clause) {
            var optional = Object.assign({}, clause);
            optional.presence = lunr.Query.presence.OPTIONAL;
            query.clauses.push(optional); // as lunr made it (wildcards already added)
          });
        }).forEach(function (result) { excluded[result.ref] = true; });
      }
      var all = [];
      for (var doc = 0; doc < count; doc++) {
        if (!excluded[doc]) all.push({ ref: String(doc), score: 0, matchData: new lunr.MatchData() });
      }
      return all;
    }

    return {
      trim: trim, trimmer: trimmer, stem: stem, parseQuery: parseQuery, needsOf: needsOf, expandPatterns: expandPatterns,
      shardsFor: shardsFor, wanted: wanted, buildIndex: buildIndex, search: search, wants: wants,
      groupMatches: groupMatches, misspelt: misspelt, addTypos: addTypos, withinEdits: withinEdits,
      greek: greek, asIndexed: asIndexed, hanWords: hanWords, HAN: HAN, tooShort: tooShort, marks: marks
    };
  }

  if (typeof module === "object" && module.exports) { // node: tests/js/search_engine.js
    module.exports = engine;
    return;
  }

  // --- The page ------------------------------------------------------------------

  var app = document.getElementById("search-app");
  if (!app) return;
  var thousands = /^en\b/i.test(document.documentElement.lang || "en") ? "," : "\u202f";

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
  var INDEX_CACHE = 8; // lunr indexes kept, one per query's terms
  var FACETS = [
    { param: "venue", label: "Venue" },
    { param: "topic", label: "Topic" },
    { param: "year", label: "Year", newestFirst: true },
    { param: "status", label: "Status" }
  ];
  var indexUrl = app.getAttribute("data-index");
  var members = (app.getAttribute("data-members") || "").split(" "); // their author pages' URLs
  var base = indexUrl.slice(0, indexUrl.lastIndexOf("/") + 1); // the search/ folder, with the site's base path

  var lunrjs = null; // the engine, once lunr.js has loaded
  var settings = null; // index.json: lunr settings and the shard table
  var bounds = null; // each shard's first term (or a prefix of it), sorted
  var shardNames = null; // and its file name
  var catalog = null; // docs.json, unpacked: venues and topics of every paper
  var fetched = {}; // url -> Promise of parsed JSON
  var indexes = []; // [{key, index}], most recent last
  var vocabulary = null; // Promise of a lunr.TokenSet of every term (fuzzy and *x queries)
  var docs = {}; // ref -> document-store record, as loaded
  var state = readUrl();
  var shown = PAGE_SIZE;
  var timer = 0;
  var lastUrlChange = 0;
  var rendering = 0; // the newest render; an older one that finishes late is dropped
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

  // Each file once per page. "no-cache": the browser may keep a copy but asks
  // the server whether it changed, so files of two different builds never mix.
  function fetchJson(url) {
    if (!fetched[url]) {
      fetched[url] = fetch(url, { cache: "no-cache" }).then(function (response) {
        if (!response.ok) throw new Error(url + ": HTTP " + response.status);
        return response.json();
      });
      fetched[url].catch(function () { delete fetched[url]; }); // a later query may retry
    }
    return fetched[url];
  }

  function load() {
    app.setAttribute("data-state", "loading");
    setStatus(state.q ? "Loading the search index…" : "");
    var started = performance.now();
    Promise.all([loadScript(app.getAttribute("data-lunr")), fetchJson(indexUrl),
                 fetchJson(app.getAttribute("data-docs"))])
      .then(function (loaded) {
        lunrjs = engine(window.lunr);
        settings = loaded[1].lunr;
        bounds = loaded[1].shards.map(function (shard) { return shard[0]; });
        shardNames = loaded[1].shards.map(function (shard) { return shard[1]; });
        catalog = unpack(loaded[2]);
        performance.measure("search:load", { start: started, end: performance.now() });
        app.setAttribute("data-state", "ready");
        render();
      }, failed);
  }

  function failed(error) {
    app.setAttribute("data-state", "error");
    setStatus("Search is unavailable: the search index could not be loaded. Try reloading the page.");
    console.warn("search:", error);
  }

  // docs.json -> names and, per paper number, venue and topic slugs, year and
  // status. Papers are numbered venue by venue, so a venue is a run of numbers
  // (and years and statuses come as runs too).
  function unpack(data) {
    var venueOf = [], topicsOf = [], names = { venue: {}, topic: {}, year: {}, status: {} };
    data.venues.forEach(function (venue) {
      names.venue[venue[0]] = venue[1];
      for (var i = 0; i < venue[2]; i++) venueOf.push(venue[0]);
    });
    data.topics.forEach(function (topic) { names.topic[topic[0]] = topic[1]; });
    var codes = data.count ? data.paperTopics.split(",") : [];
    codes.forEach(function (code) {
      topicsOf.push(code ? code.split(".").map(function (n) { return data.topics[parseInt(n, 36)][0]; }) : []);
    });
    function expand(runs, name) {
      var of = [];
      runs.forEach(function (run) {
        var value = String(run[0]);
        if (value) names[name][value] = value;
        for (var i = 0; i < run[1]; i++) of.push(value ? [value] : []);
      });
      return of;
    }
    var yearOf = expand(data.years || [], "year"), statusOf = expand(data.statuses || [], "status");
    if (Object.keys(names.year).length < 2) names.year = {}; // one year: nothing to choose
    return { count: data.count, perFile: data.perFile, names: names, venue: venueOf, topic: topicsOf,
             year: yearOf, status: statusOf, pages: data.pages };
  }

  // A record of search/d/ ([title, page slug, year, snippet, [[name, author slug], ...], more,
  // etal]: papersite/search/store.py) as the object a result is shown from.
  function unpackRecord(record) {
    var pages = catalog.pages;
    return { title: record[0], url: pages[0] + record[1] + "/", year: record[2], snippet: record[3],
             authors: record[4].map(function (author) { return [author[0], pages[1] + author[1] + "/"]; }),
             more: record[5], etal: record[6] };
  }

  // A lunr index holding every term these groups may touch.
  function indexFor(groups) {
    var needs = lunrjs.needsOf(groups);
    var expanded = needs.patterns.length ? loadVocabulary().then(function (tokenSet) {
      return lunrjs.expandPatterns(needs.patterns, tokenSet);
    }) : Promise.resolve([]);
    return expanded.then(function (terms) {
      var exact = needs.exact.concat(terms);
      var numbers = lunrjs.shardsFor(bounds, exact, needs.prefixes);
      var key = exact.concat([""], needs.prefixes).join(" "); // terms never hold spaces
      for (var i = 0; i < indexes.length; i++) {
        if (indexes[i].key === key) return indexes[i].index;
      }
      return Promise.all(numbers.map(function (n) { return fetchJson(base + "t/" + shardNames[n] + ".json"); }))
        .then(function (shards) {
          var started = performance.now();
          // Only the terms the query can match: a shard may also hold a word of 40,000 papers.
          var index = lunrjs.buildIndex(settings, shards, lunrjs.wanted(exact, needs.prefixes));
          performance.measure("search:index", { start: started, end: performance.now() });
          indexes.push({ key: key, index: index });
          if (indexes.length > INDEX_CACHE) indexes.shift();
          return index;
        });
    });
  }

  function loadVocabulary() {
    if (!vocabulary) {
      vocabulary = fetchJson(base + "terms.json").then(function (terms) { return window.lunr.TokenSet.fromArray(terms); });
      vocabulary.catch(function () { vocabulary = null; });
    }
    return vocabulary;
  }

  // The document-store records of these refs (files of perFile papers each),
  // fetched in the refs' order; `arrived` runs as each file comes in.
  function loadDocs(refs, arrived) {
    var files = [];
    refs.forEach(function (ref) {
      var n = Math.floor(ref / catalog.perFile);
      if (!docs[ref] && files.indexOf(n) === -1) files.push(n);
    });
    return Promise.all(files.map(function (n) {
      return fetchJson(base + "d/" + n + ".json").then(function (records) {
        Object.keys(records).forEach(function (ref) { docs[ref] = unpackRecord(records[ref]); });
        arrived();
      });
    }));
  }

  // Every paper in title order (for a list by venue or topic without a query).
  function allPapers() {
    return fetchJson(base + "order.json").then(function (order) {
      return order.map(function (doc) { return { ref: String(doc), terms: [] }; });
    });
  }

  // Every paper, in number order (what the facets count on an empty search page).
  function everyPaper() {
    var all = [];
    for (var doc = 0; doc < catalog.count; doc++) all.push({ ref: String(doc), terms: [] });
    return all;
  }

  // --- URL state -------------------------------------------------------------

  function readUrl() {
    var params = new URLSearchParams(location.search);
    return { q: params.get("q") || "", venue: params.getAll("venue"), topic: params.getAll("topic"),
             year: params.getAll("year"), status: params.getAll("status") };
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

  function query(text) {
    var groups = lunrjs.parseQuery(text, settings.fields);
    if (!groups.length) return Promise.resolve({ results: [], groups: groups, partial: false });
    function run(index) {
      var started = performance.now();
      var found = lunrjs.search(index, groups, catalog.count);
      performance.measure("search:query", { start: started, end: performance.now() });
      return found;
    }
    return indexFor(groups).then(run).then(function (found) {
      var unsure = lunrjs.misspelt(found);
      if (!unsure.length) return found;
      return fetchJson(base + "terms.json").then(function (vocabulary) {
        var started = performance.now();
        var respelt = lunrjs.addTypos(unsure, vocabulary);
        performance.measure("search:typos", { start: started, end: performance.now() });
        if (!respelt) return found;
        return indexFor(groups).then(run).then(function (again) {
          again.respelt = unsure.map(function (group) { return group.term; });
          return again;
        });
      });
    });
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

  // Text with the words whose indexed form was matched wrapped in <mark> (found as the
  // engine's marks() cuts words, so highlighting agrees with what was matched).
  function highlighted(text, terms, marked) {
    var fragment = document.createDocumentFragment(), last = 0;
    lunrjs.marks(text, terms).forEach(function (range) {
      if (range[0] > last) fragment.appendChild(document.createTextNode(text.slice(last, range[0])));
      fragment.appendChild(el("mark", "", text.slice(range[0], range[1])));
      range[2].forEach(function (term) { marked[term] = true; });
      last = range[1];
    });
    if (last < text.length) fragment.appendChild(document.createTextNode(text.slice(last)));
    return fragment;
  }

  // Words of the query found only further into the abstract than the snippet
  // shows, so a result never appears without a visible reason.
  function unseenWords(result, groups, marked) {
    var words = [];
    groups.forEach(function (group) {
      if (!group.plain || !lunrjs.groupMatches(group, result.metadata, ["body"])) return;
      var seen = result.terms.some(function (term) { return marked[term] && lunrjs.wants(group, term); });
      if (!seen && words.indexOf(group.term) === -1) words.push(group.term);
    });
    return words;
  }

  function valuesOf(ref, param) {
    return param === "venue" ? [catalog.venue[ref]] : catalog[param][ref];
  }

  function resultItem(result, groups) {
    var doc = docs[result.ref];
    var terms = result.terms, marked = {};
    var item = el("li", "paper-item search-result");
    var heading = el("h2", "paper-item-title");
    var link = el("a", "search-result-link");
    link.href = doc.url;
    link.appendChild(highlighted(doc.title, terms, marked));
    heading.appendChild(link);
    var meta = el("p", "paper-item-meta");
    var venue = catalog.venue[result.ref];
    meta.appendChild(el("span", "venue-name", catalog.names.venue[venue] || venue));
    catalog.topic[result.ref].forEach(function (slug) {
      meta.appendChild(el("span", "tag", catalog.names.topic[slug] || slug));
    });
    catalog.status[result.ref].forEach(function (value) { meta.appendChild(el("span", "status-badge", value)); });
    item.appendChild(heading);
    item.appendChild(meta);
    var saving = window.papersiteReadingList; // a Save button: static/reading-list.js
    if (saving && saving.slugOf(doc.url)) meta.appendChild(saving.button(saving.slugOf(doc.url), doc.title));
    if (doc.authors && doc.authors.length) {
      // Each name links to its author page; matched words are marked, as in the title.
      var byline = item.appendChild(el("p", "paper-item-authors"));
      doc.authors.forEach(function (author, i) {
        if (i) byline.appendChild(document.createTextNode(", "));
        var name = el("a"); // styled by its paragraph, as on the pages
        name.href = author[1];
        if (members.indexOf(author[1]) >= 0) name.className = "member"; // site.yaml's people: members
        name.appendChild(highlighted(author[0], terms, marked));
        byline.appendChild(name);
      });
      if (doc.etal) byline.appendChild(document.createTextNode(", et al."));
      else if (doc.more) byline.appendChild(document.createTextNode(" and " + doc.more + " more"));
    }
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

  function inFacets(ref, except) {
    return FACETS.every(function (facet) {
      var chosen = state[facet.param];
      if (facet.param === except || !chosen.length) return true;
      return valuesOf(ref, facet.param).some(function (value) { return chosen.indexOf(value) !== -1; });
    });
  }

  // Counts per option among results that pass the *other* facets, so ticking
  // a second venue shows how many it would add.
  function facetCounts(results, facet) {
    var counts = {};
    results.forEach(function (result) {
      if (!inFacets(result.ref, facet.param)) return;
      valuesOf(result.ref, facet.param).forEach(function (value) { counts[value] = (counts[value] || 0) + 1; });
    });
    return counts;
  }

  function renderFacets(results) {
    var fragment = document.createDocumentFragment();
    var active = document.activeElement;
    var focused = active && facetBox.contains(active) ? [active.name, active.value] : null;
    FACETS.forEach(function (facet) {
      var counts = facetCounts(results, facet);
      var names = catalog.names[facet.param];
      var options = Object.keys(names).filter(function (slug) {
        return counts[slug] || state[facet.param].indexOf(slug) !== -1;
      }).sort(facet.newestFirst ? function (a, b) { return Number(b) - Number(a); } : function (a, b) {
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
        var count = el("span", "facet-count", number(counts[slug] || 0));
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

  // Thousands grouped as the pages do (papersite/render.py's number_format): "2,596" in English.
  function number(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, thousands); }
  function plural(n, word) { return number(n) + " " + (n === 1 ? word : word + "s"); }

  function quoted(text) { return "\u201c" + text + "\u201d"; }

  function filterNames() {
    var names = [];
    FACETS.forEach(function (facet) {
      state[facet.param].forEach(function (slug) {
        if (catalog.names[facet.param][slug]) names.push(catalog.names[facet.param][slug]);
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

  // Search (fetching the shards the query needs) and paint the count, facets
  // and help; then paint the results in rank order as their document-store
  // files arrive. Resolves once all are painted; a render overtaken by a newer
  // one stops painting.
  function render() {
    if (!catalog) return Promise.resolve();
    var ticket = ++rendering;
    var started = performance.now();
    // Drop filter values the catalog does not have (an old or mistyped link).
    FACETS.forEach(function (facet) {
      state[facet.param] = state[facet.param].filter(function (slug) { return slug in catalog.names[facet.param]; });
    });
    var q = state.q.trim();
    var oneLetter = lunrjs.tooShort(q); // not searched: paintSummary says so
    var pending;
    if (oneLetter) {
      pending = Promise.resolve({ results: [], groups: [], partial: false });
    } else if (q) {
      pending = query(q);
    } else { // every paper: counted in the facets, listed (by title) once a filter is ticked
      pending = (filterNames().length ? allPapers() : Promise.resolve(everyPaper())).then(function (results) {
        return { results: results, groups: [], partial: false };
      });
    }
    return pending.then(function (found) {
      if (ticket !== rendering) return;
      var filtered = found.results.filter(function (result) { return inFacets(result.ref); });
      var listed = q || filterNames().length ? filtered.slice(0, shown) : [];
      paintSummary(q, oneLetter, found, filtered);
      showOnMap(q, filtered);
      var painted = 0;
      function paintReady() { // the next results whose records are here
        if (ticket !== rendering) return;
        var items = document.createDocumentFragment();
        for (; painted < listed.length && docs[listed[painted].ref]; painted++) {
          items.appendChild(resultItem(listed[painted], found.groups));
          if (!painted && q) performance.measure("search:first", { start: started, end: performance.now() });
        }
        list.appendChild(items);
      }
      paintReady();
      return loadDocs(listed.map(function (result) { return result.ref; }), paintReady).then(function () {
        if (ticket !== rendering) return;
        paintReady();
        more.hidden = filtered.length <= listed.length;
        if (!more.hidden) more.textContent = "Show " + Math.min(PAGE_SIZE, filtered.length - listed.length) + " more";
        app.setAttribute("data-query", state.q);
        if (q && !oneLetter) performance.measure("search:results", { start: started, end: performance.now() });
      });
    }).catch(function (error) {
      if (ticket !== rendering) return;
      setStatus("Search is unavailable: part of the search index could not be loaded. Try again, or reload the page.");
      console.warn("search:", error);
      app.setAttribute("data-query", state.q);
    });
  }

  // A link to the map with these results highlighted: static/map.js reads the
  // paper numbers (base 36) from the fragment, which never reaches a server.
  var onMap = null;
  function showOnMap(q, results) {
    var map = app.getAttribute("data-map");
    if (!map) return;
    if (!onMap) {
      onMap = el("a", "search-on-map", "Show these results on the map");
      status.parentNode.insertBefore(onMap, status.nextSibling);
    }
    onMap.hidden = !q || !results.length;
    onMap.href = map + "#" + new URLSearchParams({ q: q, refs: results.slice(0, 5000).map(function (result) {
      return Number(result.ref).toString(36);
    }).join(".") });
  }

  // The count (announced), facets, help and title for a search; empties the list.
  function paintSummary(q, oneLetter, found, filtered) {
    var filters = filterNames();
    renderFacets(found.results);
    var message;
    help.replaceChildren();
    if (oneLetter) {
      message = "Type another letter or two to search.";
    } else if (!q && !filters.length) {
      message = "Search " + plural(catalog.count, "paper") +
        " by title, abstract, author, venue or topic, or pick a venue or topic.";
    } else if (!filtered.length && q) {
      message = "No paper matches " + quoted(q) + (filters.length ? " in " + filters.join(", ") : "") + ".";
      help.appendChild(emptyHelp());
    } else {
      message = plural(filtered.length, "paper") +
        (q ? (filtered.length === 1 ? " matches " : " match ") + quoted(q) : "") +
        (filters.length ? " in " + filters.join(", ") : "") + "." +
        (found.respelt ? " Including words spelt like " + found.respelt.map(quoted).join(", ") + "." : "") +
        (found.partial ? " None has every word; showing the closest matches." : "");
    }
    help.hidden = !help.firstChild;
    list.replaceChildren();
    more.hidden = true;
    setStatus(message);
    document.title = q ? quoted(q) + " \u2013 " + baseTitle : baseTitle;
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
    render().then(function () {
      var next = list.children[first] && list.children[first].querySelector("a");
      if (next) next.focus();
    });
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
