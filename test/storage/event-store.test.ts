import { eventStoreCases } from '../conformance/event-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) eventStoreCases(engine);
