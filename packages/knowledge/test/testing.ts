// What other packages' tests and benchmarks use of this package's test kit: the hostile documents
// of the security review, the event-loop watch that measures what they cost, and a local web
// site serving the fixtures. Exported as `@parley/knowledge/testing` under the `source`
// condition only: it is for this repository's tests, never part of an installed package.
export { deeplyNestedHtml, largeDocx, manyPagePdf, poisonHtml, zipBombDocx } from "./hostile-documents.js";
export { watchEventLoop, type EventLoopReport, type SlowTick } from "./event-loop-watch.js";
export { fixture, startTestSite, type TestSite } from "./site-server.js";
