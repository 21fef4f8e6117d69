/**
 * What document listeners (§10) need from the domain: the result of a listener read with the
 * version it reflects, under the listening user's rules (§9), the change log for `since`, the
 * current version, and the rules a user is held to now.
 */
import type { Clock } from '../clock.js';
import { parseDocumentJson } from '../documents/document-service.js';
import type {
  DocumentHistory,
  DocumentRecord,
  DocumentStore,
  QueryDocumentsOptions,
} from '../documents/document-store.js';
import type { JsonValue } from '../json.js';
import type { CompiledRuleset, RuleAuth } from '../rules/compiled-ruleset.js';
import { planList } from '../rules/list-plan.js';
import type { RuleAuthLookup } from '../rules/rule-auth.js';
import type { RulesSource } from '../rules/rules-source.js';
import { matchesNothing } from '../where.js';
import type { ListenTarget } from './listen-request.js';
import type { Visibility } from './listener-view.js';

/** The rules one listening user is held to at one moment (§9). */
export interface ListenerAccess {
  /** True under the open ruleset: everything is visible. */
  readonly open: boolean;
  /** What grants decided now rest on: the same ruleset object and `request.auth` decide the same. */
  readonly basis: string;
  readonly ruleset: CompiledRuleset;
  /** The user's `request.auth`; null under the open ruleset. */
  readonly auth: RuleAuth | null;
  /** Whether the user may `list` the document (query listeners filter with it). */
  readonly visible: Visibility;
  /** Whether the user may `get` the document at `path` (null: absent): a doc listener needs it. */
  mayGet(path: string, document: DocumentRecord | null): boolean;
}

/** A listener's result at `version`, in query order. */
export interface ListenerRead {
  version: number;
  documents: DocumentRecord[];
}

const asResource = (document: DocumentRecord | null): JsonValue =>
  document ? { id: document.id, path: document.path, data: document.data } : null;

const OPEN_ACCESS = (ruleset: CompiledRuleset): ListenerAccess => ({
  open: true,
  basis: 'open',
  ruleset,
  auth: null,
  visible: () => true,
  mayGet: () => true,
});

export class DocumentListenerService {
  constructor(
    private readonly store: Pick<
      DocumentStore,
      'querySnapshot' | 'documentSnapshot' | 'changesSince' | 'currentVersion'
    >,
    private readonly rules: RulesSource,
    private readonly auth: Pick<RuleAuthLookup, 'of'>,
    private readonly clock: Clock,
  ) {}

  /** The rules `userId` is held to now; none for a trusted caller (no user: an admin, §13). */
  async access(projectId: number, userId: number | undefined): Promise<ListenerAccess> {
    const ruleset = this.rules.fresh?.(projectId) ?? (await this.rules.compiled(projectId));
    if (ruleset.open || userId === undefined) return OPEN_ACCESS(ruleset);
    const auth = await this.auth.of(projectId, userId);
    const time = new Date(this.clock.now());
    const facts = (document: DocumentRecord | null) => ({
      auth,
      time,
      resource: asResource(document),
      requestResource: null,
    });
    return {
      open: false,
      basis: JSON.stringify(auth),
      ruleset,
      auth,
      visible: (document) => ruleset.documentCheck('list', document.path).decide(facts(document)).allowed,
      mayGet: (path, document) => ruleset.documentCheck('get', path).decide(facts(document)).allowed,
    };
  }

  /** Calls `listener` with the project id whenever a project's ruleset changes. */
  onRulesChange(listener: (projectId: number) => void): () => void {
    return this.rules.onChange(listener);
  }

  /** The listener's result and its version, read in one transaction and filtered by the rules. */
  async read(projectId: number, target: ListenTarget, access: ListenerAccess): Promise<ListenerRead> {
    if (target.kind === 'document') {
      const { version, document } = await this.store.documentSnapshot(projectId, target.path);
      return { version, documents: document ? [document] : [] };
    }
    const options: QueryDocumentsOptions = { collection: target.collection, where: target.where };
    if (target.parent !== undefined) options.parent = target.parent;
    if (target.orderBy) options.orderBy = target.orderBy;
    let filterEach = false;
    if (access.auth) {
      const auth = access.auth;
      const plan = planList(access.ruleset, target.parent ?? null, target.collection, {
        auth,
        time: new Date(this.clock.now()),
      });
      if (plan.kind === 'none') return { version: await this.store.currentVersion(projectId), documents: [] };
      if (plan.kind === 'where') options.where = [...options.where, ...plan.clauses];
      filterEach = plan.kind === 'each';
    }
    if (options.where.some(matchesNothing))
      return { version: await this.store.currentVersion(projectId), documents: [] };
    // Checked document by document, the limit counts allowed documents only: read them all, then cut.
    if (target.limit !== undefined && !filterEach) options.limit = target.limit;
    const snapshot = await this.store.querySnapshot(projectId, options);
    let documents = snapshot.documents.map(parseDocumentJson);
    if (filterEach) documents = documents.filter(access.visible);
    if (target.limit !== undefined) documents = documents.slice(0, target.limit);
    return { version: snapshot.version, documents };
  }

  /** The commits after `since`, or null when the log no longer covers them. */
  changesSince(projectId: number, since: number): Promise<DocumentHistory | null> {
    return this.store.changesSince(projectId, since);
  }

  currentVersion(projectId: number): Promise<number> {
    return this.store.currentVersion(projectId);
  }
}
