// Answers questions about lunr.js for tests/test_search_parity.py, in one
// process per test run (node start-up dominates the cost).
//
// Usage: node lunr_oracle.js /path/to/node_modules/lunr /path/to/search.js < request.json
// Indexes are built by lunr.js with search.js's trimmer in place of lunr.js's
// own (lunr.js's strips every non-ASCII letter), as the site's index is.
// The request is an object with any of these keys; the reply (stdout, JSON)
// has the same keys:
//   build:    {ref, fields: [{field_name, boost}], documents, b?}  -> JSON.stringify(index)
//   shards:   {ref, fields, documents, b, bounds: ["", "b", ...]}
//             -> [JSON of the index restricted to each bound's term range, _index renumbered]
//   stem:     [word, ...]                                      -> [stem, ...]
//   trim:     [token, ...]                                     -> [trimmed by search.js's trimmer, ...]
//   lunrTrim: [token, ...]                                     -> [trimmed by lunr.js's trimmer, ...]
//   wordChars: true  -> the code points search.js's trimmer keeps (as [first, last] ranges)
//   stopWord: [word, ...]                                      -> [is it dropped?, ...]
//   search:   {index, queries: [...]}                          -> {query: [[ref, score], ...]}
//   separators: true  -> the BMP characters lunr.js's tokenizer splits on
'use strict'

const path = require('path')
const lunr = require(path.resolve(process.argv[2]))
const engine = require(path.resolve(process.argv[3]))(lunr)

const request = JSON.parse(require('fs').readFileSync(0, 'utf8'))
const reply = {}
const throughPipelineFn = (fn, s) => {
  const out = fn(new lunr.Token(s, {}))
  return out === undefined ? null : out.toString()
}

const buildIndex = ({ ref, fields, documents, b }) => lunr(function () {
  this.pipeline.after(lunr.trimmer, engine.trimmer)
  this.pipeline.remove(lunr.trimmer)
  this.ref(ref)
  for (const f of fields) this.field(f.field_name, { boost: f.boost || 1 })
  if (b !== undefined) this.b(b)
  for (const doc of documents) this.add(doc)
})

const restrict = require('./lunr_restrict')

if (request.build) reply.build = JSON.stringify(buildIndex(request.build))

if (request.shards) {
  const whole = JSON.parse(JSON.stringify(buildIndex(request.shards)))
  const bounds = request.shards.bounds
  reply.shards = bounds.map((lo, i) => JSON.stringify(restrict(whole, [[lo, i + 1 < bounds.length ? bounds[i + 1] : null]])))
}

if (request.stem) reply.stem = request.stem.map((w) => throughPipelineFn(lunr.stemmer, w))
if (request.trim) reply.trim = request.trim.map((w) => throughPipelineFn(engine.trimmer, w))
if (request.lunrTrim) reply.lunrTrim = request.lunrTrim.map((w) => throughPipelineFn(lunr.trimmer, w))
if (request.wordChars) {
  reply.wordChars = []
  for (let code = 0; code <= 0x10ffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue
    if (!throughPipelineFn(engine.trimmer, String.fromCodePoint(code))) continue
    const last = reply.wordChars[reply.wordChars.length - 1]
    if (last && last[1] === code - 1) last[1] = code
    else reply.wordChars.push([code, code])
  }
}
if (request.stopWord) reply.stopWord = request.stopWord.map((w) => throughPipelineFn(lunr.stopWordFilter, w) === null)

if (request.search) {
  const idx = lunr.Index.load(request.search.index)
  reply.search = {}
  for (const q of request.search.queries) {
    reply.search[q] = idx.search(q).map((r) => [r.ref, r.score])
  }
}

if (request.separators) {
  reply.separators = []
  for (let code = 0; code <= 0xffff; code++) {
    const c = String.fromCharCode(code)
    if (lunr.tokenizer.separator.test(c)) reply.separators.push(c)
  }
}

process.stdout.write(JSON.stringify(reply))
