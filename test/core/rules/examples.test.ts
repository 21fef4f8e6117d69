/** The README's example rulesets (examples/rules) decide their cases files as each case expects. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompiledRuleset, type DocumentMethod, type RealtimeMethod } from '../../../src/core/rules/compiled-ruleset.js';
import { parseRuleset } from '../../../src/core/rules/ruleset.js';

interface Case {
  area: 'documents' | 'realtime';
  method: string;
  path: string;
  user_id: number;
  data?: unknown;
  existing?: unknown;
  expect: 'allow' | 'deny';
}

const DIR = join(import.meta.dirname, '../../../examples/rules');
const read = (file: string): unknown => JSON.parse(readFileSync(join(DIR, file), 'utf8'));

describe('example rulesets', () => {
  const rulesets = readdirSync(DIR).filter((file) => file.endsWith('.json') && !file.endsWith('.cases.json'));
  it('are three', () => expect(rulesets).toHaveLength(3));

  for (const file of rulesets) {
    it(`${file} decides its cases as expected`, () => {
      const rules = new CompiledRuleset(parseRuleset(read(file)));
      const raw = read(file.replace('.json', '.cases.json'));
      const cases = (Array.isArray(raw) ? raw : (raw as { cases: Case[] }).cases) as Case[];
      const decided = cases.map((c) => {
        const auth = { uid: String(c.user_id), username: `user${c.user_id}`, roles: ['player'] };
        const time = new Date();
        const existing = c.existing === undefined ? null : c.existing;
        if (c.area === 'realtime') {
          const check = rules.realtimeCheck(c.method as RealtimeMethod, c.path);
          const requestResource = (c.method === 'write' ? { value: c.data ?? null } : null) as null;
          return check.decide({ auth, time, resource: { value: existing as null }, requestResource }).allowed;
        }
        const id = c.path.split('/').at(-1);
        const doc = (data: unknown) => (data === null ? null : { id, path: c.path, data });
        const writes = c.method === 'create' || c.method === 'update';
        return rules.documentCheck(c.method as DocumentMethod, c.path).decide({
          auth,
          time,
          resource: doc(existing) as null,
          requestResource: (writes ? doc(c.data ?? {}) : null) as null,
        }).allowed;
      });
      expect(decided.map((allowed) => (allowed ? 'allow' : 'deny'))).toEqual(cases.map((c) => c.expect));
    });
  }
});
