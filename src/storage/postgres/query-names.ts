import type pg from 'pg';

/**
 * Names for the statements a query compiles to (§2 `where`, §15 index plans), so each connection
 * parses and plans a query's shape once instead of on every call: planning is about a third of
 * an indexed 100-document query (0.3 of 0.9 ms). Clients choose the shapes (field names are part
 * of the text), so only the first `capacity` distinct texts of the process get a name and later
 * ones run unnamed, as every query did before: a connection holds at most `capacity` plans.
 */
export class QueryNames {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly prefix: string,
    private readonly capacity: number,
  ) {}

  /** The query `text` with `values`, named when its shape has a name or a free one is left. */
  config(text: string, values: unknown[]): pg.QueryConfig {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.capacity) {
      name = `${this.prefix}_${this.names.size}`;
      this.names.set(text, name);
    }
    return name === undefined ? { text, values } : { name, text, values };
  }
}
