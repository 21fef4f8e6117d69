import { InvalidArgumentError } from 'commander';
import { parseId } from '../core/admin/admin-service.js';

/** Parses a positive integer id option (`--project 3`), as ids in URLs are parsed. */
export function positiveInteger(value: string): number {
  const id = parseId(value);
  if (id === null) throw new InvalidArgumentError('expected a positive integer.');
  return id;
}
