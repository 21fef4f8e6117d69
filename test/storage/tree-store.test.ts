/** Runs the TreeStore conformance suite against every engine. */
import { treeStoreCases } from '../conformance/tree-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) treeStoreCases(engine);
