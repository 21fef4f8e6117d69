/** `cds backup` and `cds restore` (§14) for the embedded SQLite database, registered by `main.ts`. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { servingPid } from '../serving-marker.js';
import { backupSqlite, restoreSqlite } from '../storage/sqlite/backup.js';
import { type OutputOptions, print } from './commands.js';

const DATABASE_FILE = 'cds.sqlite';
const SECRET_FILE = 'jwt-secret';
const ON_POSTGRES = 'DATABASE_URL is set: back up and restore PostgreSQL with pg_dump and pg_restore';

/** The generated secret kept in the data directory; null when CDS_JWT_SECRET is set or none exists. */
function generatedSecret(config: Config): string | null {
  const file = join(config.dataDir, SECRET_FILE);
  if (config.jwtSecret || !existsSync(file)) return null;
  return readFileSync(file, 'utf8').trim();
}

/** The configuration, which must be of the embedded SQLite database, and that database's file. */
function sqliteDatabase(settings: () => Config): { config: Config; database: string } {
  const config = settings();
  if (config.databaseUrl) throw new Error(ON_POSTGRES);
  return { config, database: join(config.dataDir, DATABASE_FILE) };
}

/** Adds `backup` and `restore` to the program. */
export function registerBackupCommands(program: Command, settings: () => Config) {
  program
    .command('backup <file>')
    .description('write a complete copy of the SQLite database while the service runs (PostgreSQL: use pg_dump)')
    .option('--json', 'print {file, bytes}')
    .action(async (file: string, options: OutputOptions) => {
      const { config, database } = sqliteDatabase(settings);
      if (!existsSync(database)) throw new Error(`No database at ${database}`);
      const target = resolve(file);
      const bytes = await backupSqlite(database, target, generatedSecret(config));
      print(options, { file: target, bytes }, `Backed up ${database} to ${target} (${bytes} bytes)`);
    });

  program
    .command('restore <file>')
    .description('replace the SQLite database in CDS_DATA_DIR by a backup; the service must be stopped')
    .option('--json', 'print {file, restored}')
    .action(async (file: string, options: OutputOptions) => {
      const { config, database } = sqliteDatabase(settings);
      const pid = servingPid(config.dataDir);
      if (pid !== null) throw new Error(`A service (pid ${pid}) is using ${config.dataDir}: stop it first`);
      mkdirSync(config.dataDir, { recursive: true });
      const { jwtSecret } = restoreSqlite(resolve(file), database);
      if (jwtSecret !== null && !config.jwtSecret) {
        writeFileSync(join(config.dataDir, SECRET_FILE), jwtSecret, { mode: 0o600 });
      }
      print(options, { file: database, restored: resolve(file) }, `Restored ${file} into ${database}`);
    });
}
