import { randomUUID } from 'node:crypto';
/**
 * The domain's services wired over one storage engine and one bus (part of the composition root
 * with `app.ts`, which opens the concrete engine and bus and builds the HTTP app around these).
 */
import { InProcessBus } from './bus/in-process-bus.js';
import type { Config } from './config.js';
import { AdminService } from './core/admin/admin-service.js';
import { ProjectAdminService } from './core/admin/project-admin-service.js';
import { ServerKeyService } from './core/admin/server-keys.js';
import { AccountService } from './core/auth/account-service.js';
import { AuthService } from './core/auth/auth-service.js';
import type { Bus } from './core/bus.js';
import { type Clock, systemClock } from './core/clock.js';
import { DocumentCommits } from './core/documents/document-commits.js';
import { DocumentService } from './core/documents/document-service.js';
import { IndexService } from './core/documents/index-service.js';
import { QueryStats, type QueryStatsSink } from './core/documents/query-stats.js';
import { RuledDocumentService } from './core/documents/ruled-document-service.js';
import { TtlService } from './core/documents/ttl-service.js';
import { TtlSweeper } from './core/documents/ttl-sweeper.js';
import { AfterHandlers } from './core/events/after-handlers.js';
import { type ConsumerObserver, ConsumerRunner } from './core/events/consumer-runner.js';
import { recordingWhere } from './core/events/event-recording.js';
import { type AdminApi, adminApi } from './core/functions/admin-api.js';
import { BeforeHookRunner, type ChildLogger, silentLogger, type WriteHooks } from './core/functions/before-hooks.js';
import { FunctionCalls } from './core/functions/function-calls.js';
import type { FunctionObserver } from './core/functions/function-observer.js';
import { FunctionRegistry } from './core/functions/function-registry.js';
import { ScheduleRunner } from './core/functions/schedule-runner.js';
import { createLeaderboards } from './core/leaderboards/create-leaderboards.js';
import type { LeaderboardService } from './core/leaderboards/leaderboard-service.js';
import { DocumentListenerService } from './core/listeners/document-listener-service.js';
import type { Storage } from './core/ports.js';
import { type DisconnectLog, type DisconnectObserver, DisconnectOps } from './core/realtime/disconnect-ops.js';
import { TreeRules } from './core/realtime/tree-rules.js';
import { TreeService } from './core/realtime/tree-service.js';
import { DocumentAccessSource } from './core/rules/document-access.js';
import { RuleAuthLookup } from './core/rules/rule-auth.js';
import { RulesService } from './core/rules/rules-service.js';
import type { RulesSource } from './core/rules/rules-source.js';
import { RulesTester } from './core/rules/rules-tester.js';
import { TransferService } from './core/transfer/transfer-service.js';
import {
  WebhookDeliveries,
  type WebhookDeliveryOptions,
  type WebhookObserver,
} from './core/webhooks/webhook-delivery.js';
import { WebhookService } from './core/webhooks/webhook-service.js';
import { loadJwtSecret } from './jwt-secret.js';

/** The services of the domain, wired to one storage engine. */
export interface Services {
  storage: Storage;
  accounts: AccountService;
  auth: AuthService;
  documents: DocumentService;
  /** The document store as players see it: `documents` behind the access rules (§9). */
  clientDocuments: RuledDocumentService;
  /** Broadcasts between instances (in-process until Redis is configured). */
  bus: Bus;
  tree: TreeService;
  leaderboards: LeaderboardService;
  /** `cds export` / `cds import` (§8). */
  transfer: TransferService;
  /** Admins: creation, login, and the checks of admin routes (§6). */
  admins: AdminService;
  /** Project administration behind the admin API (§6). */
  projectAdmin: ProjectAdminService;
  /** Server keys of game servers (§9). */
  serverKeys: ServerKeyService;
  /** Each project's access rules (§9): management, and the compiled rulesets the checks read. */
  rules: RulesService;
  /** Decides simulated operations under a project's rules (§9 `…/rules/test`, `cds rules test`). */
  rulesTester: RulesTester;
  /** Declared document indexes (§15). */
  indexes: IndexService;
  /** Collections whose documents expire (§17). */
  ttl: TtlService;
  /** Deletes expired documents (§17), in the background once started. */
  ttlSweeper: TtlSweeper;
  /** Document listeners' reads, log and rules (§10). */
  listeners: DocumentListenerService;
  /** The server functions' RPCs (§16). */
  functions: FunctionCalls;
  /** Webhook registrations (§16). */
  webhooks: WebhookService;
  /** The outbox's consumers (§16: after handlers, webhooks), run in the background once started. */
  consumers: ConsumerRunner;
  /** The server functions' schedules (§16), run in the background once started. */
  schedules: ScheduleRunner;
  /** On-disconnect writes of this instance's sockets (§17), under its lease once started. */
  disconnectOps: DisconnectOps;
}

