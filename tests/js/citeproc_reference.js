// citeproc-js run directly, the reference for the paper pages' "Formatted citation" panel
// (tests/browser/test_cite_styles.py).
//
// Usage: node citeproc_reference.js /path/to/node_modules/citeproc < request.json
// The request: {item: CSL-JSON item, locale: locale XML, styles: {name: style XML}}; the reply
// (stdout, JSON): {name: the item's bibliography entry in that style, as HTML}. The engine is
// made as static/cite-styles.js makes it: en-US forced, HTML output, the item's id "paper".
'use strict'

const CSL = require(process.argv[2])

let input = ''
process.stdin.on('data', chunk => { input += chunk })
process.stdin.on('end', () => {
  const request = JSON.parse(input)
  const item = Object.assign({}, request.item, { id: 'paper' })
  const reply = {}
  for (const [name, style] of Object.entries(request.styles)) {
    const engine = new CSL.Engine({
      retrieveLocale: () => request.locale,
      retrieveItem: () => item
    }, style, 'en-US', true)
    engine.setOutputFormat('html')
    engine.updateItems(['paper'])
    reply[name] = engine.makeBibliography()[1].join('')
  }
  process.stdout.write(JSON.stringify(reply))
})
