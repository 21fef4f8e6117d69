/** Runs the DocumentStore conformance suite against every engine. */
import { documentLogCases } from '../conformance/document-log.case.js';
import { documentStoreCases } from '../conformance/document-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) {
  documentStoreCases(engine);
  documentLogCases(engine);
}
