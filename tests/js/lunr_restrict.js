// A serialized lunr index cut to some of its terms, for the parity tests:
// postings of the terms in the given [lo, hi) ranges (hi null: no end), with
// _index renumbered 0, 1, ... in term order, and field vectors keeping only
// their entries for those terms (renumbered, re-sorted; vectors left empty
// are dropped). With every term kept, it is the same index with its term
// numbers in term order.
'use strict'

module.exports = function restrict (whole, ranges) {
  const inRange = (term) => ranges.some(([lo, hi]) => term >= lo && (hi === null || term < hi))
  const kept = whole.invertedIndex.filter(([term]) => inRange(term))
  const renumber = new Map(kept.map(([, posting], i) => [posting._index, i]))
  const fieldVectors = []
  for (const [fieldRef, elements] of whole.fieldVectors) {
    const pairs = []
    for (let k = 0; k < elements.length; k += 2) {
      if (renumber.has(elements[k])) pairs.push([renumber.get(elements[k]), elements[k + 1]])
    }
    if (pairs.length) fieldVectors.push([fieldRef, pairs.sort((a, b) => a[0] - b[0]).flat()])
  }
  return {
    version: whole.version,
    fields: whole.fields,
    fieldVectors,
    invertedIndex: kept.map(([term, posting], i) => [term, Object.assign({}, posting, { _index: i })]),
    pipeline: whole.pipeline
  }
}
