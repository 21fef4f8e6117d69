/**
 * Property-based fuzzing of every WebSocket action (§4, §10 listeners, §14 `auth`) on each engine: generated
 * messages (every action and unknown ones, hostile paths, any JSON values nested to 100,000
 * levels, huge numbers, duplicate keys, non-JSON and binary frames) over one socket. Invariants:
 * each message gets exactly one answer (`init`, `resume`, `ack` or `error`), an `error` never
 * says "Internal error" and keeps the socket open (only a refused `auth` closes it, with 1008),
 * and a refused message changes nothing (the §8 export is identical before and after).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../support/engines.js';
import { type RealtimeTestApp, startRealtimeApp } from '../support/realtime.js';
import type { ServerMessage, TestSocket } from '../support/ws-client.js';
import { jsonValueText, NESTING_DEPTHS, nested, notJson } from './inputs.js';
import { FUZZ_SEED, fuzzRuns } from './invariants.js';

const RUNS = { sqlite: fuzzRuns(200), postgres: fuzzRuns(100) };
const ANSWERS = new Set(['init', 'resume', 'ack', 'error', 'snapshot']);

/** A tree path as a socket sends it (not URL-encoded). */
const treePath: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom('', 'a', 'a/b', 'a/b/c', 'players/p1/score', '/a//b/', 'x'), weight: 8 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 2 },
  {
    arbitrary: fc.constantFrom('.', '..', 'a/../b', 'a/./b', '\u0000', 'a\ud800', '%2e%2e', '#', '$', '[', 'a.b'),
    weight: 2,
  },
  {
    arbitrary: fc.integer({ min: 63, max: 66 }).map((n) => Array.from({ length: n }, (_, i) => `s${i}`).join('/')),
    weight: 1,
  },
  { arbitrary: fc.integer({ min: 1020, max: 1030 }).map((n) => 'p'.repeat(n)), weight: 1 },
  { arbitrary: fc.constantFrom(null, 1, [], {}, true), weight: 1 },
);

const messageId = fc.option(
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constantFrom(1.5, null, [], {}, Number.MAX_VALUE)),
  {
    freq: 5,
  },
);

/** One frame: text (JSON or not) or binary. */
function frame(tokens: string[]): fc.Arbitrary<{ text: string; binary: boolean }> {
  const action = fc.oneof(
    {
      arbitrary: fc.constantFrom('subscribe', 'unsubscribe', 'set', 'patch', 'delete', 'auth', 'listen', 'unlisten'),
      weight: 9,
    },
    { arbitrary: fc.constantFrom('SET', 'get', '', 'update', null, 1), weight: 1 },
  );
  const value = fc.oneof(
    { arbitrary: jsonValueText, weight: 5 },
    {
      arbitrary: fc.constantFrom(
        '{".sv":"timestamp"}',
        '{".sv":{"increment":1e400}}',
        '{".sv":"x"}',
        '{"a/b":1,"a":2}',
      ),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...NESTING_DEPTHS), fc.constantFrom('array' as const, 'object' as const))
        .map(([n, k]) => `{"k":${nested(n, k)}}`),
      weight: 1,
    },
  );
  const fields = fc.record(
    {
      action,
      path: treePath,
      id: messageId,
      since: fc.oneof(fc.integer(), fc.constantFrom(-1, 0, 2 ** 53, 1.5, '3', null)),
      if_match: fc.oneof(fc.constantFrom('*', '"x"', ''), fc.string({ maxLength: 4 })),
      access_token: fc.oneof(fc.constantFrom(...tokens), fc.string({ maxLength: 20 }), fc.constant(1)),
      // §10 listeners: a document, or a query with its clauses.
      doc: fc.oneof(fc.constantFrom('games/g1', 'games/g1/moves/m1', 'games', '/games//g1', '', 'a/../b'), fc.string()),
      collection: fc.oneof(fc.constantFrom('games', 'moves', 'a/b', '', '..'), fc.string({ maxLength: 6 })),
      parent_path: fc.oneof(fc.constantFrom('games/g1', 'games', ''), fc.string({ maxLength: 8 })),
      where: fc.oneof(
        fc.array(fc.constantFrom('score__gt:3', 'name:ann', 'x__in:1,2', 'bad', 'a__nope:1', 'n__iexact:1'), {
          maxLength: 3,
        }),
        fc.constantFrom('score__gt:3', 7, null),
      ),
      order_by: fc.oneof(fc.constantFrom('score', '-score', 'a.b', '', '--x'), fc.integer()),
      limit: fc.oneof(fc.constantFrom(0, 1, 10, 1000, 1001, -1, 1.5, '5'), fc.integer()),
    },
    { requiredKeys: ['action'] },
  );
  const structured = fc.tuple(fields, fc.option(value, { freq: 2 }), fc.boolean()).map(([f, v, duplicate]) => {
    const text = JSON.stringify(Object.fromEntries(Object.entries(f).filter(([, x]) => x !== null)));
    if (v === null) return text;
    // The value spliced in as text (JSON.stringify cannot write 1e400), sometimes twice.
    return `${text.slice(0, -1)},"value":${v}${duplicate ? ',"value":{"dup":1}' : ''}}`;
  });
  return fc.oneof(
    { arbitrary: structured.map((text) => ({ text, binary: false })), weight: 10 },
    { arbitrary: notJson.map((text) => ({ text, binary: false })), weight: 1 },
    {
      arbitrary: fc.constantFrom('[1]', 'null', '1', '"subscribe"').map((text) => ({ text, binary: false })),
      weight: 1,
    },
    { arbitrary: structured.map((text) => ({ text, binary: true })), weight: 1 },
  );
}

