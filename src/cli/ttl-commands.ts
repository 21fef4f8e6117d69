/**
 * `cds ttl set | get | clear` (§17), registered on the `cds` program by `program.ts`. Each prints
 * the body its admin route answers, as JSON.
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

interface TtlOptions extends ProjectOptions {
  collection: string;
}

const COLLECTION = 'the collection (second-to-last path segment), at any depth';

/** Adds `ttl set|get|clear` to the program. */
export function registerTtlCommands(program: Command, withServices: ServicesRunner): void {
  const ttl = program.command('ttl').description("set, show and clear a collection's expiring documents field");

  projectCommand(
    ttl,
    'set',
    "set a collection's TTL field (prints {collection, field}; returns once its index is built)",
  )
    .requiredOption('--collection <name>', COLLECTION)
    .requiredOption(
      '--field <field>',
      "the data field holding each document's expiry time (nested keys joined with __)",
    )
    .option('--json', ALWAYS_JSON)
    .action(async (options: TtlOptions & { field: string }) => {
      const set = (s: Services) => s.ttl.set(options.project, options.collection, options.field);
      printBody(options, await inProject(withServices, options.project, set, { announces: true }));
    });

  projectCommand(ttl, 'get', "print a collection's TTL setting {collection, field}; none → TTL not set, exit 1")
    .requiredOption('--collection <name>', COLLECTION)
    .option('--json', ALWAYS_JSON)
    .action(async (options: TtlOptions) => {
      const get = (s: Services) => s.ttl.get(options.project, options.collection);
      printBody(options, await inProject(withServices, options.project, get));
    });

  projectCommand(ttl, 'clear', "clear a collection's TTL setting (prints {deleted}); none → TTL not set, exit 1")
    .requiredOption('--collection <name>', COLLECTION)
    .option('--json', ALWAYS_JSON)
    .action(async (options: TtlOptions) => {
      const clear = (s: Services) => s.ttl.clear(options.project, options.collection);
      printBody(options, await inProject(withServices, options.project, clear, { announces: true }));
    });
}
