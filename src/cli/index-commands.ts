/**
 * `cds index create | list | drop` and `cds query explain` (§15), registered on the `cds` program
 * by `main.ts`. Each prints the body its admin route answers, as JSON.
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { IndexDeclaration } from '../core/documents/index-service.js';
import { explanation } from '../core/documents/query-explain.js';
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

/** `--field level` or `--field points:desc`, repeatable, in order. */
function indexField(value: string, previous: IndexDeclaration['fields']): IndexDeclaration['fields'] {
  const match = /^(.*?)(?::(asc|desc))?$/.exec(value);
  const field = match?.[1] ?? '';
  if (field === '' || field.includes(':')) {
    throw new InvalidArgumentError('expected <field> or <field>:asc|desc (nested keys joined with __).');
  }
  const order = match?.[2] as 'asc' | 'desc' | undefined;
  return [...previous, order ? { field, order } : { field }];
}

const repeated = (value: string, previous: string[]) => [...previous, value];

function nonNegativeInteger(value: string): number {
  if (!/^[0-9]{1,9}$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer.');
  return Number(value);
}

/** The options of `query explain`: the query's parameters. */
interface ExplainOptions extends ProjectOptions {
  collection: string;
  where: string[];
  orderBy?: string;
  parentPath?: string;
  limit?: number;
  offset?: number;
}

/** Adds `index create|list|drop` and `query explain` to the program. */
export function registerIndexCommands(program: Command, withServices: ServicesRunner): void {
  const index = program.command('index').description("declare, list and drop a project's collection indexes");

  projectCommand(
    index,
    'create',
    'declare an index and build it (prints the 202 body; returns once the build has ended)',
  )
    .requiredOption('--collection <name>', 'the collection (second-to-last path segment), at any depth')
    .requiredOption('--field <field[:desc]>', 'an index field, 1 to 4 in order (repeat the option)', indexField, [])
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions & { collection: string; field: IndexDeclaration['fields'] }) => {
      const declaration = { collection: options.collection, fields: options.field };
      await inProject(
        withServices,
        options.project,
        // Printed at once; the build runs in this process, which ends when it has.
        async (s) => printBody(options, await s.indexes.create(options.project, declaration)),
        { announces: true },
      );
    });

  projectCommand(index, 'list', 'print {indexes: [{id, collection, fields, state}]} of a project')
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions) => {
      printBody(options, await inProject(withServices, options.project, (s) => s.indexes.list(options.project)));
    });

  projectCommand(index, 'drop', 'drop an index (prints {deleted}); unknown → Index not found, exit 1')
    .requiredOption('--id <index id>', 'index id', positiveInteger)
    .option('--json', ALWAYS_JSON)
    .action(async (options: ProjectOptions & { id: number }) => {
      const drop = (s: Services) => s.indexes.drop(options.project, options.id);
      printBody(options, await inProject(withServices, options.project, drop, { announces: true }));
    });

  const query = program.command('query').description('inspect document queries');
  projectCommand(
    query,
    'explain',
    'tell which index a query would use, the clauses it seeks on and the database plan, without running it',
  )
    .requiredOption('--collection <name>', 'the collection queried')
    .option('--where <clause>', 'a where clause as the query sends it (repeat the option)', repeated, [])
    .option('--order-by <field>', 'order_by, -field for descending')
    .option('--parent-path <path>', 'only direct children of this document')
    .option('--limit <n>', 'limit', nonNegativeInteger)
    .option('--offset <n>', 'offset', nonNegativeInteger)
    .option('--json', ALWAYS_JSON)
    .action(async (options: ExplainOptions) => {
      const explained = await inProject(withServices, options.project, async (s) => {
        const { options: planned, plan } = await s.documents.explain(options.project, options.collection, {
          where: options.where,
          ...(options.orderBy !== undefined ? { orderBy: options.orderBy } : {}),
          ...(options.parentPath !== undefined ? { parentPath: options.parentPath } : {}),
          ...(options.limit !== undefined ? { limit: options.limit } : {}),
          ...(options.offset !== undefined ? { offset: options.offset } : {}),
        });
        return explanation(planned, plan);
      });
      printBody(options, explained);
    });
}