/** Where background failures (bus outages, lost broadcasts) are reported; `error` null for good news. */
export type BackgroundLog = (error: unknown, message: string) => void;

/** What `createServices` may be given besides the configuration and storage. */
export interface ServiceOptions {
  clock?: Clock;
  /** Default: the in-process bus. */
  bus?: Bus;
  log?: BackgroundLog;
  /** Where the checks read access rules (§9) from; default: the stored rulesets (`RulesService`). */
  rules?: RulesSource;
  /** Where queries report the rows they read (§15); default: nowhere. */
  queryStats?: QueryStatsSink;
  /** The server functions loaded at start (§16); default: none. */
  functions?: FunctionRegistry;
  /** Where after handlers and schedules log (§16); default: nowhere. */
  logger?: ChildLogger;
  /** Where server functions report each run (§16 metrics); default: nowhere. */
  functionObserver?: FunctionObserver;
  /** Where the outbox's consumers report the events they have still to take (§16 metrics). */
  consumerObserver?: ConsumerObserver & WebhookObserver;
  /** Webhook delivery's retry times and time limit; default the contract's (tests shorten them). */
  webhookDelivery?: WebhookDeliveryOptions;
  /** Where on-disconnect writes (§17) log drops and failures, and report each run; default nowhere. */
  disconnect?: { log: DisconnectLog; observer?: DisconnectObserver };
}

