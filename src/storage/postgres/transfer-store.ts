import type pg from 'pg';
import type { TransferStore } from '../../core/ports.js';
import type { ProjectExport } from '../../core/transfer/export-format.js';

/** Export and import of a whole project (§8) in one transaction. */
export class PostgresTransferStore implements TransferStore {
  constructor(private readonly db: pg.Pool) {}

  async exportProject(_projectId: number): Promise<ProjectExport> {
    throw new Error(`export is not implemented yet on ${String(this.db ? 'postgres' : '')}`);
  }

  async importProject(_projectId: number, _file: ProjectExport, _now: number): Promise<void> {
    throw new Error('import is not implemented yet');
  }
}
