/** `cds rules get | set | test` (§9 Management), registered on the `cds` program by `main.ts`. */
import type { Command } from 'commander';
import { AppError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import type { RuleDecision } from '../core/rules/compiled-ruleset.js';
import type { RuleTestCase } from '../core/rules/rules-tester.js';
import type { Services } from '../services.js';
import {
  ALWAYS_JSON,
  inProject,
  JSON_OUTPUT,
  type ProjectOptions,
  print,
  printBody,
  projectCommand,
  type ServicesRunner,
} from './commands.js';
import { readJson } from './transfer-commands.js';

/** A case of a cases file: a test route case that may say what it expects. */
interface ExpectingCase extends RuleTestCase {
  expect?: 'allow' | 'deny';
}

/** The ruleset of a rules file: a bare ruleset, or `{rules, ...}` as `rules get` prints it. */
function rulesOf(input: unknown): unknown {
  return isJsonObject(input) && 'rules' in input ? input.rules : input;
}

/** The cases of a cases file (`{cases: [...]}` or a bare array), their shape checked; throws naming the first bad one. */
export function casesOf(input: unknown): ExpectingCase[] {
  const list = isJsonObject(input) ? input.cases : input;
  if (!Array.isArray(list)) throw new AppError('bad_request', 'cases file: expected {"cases": [...]} or an array');
  return list.map((item: unknown, index) => {
    const at = `cases[${index}]`;
    if (!isJsonObject(item)) throw new AppError('bad_request', `${at}: must be an object`);
    const problem = caseShapeProblem(item);
    if (problem) throw new AppError('bad_request', `${at}.${problem}`);
    return item as unknown as ExpectingCase;
  });
}

/** What is wrong with the shape of a case (`field: problem`), or null. */
function caseShapeProblem(item: Record<string, unknown>): string | null {
  const { area, method, path, user_id: userId, expect } = item;
  if (area !== 'documents' && area !== 'realtime') return 'area: must be documents or realtime';
  if (typeof method !== 'string') return 'method: must be a string';
  if (typeof path !== 'string') return 'path: must be a string';
  if (typeof userId !== 'number' || !Number.isSafeInteger(userId) || userId < 1) {
    return 'user_id: must be a positive integer';
  }
  if (expect !== undefined && expect !== 'allow' && expect !== 'deny') return 'expect: must be allow or deny';
  return null;
}

/** A 422 of the tester (it names `['body', 'cases', i, field]`) as `cases[i].field: msg`. */
function namedCaseError(error: unknown): unknown {
  if (!(error instanceof AppError) || !error.issues) return error;
  const [issue] = error.issues;
  if (!issue) return error;
  const [, , index, field] = issue.loc;
  return new AppError('bad_request', `cases[${String(index)}].${String(field)}: ${issue.msg}`);
}

/** The lines naming each case whose decision differs from its `expect`. */
export function differences(cases: readonly ExpectingCase[], results: readonly RuleDecision[]): string[] {
  return cases.flatMap((testCase, i) => {
    const got = results[i]?.allowed ? 'allow' : 'deny';
    return testCase.expect && testCase.expect !== got
      ? [`cases[${i}] (${testCase.path}): expected ${testCase.expect}, got ${got}`]
      : [];
  });
}

/** Adds `rules get`, `rules set` and `rules test` to the program. */
export function registerRulesCommands(program: Command, withServices: ServicesRunner): void {
  const rules = program.command('rules').description("read, set and test a project's access rules");

  projectCommand(
    rules,
    'get',
    'print {rules, revision, updated_at} of a project (revision 0: never set, the open ruleset)',
  )
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions) => {
      printBody(options, await inProject(withServices, options.project, (s) => s.rules.get(options.project)));
    });

  projectCommand(
    rules,
    'set',
    'set the ruleset from a file (a bare ruleset or {rules}), as the next revision; running servers are told',
  )
    .argument('<file>', 'JSON file (or - for stdin)')
    .option('--json', JSON_OUTPUT)
    .action(async (file: string, options: ProjectOptions) => {
      const input = rulesOf(await readJson(file, 'Invalid rules'));
      const put = (s: Services) => s.rules.put(options.project, input);
      const saved = await inProject(withServices, options.project, put, { announces: true });
      print(options, saved, `Set the access rules of project ${options.project}: revision ${saved.revision}.`);
    });

  projectCommand(rules, 'test', 'decide each case of a cases file; exit 1 naming each case whose "expect" differs')
    .argument('<cases-file>', 'JSON: {"cases": [{area, method, path, user_id, data?, existing?, expect?}]} or an array')
    .option('--rules <file>', 'decide under these rules instead of the current ones')
    .option('--json', JSON_OUTPUT)
    .action(async (file: string, options: ProjectOptions & { rules?: string }) => {
      const cases = casesOf(await readJson(file, 'Invalid cases'));
      const given = options.rules === undefined ? undefined : rulesOf(await readJson(options.rules, 'Invalid rules'));
      const results = await inProject(withServices, options.project, (s) =>
        s.rulesTester.decide(options.project, cases, given).catch((error: unknown) => {
          throw namedCaseError(error);
        }),
      );
      const lines = results.map(
        (result, i) => `cases[${i}] (${cases[i]?.path}): ${result.allowed ? `allow (rule ${result.rule})` : 'deny'}`,
      );
      print(options, { results }, lines.join('\n'));
      const differing = differences(cases, results);
      if (differing.length > 0) {
        process.stderr.write(`${differing.join('\n')}\n`);
        process.exitCode = 1;
      }
    });
}
