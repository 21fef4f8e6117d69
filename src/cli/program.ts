/**
 * The `cds` command line (§7) as a program: administration against the same database and
 * environment as the server. Every command prints one human-readable line, or with `--json`
 * exactly the keys §7 names; failures print a message to stderr and exit 1. `main.ts` runs it on
 * the process's arguments and environment.
 */
import { Command, CommanderError } from 'commander';
import { openBus, openStorage } from '../adapters.js';
import { type Config, loadConfig } from '../config.js';
import type { Bus } from '../core/bus.js';
import { AppError } from '../core/errors.js';
import { createServices } from '../services.js';
import { registerAdminCommands } from './admin-commands.js';
import { registerBackupCommands } from './backup-commands.js';
import {
  JSON_OUTPUT,
  type OutputOptions,
  type ProjectOptions,
  print,
  projectCommand,
  type ServicesRunner,
} from './commands.js';
import { registerFunctionCommands } from './function-commands.js';
import { registerIndexCommands } from './index-commands.js';
import { positiveInteger } from './positive-integer.js';
import { registerRulesCommands } from './rules-commands.js';
import { registerTransferCommands } from './transfer-commands.js';
import { registerTtlCommands } from './ttl-commands.js';
import { registerWebhookCommands } from './webhook-commands.js';

/**
 * Opens storage from `config()`, runs `task` with the services, and always closes storage.
 * A task that `announces` changes running servers must hear of (rules, import) gets the
 * configured bus (Redis when REDIS_URL is set); without it, or when Redis cannot be reached, the
 * servers see the change when they next revalidate (within seconds).
 */
function servicesRunner(config: () => Config): ServicesRunner {
  return async (task, options = {}) => {
    const settings = config();
    const storage = await openStorage(settings);
    let bus: Bus | undefined;
    try {
      if (options.announces && settings.redisUrl) {
        bus = await openBus(settings).catch((error: unknown) => {
          process.stderr.write(`cds: warning: ${describe(error)}; running servers see the change within 5 s\n`);
          return undefined;
        });
      }
      const services = createServices(settings, storage, bus ? { bus } : {});
      try {
        return await task(services);
      } finally {
        // Index builds a task started (create, import, or recovery while planning) run in this process.
        await services.indexes.whenBuilt();
      }
    } finally {
      await bus?.close();
      await storage.close();
    }
  };
}

/** Parses a comma-separated list option (`--role a,b`). */
function commaList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function registerMigrate(program: Command, withServices: ServicesRunner): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', JSON_OUTPUT)
    .action(async (options: OutputOptions) => {
      // Opening storage migrates it, under a lock, so this is safe next to running servers.
      await withServices(async () => undefined);
      print(options, { migrated: true }, 'Database schema is up to date.');
    });
}

function registerProject(program: Command, withServices: ServicesRunner): void {
  const project = program.command('project').description('manage projects');
  project
    .command('create')
    .description('create a project with a client (the organisation is created unless it exists)')
    .requiredOption('--org <name>', 'organisation name')
    .requiredOption('--name <name>', 'project name')
    .option('--json', JSON_OUTPUT)
    .action(async (options: OutputOptions & { org: string; name: string }) => {
      const created = await withServices((s) => s.accounts.createProject(options.org, options.name));
      print(
        options,
        created,
        [
          `Created project ${created.project_id} in organisation ${created.org_id}.`,
          `  client_id:     ${created.client_id}`,
          `  client_secret: ${created.client_secret}   (shown once; store it now)`,
        ].join('\n'),
      );
    });
}

function registerUser(program: Command, withServices: ServicesRunner): void {
  const user = program.command('user').description('manage the users (players) of a project');
  projectCommand(user, 'create', 'create a user with exactly the roles named (default: player)')
    .requiredOption('--username <username>', 'username (3-64 letters, digits, _ . -)')
    .requiredOption('--password <password>', 'password (at least 8 characters)')
    .option('--role <roles>', 'comma-separated role names', commaList)
    .option('--json', JSON_OUTPUT)
    .action(async (options: ProjectOptions & { username: string; password: string; role?: string[] }) => {
      const { username, password, role: roles } = options;
      const created = await withServices((s) => s.accounts.createUser(options.project, { username, password, roles }));
      print(options, created, `Created user ${created.id} (${created.username}) in project ${options.project}.`);
    });
}

function registerRole(program: Command, withServices: ServicesRunner): void {
  const role = program.command('role').description('manage the roles of a project');
  projectCommand(role, 'create', 'create a role, or replace the permissions of an existing one')
    .requiredOption('--name <name>', 'role name')
    .requiredOption('--permissions <permissions>', 'comma-separated permissions', commaList)
    .option('--json', JSON_OUTPUT)
    .action(async (options: ProjectOptions & { name: string; permissions: string[] }) => {
      const saved = await withServices((s) =>
        s.accounts.createRole(options.project, options.name, options.permissions),
      );
      const list = saved.permissions.length > 0 ? saved.permissions.join(', ') : '(no permissions)';
      print(options, saved, `Role '${saved.name}' of project ${saved.project_id}: ${list}`);
    });
}

function registerToken(program: Command, withServices: ServicesRunner): void {
  projectCommand(program, 'token', "issue an access token for a user (for game servers' tests and tooling)")
    .requiredOption('--user <id>', 'user id', positiveInteger)
    .option('--json', JSON_OUTPUT)
    .action(async (options: ProjectOptions & { user: number }) => {
      const issued = await withServices((s) => s.accounts.issueToken(options.project, options.user));
      print(options, issued, issued.access_token);
    });
}

/** A one-line explanation of a failure; validation problems name their field. */
function describe(error: unknown): string {
  if (error instanceof AppError && error.issues) {
    return error.issues.map((issue) => `${String(issue.loc.at(-1) ?? 'input')} ${issue.msg}`).join('; ');
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Builds the `cds` program with every command, on the settings of `env`. Commander's own
 * refusals (an unknown command, a missing option) and `--help` throw a `CommanderError` instead
 * of exiting, so `runCds` can answer with their exit code.
 */
export function buildProgram(env: Record<string, string | undefined>): Command {
  const config = () => loadConfig(env);
  const withServices = servicesRunner(config);
  const program = new Command('cds')
    .description('Client Data Service administration')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  registerMigrate(program, withServices);
  registerProject(program, withServices);
  registerUser(program, withServices);
  registerRole(program, withServices);
  registerToken(program, withServices);
  registerTransferCommands(program, withServices);
  registerAdminCommands(program, withServices);
  registerRulesCommands(program, withServices);
  registerIndexCommands(program, withServices);
  registerTtlCommands(program, withServices);
  registerWebhookCommands(program, withServices);
  registerBackupCommands(program, config);
  registerFunctionCommands(program, config);
  return program;
}

/**
 * Runs one `cds` command line (`argv` as `process.argv`: node, script, arguments) and resolves
 * with its exit code: 0, or 1 once a failure's message went to stderr (commander's own refusals:
 * the code it names). Output goes to `process.stdout` and `process.stderr`.
 */
export async function runCds(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  try {
    await buildProgram(env).parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`cds: ${describe(error)}\n`);
    return 1;
  }
}
