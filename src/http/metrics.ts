import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConsumerObserver } from '../core/events/consumer-runner.js';
import { FUNCTION_OUTCOMES, type FunctionObserver, type FunctionOutcome } from '../core/functions/function-observer.js';
import type { DisconnectObserver, DisconnectOutcome } from '../core/realtime/disconnect-ops.js';
import type { DeliveryStatus } from '../core/webhooks/delivery-store.js';
import type { WebhookObserver } from '../core/webhooks/webhook-delivery.js';
import type { HttpApp } from './server.js';

/** A function's runs that ended one way, in one project, since this process started. */
export interface FunctionCallCount {
  name: string;
  outcome: FunctionOutcome;
  count: number;
}

/**
 * The service's Prometheus metrics, in a registry of its own (one per app, so tests never share).
 * It is the server functions' observer (§16): `cds_function_calls_total` and
 * `cds_function_duration_seconds` are labelled by name only, as the contract names them, and one
 * module may serve every project; so each run is also tallied by project, from the same
 * observation, for the admin view of a project (`functionCalls`), which must not show one
 * organisation the calls of another.
 */
export class Metrics implements FunctionObserver, ConsumerObserver, WebhookObserver, DisconnectObserver {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'cds_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'cds_http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly openSockets = new Gauge({
    name: 'cds_websocket_connections',
    help: 'Open realtime WebSocket connections',
    registers: [this.registry],
  });
  readonly subscriptions = new Gauge({
    name: 'cds_realtime_subscriptions',
    help: 'Active realtime subscriptions',
    registers: [this.registry],
  });
  readonly queryRowsScanned = new Counter({
    name: 'cds_query_rows_scanned_total',
    help: 'Rows (index entries and the documents they lead to) read by document queries, by collection',
    labelNames: ['collection'] as const,
    registers: [this.registry],
  });
  readonly broadcastLag = new Histogram({
    name: 'cds_broadcast_lag_seconds',
    help: 'Time from a realtime commit to its delivery to subscribers of this instance',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly functionCalls = new Counter({
    name: 'cds_function_calls_total',
    help: 'Runs of server functions by name and outcome: ok, rejected, failed, timed_out',
    labelNames: ['name', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly functionDuration = new Histogram({
    name: 'cds_function_duration_seconds',
    help: 'Time server functions ran, by name, whatever the outcome (a timed-out run until its time limit)',
    labelNames: ['name'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'cds_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, pending (failed, to be retried), failed (given up)',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly eventsPending = new Gauge({
    name: 'cds_events_pending',
    help: "Events each outbox consumer has still to take, as the instance running it last saw (its project's last event less its position)",
    labelNames: ['consumer'] as const,
    registers: [this.registry],
  });
  readonly disconnectOps = new Counter({
    name: 'cds_disconnect_ops_total',
    help: 'On-disconnect writes run by this instance, by outcome: ran, dropped (denied or refused when run, or run already)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  /** project → function name → outcome → runs: the per-project tally of the same observations. */
  private readonly functionTally = new Map<number, Map<string, Map<FunctionOutcome, number>>>();

  observe(projectId: number, name: string, outcome: FunctionOutcome, seconds: number): void {
    this.functionCalls.inc({ name, outcome });
    this.functionDuration.observe({ name }, seconds);
    let names = this.functionTally.get(projectId);
    if (!names) {
      names = new Map();
      this.functionTally.set(projectId, names);
    }
    let outcomes = names.get(name);
    if (!outcomes) {
      outcomes = new Map();
      names.set(name, outcomes);
    }
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }

  attempted(status: DeliveryStatus): void {
    this.webhookDeliveries.inc({ status });
  }

  disconnectOp(outcome: DisconnectOutcome): void {
    this.disconnectOps.inc({ outcome });
  }

  pending(consumer: string, events: number | null): void {
    if (events === null) this.eventsPending.remove({ consumer });
    else this.eventsPending.set({ consumer }, events);
  }

  /** The project's function runs counted by this process, by name then outcome. */
  functionCallCounts(projectId: number): FunctionCallCount[] {
    const names = [...(this.functionTally.get(projectId) ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return names.flatMap(([name, outcomes]) =>
      FUNCTION_OUTCOMES.filter((outcome) => outcomes.has(outcome)).map((outcome) => ({
        name,
        outcome,
        count: outcomes.get(outcome) ?? 0,
      })),
    );
  }
}

/** Counts and times every request, and serves `/metrics` in Prometheus text format. */
export function metricsRoutes(app: HttpApp, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the URL, so label values stay few.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
