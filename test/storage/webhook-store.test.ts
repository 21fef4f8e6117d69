import { webhookStoreCases } from '../conformance/webhook-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) webhookStoreCases(engine);
