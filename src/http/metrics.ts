import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HttpApp } from './server.js';

/** The service's Prometheus metrics, in a registry of its own (one per app, so tests never share). */
export class Metrics {
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
