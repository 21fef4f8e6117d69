/**
 * What a webhook registration may say (§16): an absolute `http:`/`https:` URL and a non-empty list
 * of event types or `<prefix>.*` patterns; and whether an event type is one a webhook asked for.
 */
import { type ValidationIssue, validationFailed } from '../errors.js';

/** The event types of §16, as the outbox records them. */
export const WEBHOOK_EVENT_TYPES = [
  'document.written',
  'realtime.written',
  'leaderboards.stat',
  'leaderboards.reset',
  'user.created',
] as const;

/** One §16 event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The longest URL a webhook may have. */
export const MAX_WEBHOOK_URL = 2048;
/** The most event types and patterns one webhook may list. */
export const MAX_WEBHOOK_EVENTS = 32;
/** The longest description. */
export const MAX_WEBHOOK_DESCRIPTION = 500;

/** A registration as asked for (the admin body, a CLI's options, an import file's item). */
export interface WebhookInput {
  url: string;
  events: string[];
  description?: string | null;
}

/** A registration that passed the checks. */
export interface CheckedWebhook {
  url: string;
  events: string[];
  description: string | null;
}

/** The prefixes a `<prefix>.*` pattern may name: every type's leading segments (`leaderboards`, …). */
const PREFIXES = new Set(
  WEBHOOK_EVENT_TYPES.flatMap((type) => {
    const segments = type.split('.');
    return segments.slice(1).map((_, i) => segments.slice(0, i + 1).join('.'));
  }),
);

/** True when `event` is an event type of §16 or a `<prefix>.*` pattern naming at least one. */
export function isWebhookEvent(event: string): boolean {
  if ((WEBHOOK_EVENT_TYPES as readonly string[]).includes(event)) return true;
  return event.endsWith('.*') && PREFIXES.has(event.slice(0, -2));
}

/** True when a webhook listing `events` receives an event of `type` (exact type, or a `<prefix>.*` pattern). */
export function webhookMatches(events: readonly string[], type: string): boolean {
  return events.some((event) =>
    event.endsWith('.*') ? type.startsWith(event.slice(0, -1)) && type.length > event.length - 1 : event === type,
  );
}

/** Why `url` cannot be a webhook's, or null. */
function urlProblem(url: string): string | null {
  if (url.length > MAX_WEBHOOK_URL) return `must be at most ${MAX_WEBHOOK_URL} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http: or https: URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an absolute http: or https: URL';
  if (parsed.hostname === '') return 'must name a host';
  return null;
}

/**
 * The problems of a registration, each with its `loc` under `at` (`['body']` for the admin
 * route); none when it may be stored.
 */
export function webhookProblems(input: WebhookInput, at: (string | number)[] = ['body']): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const problem = (loc: (string | number)[], msg: string) =>
    issues.push({ loc: [...at, ...loc], msg, type: 'value_error' });
  const url = urlProblem(input.url);
  if (url) problem(['url'], url);
  if (input.events.length === 0) problem(['events'], 'must list at least one event type or pattern');
  if (input.events.length > MAX_WEBHOOK_EVENTS) problem(['events'], `must list at most ${MAX_WEBHOOK_EVENTS} items`);
  input.events.forEach((event, i) => {
    if (!isWebhookEvent(event)) {
      problem(
        ['events', i],
        `'${event}' is not an event type (${WEBHOOK_EVENT_TYPES.join(', ')}) or a <prefix>.* pattern`,
      );
    }
  });
  const description = input.description ?? null;
  if (description !== null && description.length > MAX_WEBHOOK_DESCRIPTION) {
    problem(['description'], `must be at most ${MAX_WEBHOOK_DESCRIPTION} characters`);
  }
  return issues;
}

/** The registration as stored; 422 in the §0 shape (`loc` under `body`) when it may not be. */
export function checkWebhook(input: WebhookInput): CheckedWebhook {
  const issues = webhookProblems(input);
  if (issues.length > 0) throw validationFailed(issues);
  return { url: input.url, events: [...input.events], description: input.description ?? null };
}
