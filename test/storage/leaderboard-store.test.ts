/** Runs the LeaderboardStore conformance suite against every engine. */
import { leaderboardStoreCases } from '../conformance/leaderboard-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) leaderboardStoreCases(engine);
