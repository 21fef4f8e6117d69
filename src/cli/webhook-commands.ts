/**
 * `cds webhooks create | list | delete | deliveries | retry` (§16), registered on the `cds` program by `main.ts`. Each
 * prints the body its admin route answers, as JSON: `create` is the only place a secret shows.
 */
import { type Command, Option } from 'commander';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../core/webhooks/delivery-store.js';
import type { Services } from '../services.js';
import {
  ALWAYS_JSON,
  inProject,
  type ProjectOptions,
  printBody,
  projectCommand,
  type ServicesRunner,
} from './commands.js';
import { positiveInteger } from './positive-integer.js';

/** `--events a,b`, repeatable: every item, in order. */
function eventList(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ];
}

interface CreateOptions extends ProjectOptions {
  url: string;
  events: string[];
  description?: string;
}

/** Adds `webhooks create|list|delete|deliveries|retry` to the program. */
export function registerWebhookCommands(program: Command, withServices: ServicesRunner): void {
  const webhooks = program
    .command('webhooks')
    .description("register, list and delete a project's webhooks; their deliveries, and retry one");

  projectCommand(
    webhooks,
    'create',
    'register a webhook; prints {id, url, events, description, created_at, secret} (the secret only here)',
  )
    .requiredOption('--url <url>', 'an absolute http: or https: URL events are POSTed to')
    .requiredOption(
      '--events <types>',
      'comma-separated event types or <prefix>.* patterns, e.g. document.written,leaderboards.* (repeatable)',
      eventList,
      [],
    )
    .option('--description <text>', 'free text for people')
    .option('--json', ALWAYS_JSON)
    .action(async (options: CreateOptions) => {
      const input = { url: options.url, events: options.events, description: options.description ?? null };
      const create = (s: Services) => s.webhooks.create(options.project, input);
      printBody(options, await inProject(withServices, options.project, create));
    });

  projectCommand(webhooks, 'list', 'print {webhooks: [{id, url, events, description, created_at}]}, no secrets')
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions) => {
      printBody(options, await inProject(withServices, options.project, (s) => s.webhooks.list(options.project)));
    });

  projectCommand(webhooks, 'delete', 'delete a webhook (prints {deleted}); unknown → Webhook not found, exit 1')
    .requiredOption('--id <webhook id>', 'webhook id', positiveInteger)
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions & { id: number }) => {
      const remove = (s: Services) => s.webhooks.delete(options.project, options.id);
      printBody(options, await inProject(withServices, options.project, remove));
    });

  projectCommand(webhooks, 'deliveries', "print {deliveries: [...]}: a webhook's last deliveries, latest event first")
    .requiredOption('--id <webhook id>', 'webhook id', positiveInteger)
    .addOption(new Option('--status <status>', 'only the deliveries of this status').choices(DELIVERY_STATUSES))
    .option('--limit <n>', 'at most this many (default 50, at most 200)', positiveInteger)
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions & { id: number; status?: DeliveryStatus; limit?: number }) => {
      const limit = Math.min(options.limit ?? 50, 200);
      const list = (s: Services) => s.webhooks.deliveries(options.project, options.id, options.status ?? null, limit);
      printBody(options, await inProject(withServices, options.project, list));
    });

  projectCommand(
    webhooks,
    'retry',
    'send a failed delivery again (a pending one: now); prints the delivery; a delivered one → exit 1',
  )
    .requiredOption('--id <webhook id>', 'webhook id', positiveInteger)
    .requiredOption('--event <event id>', 'the event id (the webhook-id header it was sent with)')
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions & { id: number; event: string }) => {
      const retry = (s: Services) => s.webhooks.retry(options.project, options.id, options.event);
      printBody(options, await inProject(withServices, options.project, retry));
    });
}
