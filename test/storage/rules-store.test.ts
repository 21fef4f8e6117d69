/** Runs the RulesStore conformance suite against every engine. */
import { rulesStoreCases } from '../conformance/rules-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) rulesStoreCases(engine);
