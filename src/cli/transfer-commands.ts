/** `cds export` and `cds import` (§7, §8), registered on the `cds` program by `main.ts`. */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { AppError } from '../core/errors.js';
import type { Services } from '../services.js';
import { positiveInteger } from './positive-integer.js';

/**
 * Runs a task with the services of the configured storage, closing it afterwards (main.ts's
 * `withServices`); `announces` when the task changes what running servers cache (it then
 * publishes on the configured bus).
 */
export type ServicesRunner = <T>(
  task: (services: Services) => Promise<T>,
  options?: { announces?: boolean },
) => Promise<T>;

/** Reads and parses a JSON file (`-`: stdin); a file that is not JSON is named as such, after `what`. */
export async function readJson(file: string, what = 'Invalid import'): Promise<unknown> {
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('bad_request', `${what}: ${file} is not JSON (${(error as Error).message})`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Adds `export` and `import` to the program. */
export function registerTransferCommands(program: Command, withServices: ServicesRunner): void {
  program
    .command('export')
    .description('write every document, user, leaderboard and the realtime tree of a project as JSON to stdout')
    .requiredOption('--project <id>', 'project id', positiveInteger)
    .option('--json', 'machine-readable output (the export is always JSON)')
    .action(async (options: { project: number }) => {
      const data = await withServices((s) => s.transfer.exportProject(options.project));
      process.stdout.write(`${JSON.stringify(data)}\n`);
    });

  program
    .command('import')
    .description('load an export file (or - for stdin) into a project in one transaction: all of it or nothing')
    .requiredOption('--project <id>', 'project id', positiveInteger)
    .argument('<file>', 'the JSON file written by `cds export`')
    .option('--json', 'machine-readable output')
    .action(async (file: string, options: { project: number; json?: boolean }) => {
      const input = await readJson(file);
      const summary = await withServices((s) => s.transfer.importProject(options.project, input), {
        announces: true,
      });
      const text = `Imported ${summary.documents} documents, ${summary.users} users, ${summary.leaderboards} leaderboards (${summary.entries} entries) and ${summary.realtime_paths} realtime paths${summary.rules ? '; set the access rules' : ''}.`;
      process.stdout.write(options.json ? `${JSON.stringify({ imported: summary })}\n` : `${text}\n`);
    });
}
