import type { Command } from 'commander';
import type { Config } from '../config.js';
import { loadFunctions } from '../functions/load-functions.js';
import { JSON_OUTPUT, type OutputOptions, print } from './commands.js';

/**
 * Adds `functions list` (§16): what the service would load from `CDS_FUNCTIONS_DIR`, checked as a
 * start checks it.
 */
export function registerFunctionCommands(program: Command, config: () => Config): void {
  const functions = program.command('functions').description('server functions');
  functions
    .command('list')
    .description('load the modules of CDS_FUNCTIONS_DIR as a start would, and print what each defines')
    .option('--json', JSON_OUTPUT)
    .action(async (options: OutputOptions) => {
      const { dir } = config().functions;
      const modules = (await loadFunctions(dir)).list();
      const text =
        modules.length === 0
          ? `No server functions in ${dir}.`
          : modules
              .map(
                (m) =>
                  `${m.file}\n  projects: ${m.projects === '*' ? '*' : m.projects.join(', ')}\n  rpc: ${m.rpc.join(', ') || '-'}\n  before: ${m.before.join(', ') || '-'}\n  after: ${m.after.join(', ') || '-'}\n  schedule: ${m.schedule.join(', ') || '-'}`,
              )
              .join('\n');
      print(options, modules, text);
    });
}
