/**
 * The decision of simulated operations (§9 `POST …/rules/test`, `cds rules test`): each case is
 * decided as the checks of the document and realtime routes would decide it, as the named user,
 * under given rules or the project's current ones, with the stored data or a stand-in for it.
 */

import type { AccountStore, User } from '../auth/account-store.js';
import type { Clock } from '../clock.js';
import type { DocumentStore } from '../documents/document-store.js';
import { AppError, validationFailed } from '../errors.js';
import { isJsonObject, type JsonObject, type JsonValue, unstorableReason } from '../json.js';
import { type PathLimits, parseDocumentPath } from '../paths.js';
import { parseTreePath } from '../realtime/tree-path.js';
import type { TreeStore } from '../realtime/tree-store.js';
import {
  CompiledRuleset,
  type DocumentMethod,
  type RealtimeMethod,
  type RuleAuth,
  type RuleDecision,
} from './compiled-ruleset.js';
import { DocumentAccess } from './document-access.js';
import type { RulesSource } from './rules-source.js';
import { parseRuleset, type RuleArea } from './ruleset.js';

/** One simulated operation. */
export interface RuleTestCase {
  area: RuleArea;
  /** A `request.method` of the area. */
  method: string;
  path: string;
  user_id: number;
  /** What the write sends: the document's data after it, or the realtime value written at `path`. */
  data?: unknown;
  /** Stands in for the stored data or value; null means absent. Without it the stored one is read. */
  existing?: unknown;
}

/** The methods each area's cases may name. */
export const AREA_METHODS: Readonly<Record<RuleArea, readonly string[]>> = {
  documents: ['get', 'list', 'create', 'update', 'delete'],
  realtime: ['read', 'write'],
};

/** What the tester reads. */
export interface RulesTesterDeps {
  rules: Pick<RulesSource, 'compiled'>;
  accounts: Pick<AccountStore, 'findUserById'>;
  documents: Pick<DocumentStore, 'get'>;
  tree: Pick<TreeStore, 'snapshot'>;
  limits: PathLimits;
  clock: Clock;
}

/** Where and how a case is decided: its project and normalized path, under which rules, as whom, when. */
interface CaseSetting {
  projectId: number;
  compiled: CompiledRuleset;
  path: string;
  auth: RuleAuth;
  time: Date;
}

/** The §9 `request.auth` of a user. */
export function authOf(user: User): RuleAuth {
  return { uid: String(user.id), username: user.username, roles: user.roles };
}

/** Decides simulated operations; see the module comment. */
export class RulesTester {
  constructor(private readonly deps: RulesTesterDeps) {}

  /**
   * The decision of each case, in order. `rules` (when given) replaces the current ruleset and
   * is validated as a PUT's (400); a case with a method of another area, documents `data` that
   * is not an object, or an unknown user is a 422 naming it.
   */
  async decide(projectId: number, cases: readonly RuleTestCase[], rules?: unknown): Promise<RuleDecision[]> {
    const compiled =
      rules === undefined ? await this.deps.rules.compiled(projectId) : new CompiledRuleset(parseRuleset(rules));
    cases.forEach(checkCase);
    const users = await this.usersOf(projectId, cases);
    const time = new Date(this.deps.clock.now());
    const results: RuleDecision[] = [];
    for (const [index, testCase] of cases.entries()) {
      const auth = authOf(users.get(testCase.user_id) as User);
      const at: CaseSetting = { projectId, compiled, path: this.pathOf(testCase, index), auth, time };
      results.push(
        testCase.area === 'documents'
          ? await this.decideDocument(testCase, at)
          : await this.decideRealtime(testCase, at),
      );
    }
    return results;
  }

  private async decideDocument(testCase: RuleTestCase, at: CaseSetting): Promise<RuleDecision> {
    const { projectId, compiled, path, auth, time } = at;
    const method = testCase.method as DocumentMethod;
    const stored = await this.deps.documents.get(projectId, path);
    const id = stored?.id ?? (path.split('/').at(-1) as string);
    const existing =
      testCase.existing === undefined ? (stored?.data ?? null) : (testCase.existing as JsonObject | null);
    const writes = method === 'create' || method === 'update';
    const data = (testCase.data as JsonObject | undefined) ?? existing ?? {};
    const access = new DocumentAccess(compiled, auth, time);
    return access.decide(
      method,
      path,
      existing === null ? null : { id, path, data: existing },
      writes ? { id, path, data } : null,
    );
  }

  private async decideRealtime(testCase: RuleTestCase, at: CaseSetting): Promise<RuleDecision> {
    const { projectId, compiled, path, auth, time } = at;
    const method = testCase.method as RealtimeMethod;
    const check = compiled.realtimeCheck(method, path);
    const value =
      testCase.existing === undefined
        ? (await this.deps.tree.snapshot(projectId, path)).value
        : (testCase.existing as JsonValue);
    const requestResource: JsonValue =
      method === 'write' ? { value: (testCase.data as JsonValue | undefined) ?? null } : null;
    return check.decide({ auth, time, resource: { value }, requestResource });
  }

  /** The case's normalized path (§0); a bad one is a 400 naming the case. */
  private pathOf(testCase: RuleTestCase, index: number): string {
    try {
      return testCase.area === 'documents'
        ? parseDocumentPath(testCase.path, this.deps.limits).path
        : parseTreePath(testCase.path, this.deps.limits);
    } catch (error) {
      if (error instanceof AppError) throw new AppError(error.code, `cases[${index}].path: ${error.message}`);
      throw error;
    }
  }

  /** Every user the cases name, read once each; 422 naming the first case whose user does not exist. */
  private async usersOf(projectId: number, cases: readonly RuleTestCase[]): Promise<Map<number, User>> {
    const users = new Map<number, User>();
    for (const [index, testCase] of cases.entries()) {
      if (users.has(testCase.user_id)) continue;
      const user = await this.deps.accounts.findUserById(projectId, testCase.user_id);
      if (!user) throw caseProblem(index, 'user_id', `unknown user ${testCase.user_id}`);
      users.set(testCase.user_id, user);
    }
    return users;
  }
}

/** Checks what the request schema cannot: the method belongs to the area, document data is an object. */
function checkCase(testCase: RuleTestCase, index: number): void {
  const methods = AREA_METHODS[testCase.area];
  if (!methods.includes(testCase.method)) {
    throw caseProblem(index, 'method', `must be one of ${methods.join(', ')} for ${testCase.area}`);
  }
  for (const field of ['data', 'existing'] as const) {
    const value = testCase[field];
    const problem = value === undefined ? null : unstorableReason(value as JsonValue);
    if (problem) throw caseProblem(index, field, problem);
  }
  if (testCase.area !== 'documents') return;
  for (const field of ['data', 'existing'] as const) {
    const value = testCase[field];
    if (value === undefined || isJsonObject(value) || (field === 'existing' && value === null)) continue;
    throw caseProblem(index, field, field === 'data' ? 'must be an object' : 'must be an object or null');
  }
}

function caseProblem(index: number, field: string, msg: string): AppError {
  return validationFailed([{ loc: ['body', 'cases', index, field], msg, type: 'value_error' }]);
}
