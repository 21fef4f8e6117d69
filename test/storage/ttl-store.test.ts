import { ttlStoreCases } from '../conformance/ttl-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) ttlStoreCases(engine);
