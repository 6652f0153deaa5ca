// Answers questions about lunr.js for tests/test_search_parity.py, in one
// process per test run (node start-up dominates the cost).
//
// Usage: node lunr_oracle.js /path/to/node_modules/lunr < request.json
// The request is an object with any of these keys; the reply (stdout, JSON)
// has the same keys:
//   build:    {ref, fields: [{field_name, boost}], documents, b?}  -> JSON.stringify(index)
//   shards:   {ref, fields, documents, b, bounds: ["", "b", ...]}
//             -> [JSON of the index restricted to each bound's term range, _index renumbered]
//   stem:     [word, ...]                                      -> [stem, ...]
//   trim:     [token, ...]                                     -> [trimmed, ...]
//   stopWord: [word, ...]                                      -> [is it dropped?, ...]
//   search:   {index, queries: [...]}                          -> {query: [[ref, score], ...]}
//   separators: true  -> the BMP characters lunr.js's tokenizer splits on
'use strict'

const lunr = require(process.argv[2] ? require('path').resolve(process.argv[2]) : 'lunr')

const request = JSON.parse(require('fs').readFileSync(0, 'utf8'))
const reply = {}
const throughPipelineFn = (fn, s) => {
  const out = fn(new lunr.Token(s, {}))
  return out === undefined ? null : out.toString()
}

const buildIndex = ({ ref, fields, documents, b }) => lunr(function () {
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
if (request.trim) reply.trim = request.trim.map((w) => throughPipelineFn(lunr.trimmer, w))
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