for (const engine of engines) {
  describe.skipIf(engine.unavailable)(`fuzzing every WebSocket action on ${engine.name}`, () => {
    let t: RealtimeTestApp;
    let tokens: string[];
    beforeAll(async () => {
      t = await startRealtimeApp(engine);
      const other = await t.otherProject();
      const { accounts } = t.app.services;
      const second = await accounts.createUser(t.project.projectId, { username: 'second', password: 'password-123' });
      tokens = [
        t.token,
        (await accounts.issueToken(t.project.projectId, second.id)).access_token,
        (other.headers.authorization as string).slice('Bearer '.length),
        'not.a.jwt',
      ];
    });
    afterAll(async () => {
      await t?.close();
    });

    const exported = async () => JSON.stringify(await t.app.services.transfer.exportProject(t.project.projectId));

    it(`answers ${RUNS[engine.name]} generated messages as §4 says (seed ${FUZZ_SEED})`, async () => {
      let socket: TestSocket = await t.socket();
      let baseline = await exported();
      let cases = 0;
      const details = await fc.check(
        fc.asyncProperty(frame(tokens), async ({ text, binary }) => {
          cases += 1;
          if (socket.ws.readyState !== socket.ws.OPEN) socket = await t.socket();
          const from = socket.messages.length;
          socket.ws.send(text, { binary });
          const closed = socket.closed.then((c) => ({ closed: c }));
          const answered = socket
            .waitFor((m) => ANSWERS.has(m.event), { from, timeoutMs: 15_000 })
            .then((m: ServerMessage) => ({ answer: m }));
          const outcome = await Promise.race([answered, closed]);
          const sent = text.slice(0, 200);
          if ('closed' in outcome) throw new Error(`${sent}: closed ${outcome.closed.code} without an answer`);
          const { answer } = outcome;
          if (answer.event === 'error') {
            if (typeof answer.message !== 'string' || answer.message === '' || answer.message === 'Internal error') {
              throw new Error(`${sent}: error ${JSON.stringify(answer)}`);
            }
            const isAuth = /"action":"auth"/.test(text) && !binary;
            if (!isAuth) {
              const end = await Promise.race([closed, new Promise((r) => setTimeout(r, 5, null))]);
              if (end) throw new Error(`${sent}: socket closed after an error`);
            }
            const after = await exported();
            if (after !== baseline) {
              baseline = after;
              throw new Error(`${sent}: refused (${answer.message}) but changed the export`);
            }
          } else {
            baseline = await exported();
          }
        }),
        { numRuns: RUNS[engine.name], seed: FUZZ_SEED, endOnFailure: true },
      );
      await socket.close();
      console.info(`[fuzz] ${engine.name}: ${cases} WebSocket messages, seed ${FUZZ_SEED}`);
      expect(details.failed ? String(details.errorInstance) : null).toBeNull();
    }, 600_000);
  });
}
