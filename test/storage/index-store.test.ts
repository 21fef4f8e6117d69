/** Runs the IndexStore conformance suite against every engine. */
import { indexStoreCases } from '../conformance/index-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) indexStoreCases(engine);
