/**
 * The values of `rows` column by column: for each key in order, one array holding that field of
 * every row. These are the parameters of a multi-row insert through `unnest($2::int[], …)`.
 */
export function columnsOf<Row, Key extends keyof Row>(rows: readonly Row[], ...keys: Key[]): Row[Key][][] {
  return keys.map((key) => rows.map((row) => row[key]));
}
