/**
 * TTL settings in §8's export and import (§17): `ttl: [{collection, field}]`, each checked as
 * `PUT …/ttl/{collection}` checks it, before the import's transaction. They are set once it has
 * committed, as the admin route sets them (declaring the sweep's index unless one exists).
 */

import { parseTtlField } from '../documents/ttl.js';
import { AppError } from '../errors.js';
import { parseCollectionName } from '../paths.js';
import { badItem, type ProjectExport } from './export-format.js';

/** The TTL settings of a file, each checked; a bad or repeated one is a 400 naming it (`ttl[1].field: …`). */
export function importedTtls(file: Pick<ProjectExport, 'ttl'>): { collection: string; field: string }[] {
  const seen = new Set<string>();
  return (file.ttl ?? []).map((setting, i) => {
    const at = `ttl[${i}]`;
    const check = (part: string, parse: () => unknown) => {
      try {
        parse();
      } catch (error) {
        const detail = error instanceof AppError ? (error.issues?.[0]?.msg ?? error.message) : 'is invalid';
        throw badItem(`${at}.${part}`, detail);
      }
    };
    check('collection', () => parseCollectionName(setting.collection));
    check('field', () => parseTtlField(setting.field));
    if (seen.has(setting.collection)) throw badItem(`${at}.collection`, `duplicate collection '${setting.collection}'`);
    seen.add(setting.collection);
    return { collection: setting.collection, field: setting.field };
  });
}
