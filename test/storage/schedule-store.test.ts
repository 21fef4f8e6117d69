import { scheduleStoreCases } from '../conformance/schedule-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) scheduleStoreCases(engine);
