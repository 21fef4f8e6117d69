/**
 * `cds index create | list | drop` and `cds query explain` (§15), registered on the `cds` program
 * by `main.ts`. Each prints the body its admin route answers, as JSON.
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { IndexDeclaration } from '../core/documents/index-service.js';
import { explanation } from '../core/documents/query-explain.js';
import { notFound } from '../core/errors.js';
import type { Services } from '../services.js';
import { positiveInteger } from './positive-integer.js';
import type { ServicesRunner } from './transfer-commands.js';

interface ProjectOptions {
  project: number;
  json?: boolean;
}

async function requireProject(services: Services, id: number): Promise<void> {
  if (!(await services.storage.accounts.getProject(id))) throw notFound('Project not found');
}

/** Prints a route's body: indented, or on one line with `--json`. */
function printBody(options: { json?: boolean }, body: object): void {
  process.stdout.write(`${JSON.stringify(body, null, options.json ? undefined : 2)}\n`);
}

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

/** Adds `index create|list|drop` and `query explain` to the program. */
export function registerIndexCommands(program: Command, withServices: ServicesRunner): void {
  const index = program.command('index').description("declare, list and drop a project's collection indexes");

  index
    .command('create')
    .description('declare an index and build it (prints the 202 body; returns once the build has ended)')
    .requiredOption('--project <id>', 'project id', positiveInteger)
    .requiredOption('--collection <name>', 'the collection (second-to-last path segment), at any depth')
    .requiredOption('--field <field[:desc]>', 'an index field, 1 to 4 in order (repeat the option)', indexField, [])
    .option('--json', 'machine-readable output (always JSON)')
    .action(async (options: ProjectOptions & { collection: string; field: IndexDeclaration['fields'] }) => {
      await withServices(
        async (s) => {
          await requireProject(s, options.project);
          const created = await s.indexes.create(options.project, {
            collection: options.collection,
            fields: options.field,
          });
          // Printed at once; the build runs in this process, which ends when it has.
          printBody(options, created);
        },
        { announces: true },
      );
    });

  index
    .command('list')
    .description('print {indexes: [{id, collection, fields, state}]} of a project')
    .requiredOption('--project <id>', 'project id', positiveInteger)
    .option('--json', 'machine-readable output (always JSON)')
    .action(async (options: ProjectOptions) => {
      const listed = await withServices(async (s) => {
        await requireProject(s, options.project);
        return s.indexes.list(options.project);
      });
      printBody(options, listed);
    });

  index
    .command('drop')
    .description('drop an index (prints {deleted}); unknown → Index not found, exit 1')
    .requiredOption('--project <id>', 'project id', positiveInteger)
    .requiredOption('--id <index id>', 'index id', positiveInteger)
    .option('--json', 'machine-readable output (always JSON)')
    .action(async (options: ProjectOptions & { id: number }) => {
      const dropped = await withServices(
        async (s) => {
          await requireProject(s, options.project);
          return s.indexes.drop(options.project, options.id);
        },
        { announces: true },
      );
      printBody(options, dropped);
    });

  program
    .command('query')
    .description('inspect document queries')
    .command('explain')
    .description(
      'tell which index a query would use, the clauses it seeks on and the database plan, without running it',
    )
    .requiredOption('--project <id>', 'project id', positiveInteger)
    .requiredOption('--collection <name>', 'the collection queried')
    .option('--where <clause>', 'a where clause as the query sends it (repeat the option)', repeated, [])
    .option('--order-by <field>', 'order_by, -field for descending')
    .option('--parent-path <path>', 'only direct children of this document')
    .option('--limit <n>', 'limit', nonNegativeInteger)
    .option('--offset <n>', 'offset', nonNegativeInteger)
    .option('--json', 'machine-readable output (always JSON)')
    .action(
      async (
        options: ProjectOptions & {
          collection: string;
          where: string[];
          orderBy?: string;
          parentPath?: string;
          limit?: number;
          offset?: number;
        },
      ) => {
        const explained = await withServices(async (s) => {
          await requireProject(s, options.project);
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
      },
    );
}
