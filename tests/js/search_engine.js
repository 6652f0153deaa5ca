// Runs search.js's query engine in node, for tests/test_search_parity.py:
// the same queries on one lunr.js index over every document, and on indexes
// that search.js builds from only the shards each query needs (and of them,
// only the terms the query can match).
//
// Usage: node search_engine.js /path/to/node_modules/lunr /path/to/search.js < request.json
// Request: {settings: index.json's "lunr" object, bounds: [shard boundary, ...],
//           shards: [shard file, parsed, ...], documents: [{ref, <field>: text}, ...],
//           queries: [text, ...]}
// Reply: {expanded: [JSON.stringify of each shard's lunr index, built by search.js],
//         queries: {text: {whole: [[ref, score], ...], sharded: [[ref, score], ...], shards: [n, ...],
//                          typos: [[terms searched for a misspelt word], ...] or null}}}
'use strict'

const path = require('path')
const lunr = require(path.resolve(process.argv[2]))
const engine = require(path.resolve(process.argv[3]))(lunr)
const restrict = require('./lunr_restrict')

const request = JSON.parse(require('fs').readFileSync(0, 'utf8'))
const { settings, bounds, shards, documents, queries } = request

const built = lunr(function () {
  this.pipeline.after(lunr.trimmer, engine.trimmer) // as the site's index is trimmed
  this.pipeline.remove(lunr.trimmer)
  this.ref('ref')
  settings.fields.forEach((name, i) => this.field(name, { boost: settings.boosts[i] }))
  this.b(settings.b)
  documents.forEach((doc) => this.add(doc))
})
// The same index with its terms numbered in term order, as in the shards: a
// score sums its terms in that order, so the two give the very same floats
// (numbered as lunr.js does, scores may differ in the last bit).
const whole = lunr.Index.load(restrict(JSON.parse(JSON.stringify(built)), [['', null]]))
const terms = shards.flatMap((shard) => shard.terms) // terms.json
const vocabulary = lunr.TokenSet.fromArray(terms)

const ranked = (found) => found.results.map((result) => [result.ref, result.score])

// search.js's query(): the words as typed, then, if a word may be misspelt,
// again with the vocabulary's words spelt like it.
function twice (text, indexFor) {
  const groups = engine.parseQuery(text, settings.fields)
  const first = engine.search(indexFor(groups), groups, settings.count)
  const unsure = engine.misspelt(first)
  if (!unsure.length || !engine.addTypos(unsure, terms)) return { found: first }
  return { found: engine.search(indexFor(groups), groups, settings.count), typos: unsure.map((g) => g.typos) }
}

const reply = { expanded: shards.map((shard) => JSON.stringify(engine.buildIndex(settings, [shard]))), queries: {} }
for (const text of queries) {
  const onWhole = twice(text, () => whole)
  let numbers = []
  const sharded = twice(text, (groups) => {
    const needs = engine.needsOf(groups)
    const exact = needs.exact.concat(engine.expandPatterns(needs.patterns, vocabulary))
    numbers = engine.shardsFor(bounds, exact, needs.prefixes)
    return engine.buildIndex(settings, numbers.map((n) => shards[n]), engine.wanted(exact, needs.prefixes))
  })
  reply.queries[text] = {
    whole: ranked(onWhole.found),
    sharded: ranked(sharded.found),
    shards: numbers,
    typos: sharded.typos || null
  }
}
process.stdout.write(JSON.stringify(reply))
