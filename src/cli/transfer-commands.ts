/** `cds export` and `cds import` (§7, §8), registered on the `cds` program by `main.ts`. */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { AppError } from '../core/errors.js';
import { JSON_OUTPUT, type ProjectOptions, print, projectCommand, type ServicesRunner } from './commands.js';

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
  projectCommand(
    program,
    'export',
    'write every document, user, leaderboard, webhook and the realtime tree of a project as JSON to stdout',
  )
    .option('--with-secrets', "include the webhooks' signing secrets (left out by default)")
    .option('--json', 'machine-readable output (the export is always JSON)')
    .action(async (options: ProjectOptions & { withSecrets?: boolean }) => {
      const exportOptions = { withSecrets: options.withSecrets === true };
      const data = await withServices((s) => s.transfer.exportProject(options.project, exportOptions));
      process.stdout.write(`${JSON.stringify(data)}\n`);
    });

  projectCommand(
    program,
    'import',
    'load an export file (or - for stdin) into a project in one transaction: all of it or nothing',
  )
    .argument('<file>', 'the JSON file written by `cds export`')
    .option('--json', JSON_OUTPUT)
    .action(async (file: string, options: ProjectOptions) => {
      const input = await readJson(file);
      const summary = await withServices((s) => s.transfer.importProject(options.project, input), {
        announces: true,
      });
      const text = `Imported ${summary.documents} documents, ${summary.users} users, ${summary.leaderboards} leaderboards (${summary.entries} entries), ${summary.webhooks} webhooks and ${summary.realtime_paths} realtime paths${summary.rules ? '; set the access rules' : ''}.`;
      // A webhook the file had no secret for got a fresh one, shown only here.
      const secrets = summary.webhook_secrets.map((w) => `\n  webhook ${w.id} (${w.url}): new secret ${w.secret}`);
      print(options, { imported: summary }, text + secrets.join(''));
    });
}
