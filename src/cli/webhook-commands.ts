/**
 * `cds webhooks create | list | delete` (§16), registered on the `cds` program by `main.ts`. Each
 * prints the body its admin route answers, as JSON: `create` is the only place a secret shows.
 */
import type { Command } from 'commander';
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

/** Adds `webhooks create|list|delete` to the program. */
export function registerWebhookCommands(program: Command, withServices: ServicesRunner): void {
  const webhooks = program.command('webhooks').description("register, list and delete a project's webhooks");

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
}
