import type Database from 'better-sqlite3';
import type { TransferStore } from '../../core/ports.js';
import type { ProjectExport } from '../../core/transfer/export-format.js';

/** Export and import of a whole project (§8) in one transaction. */
export class SqliteTransferStore implements TransferStore {
  constructor(private readonly db: Database.Database) {}

  async exportProject(_projectId: number): Promise<ProjectExport> {
    throw new Error(`export is not implemented yet on ${String(this.db ? 'sqlite' : '')}`);
  }

  async importProject(_projectId: number, _file: ProjectExport, _now: number): Promise<void> {
    throw new Error('import is not implemented yet');
  }
}