/** Wires the services over `storage`. */
export function createServices(config: Config, storage: Storage, options: ServiceOptions = {}): Services {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => undefined);
  const jwtSecret = loadJwtSecret(config);
  const registry = options.functions ?? FunctionRegistry.empty;
  // Hooks reach the admin API, built from the services below: it is asked for only when a hook runs.
  let adminOf: (projectId: number) => AdminApi = () => {
    throw new Error('the admin API is not built yet');
  };
  const hooks: WriteHooks = new BeforeHookRunner({
    registry,
    admin: (projectId) => adminOf(projectId),
    clock,
    timeoutMs: config.functions.hookTimeoutMs,
    rolesOf: (projectId, userId): Promise<string[]> => auth.rolesOf(projectId, userId),
    ...(options.functionObserver ? { observer: options.functionObserver } : {}),
  });
  // A project records its commits' events (§16) when an after handler serves it.
  const recording = recordingWhere((projectId) => registry.after(projectId).length > 0);
  const auth = new AuthService({
    hooks,
    recording,
    accounts: storage.accounts,
    jwtSecret,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
  });
  const bus = options.bus ?? new InProcessBus();
  const accounts = new AccountService(storage.accounts, auth);
  const serverKeys = new ServerKeyService(storage.serverKeys);
  const leaderboards = createLeaderboards({
    store: storage.leaderboards,
    profiles: storage.accounts,
    clock,
    leaseMs: config.leaderboards.resetLeaseMs,
    admin: storage.leaderboardAdmin,
    hooks,
    recording,
    // Only other instances need telling: with the in-process bus this process is the only one.
    ...(bus instanceof InProcessBus
      ? {}
      : { peers: bus, onSyncError: (error: unknown) => log(error, 'leaderboard sync with other instances failed') }),
  });
  const rules = new RulesService({
    store: storage.rules,
    clock,
    bus,
    onError: (error) => log(error, 'announcing or reloading a ruleset failed; instances revalidate within 5 s'),
  });
  const ruleSource = options.rules ?? rules;
  const ruleAuth = new RuleAuthLookup(storage.accounts);
  const documentAccess = new DocumentAccessSource(ruleSource, ruleAuth, clock);
  const tree = new TreeService(storage.tree, bus, {
    pathLimits: config.pathLimits,
    retention: { maxWrites: config.realtime.logMaxWrites, maxAgeMs: config.realtime.logMaxAgeSeconds * 1000 },
    onPublishError: publishFailures(log),
    rules: new TreeRules({ source: ruleSource, auth: ruleAuth, clock }),
    readCacheBytes: config.realtime.readCacheBytes,
    hooks,
    events: recording,
  });
  const indexes = new IndexService({
    store: storage.indexes,
    bus,
    clock,
    onError: (error, message) => log(error, message),
  });
  const ttl = new TtlService({ store: storage.ttl, indexes, bus, clock, onError: log });
  // Every commit of documents reaches this instance's listeners at once and the others' over the bus (§10).
  const documentCommits = new DocumentCommits(
    storage.documents,
    bus instanceof InProcessBus ? null : bus,
    { maxWrites: config.realtime.logMaxWrites, maxAgeMs: config.realtime.logMaxAgeSeconds * 1000 },
    publishFailures(log),
    recording,
  );
  const documents = new DocumentService(
    storage.documents,
    documentCommits,
    config.pathLimits,
    {
      indexes,
      ttl,
      ...(options.queryStats ? { stats: new QueryStats(options.queryStats, clock) } : {}),
    },
    clock,
    hooks,
  );
  const projectAdmin = new ProjectAdminService({
    admins: storage.admins,
    accounts: storage.accounts,
    accountService: accounts,
    auth,
    submit: (projectId, slug, userId, value) => leaderboards.submit(projectId, slug, userId, value, 'server'),
  });
  adminOf = (projectId) => adminApi({ documents, tree, leaderboards, users: projectAdmin }, projectId);
  const eventLog = options.logger ?? silentLogger;
  const afterHandlers = new AfterHandlers({
    registry,
    admin: adminOf,
    clock,
    log: eventLog,
    timeoutMs: config.functions.timeoutMs,
  });
  const webhookDeliveries = new WebhookDeliveries({
    webhooks: storage.webhooks,
    deliveries: storage.webhookDeliveries,
    clock,
    log: eventLog,
    ...(options.webhookDelivery ? { options: options.webhookDelivery } : {}),
    ...(options.consumerObserver ? { observer: options.consumerObserver } : {}),
  });
  const consumers = new ConsumerRunner({
    events: storage.events,
    sources: [afterHandlers, webhookDeliveries],
    clock,
    log: eventLog,
    owner: `cds-${randomUUID()}`,
    retentionMs: config.functions.eventRetentionHours * 3_600_000,
    leaseMs: config.functions.eventLeaseMs,
    ...(options.consumerObserver ? { observer: options.consumerObserver } : {}),
  });
  // The commits of this instance are handed on at once; others' are found by the consumers' poll.
  documentCommits.onLocalCommits((projectId) => consumers.nudge(projectId));
  tree.onLocalCommits((projectId) => consumers.nudge(projectId));
  const functions = new FunctionCalls({
    registry,
    admin: adminOf,
    clock,
    timeoutMs: config.functions.timeoutMs,
    ...(options.functionObserver ? { observer: options.functionObserver } : {}),
  });
  const disconnectOps = new DisconnectOps({
    store: storage.disconnectOps,
    tree,
    clock,
    pathLimits: config.pathLimits,
    leaseMs: config.realtime.instanceLeaseMs,
    log: options.disconnect?.log ?? { debug: () => undefined, warn: (details, message) => log(details.err, message) },
    hookLog: eventLog,
    ...(options.disconnect?.observer ? { observer: options.disconnect.observer } : {}),
  });
  return {
    disconnectOps,
    storage,
    auth,
    accounts,
    documents,
    clientDocuments: new RuledDocumentService(documents, documents, documentAccess, config.pathLimits),
    bus,
    tree,
    leaderboards,
    transfer: new TransferService({
      store: storage.transfer,
      accounts: storage.accounts,
      tree,
      documents: documentCommits,
      leaderboards,
      rules,
      indexes,
      ttl,
      limits: config.pathLimits,
      clock,
      recording,
    }),
    admins: new AdminService({
      admins: storage.admins,
      projects: storage.accounts,
      serverKeys,
      jwtSecret,
      tokenTtlSeconds: config.adminTokenTtlSeconds,
    }),
    projectAdmin,
    serverKeys,
    rules,
    rulesTester: new RulesTester({
      rules,
      accounts: storage.accounts,
      documents: storage.documents,
      tree: storage.tree,
      limits: config.pathLimits,
      clock,
    }),
    indexes,
    ttl,
    ttlSweeper: new TtlSweeper({
      ttl: storage.ttl,
      documents: storage.documents,
      indexes,
      commits: documentCommits,
      clock,
      owner: `cds-${randomUUID()}`,
      log,
    }),
    listeners: new DocumentListenerService(storage.documents, documentAccess, documentCommits, ttl),
    functions,
    consumers,
    schedules: new ScheduleRunner({
      registry,
      store: storage.schedules,
      admin: adminOf,
      clock,
      log: eventLog,
      timeoutMs: config.functions.timeoutMs,
      ...(options.functionObserver ? { observer: options.functionObserver } : {}),
    }),
    webhooks: new WebhookService(storage.webhooks, clock, {
      deliveries: storage.webhookDeliveries,
      events: storage.events,
      notices: {
        changed: () => consumers.poll(),
        redeliveryAsked: (webhookId) => {
          webhookDeliveries.redeliveryAsked(webhookId);
          consumers.poll();
        },
      },
    }),
  };
}

/** Reports failed publishes at most every 10 s (during a Redis outage every write's publish fails). */
function publishFailures(log: BackgroundLog): (error: unknown) => void {
  let last = 0;
  return (error) => {
    const now = Date.now();
    if (now - last < 10_000) return;
    last = now;
    log(error, 'publishing a commit failed; subscribers catch up from the change log');
  };
}
