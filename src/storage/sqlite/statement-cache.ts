import type Database from 'better-sqlite3';

/** A database whose `prepare` hands out one statement per SQL text: preparing costs more than a point lookup. */
export type CachedStatements = Pick<Database.Database, 'prepare' | 'transaction' | 'exec'>;

/** The parts of a database the store uses, with `prepare` returning one statement per SQL text. */
export function withStatementCache(db: Database.Database): CachedStatements {
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  return {
    prepare: prepare as Database.Database['prepare'],
    transaction: db.transaction.bind(db),
    exec: db.exec.bind(db),
  };
}
