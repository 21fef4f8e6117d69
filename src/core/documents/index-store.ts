/** The declared-index port (§15). */
import type { DocumentIndex, IndexField, IndexState } from './indexes.js';

/**
 * Declared indexes of collections (§15), each also a database index over the documents of that
 * project and collection. Declarations are unique per project, collection and fields.
 */
export interface IndexStore {
  /** Records a declaration in state `building`; null when the same one exists. */
  create(projectId: number, collection: string, fields: IndexField[]): Promise<DocumentIndex | null>;
  /** The project's declarations, by id. */
  list(projectId: number): Promise<DocumentIndex[]>;
  /** Every project's declarations in state `building` (those a process that died may have left). */
  building(): Promise<DocumentIndex[]>;
  /**
   * Builds the database index of a declaration in state `building` without blocking other
   * statements where the engine allows it, then records `ready`; on failure removes what was
   * built, records `failed` and rejects. Resolves to the declaration's state afterwards: `ready`
   * once built, `building` when another live process is building it (try again later), its
   * state when it was not `building`, null when it was dropped (it is left dropped). What a
   * builder that died left behind is started over.
   */
  build(index: DocumentIndex): Promise<IndexState | null>;
  /** Drops the declaration and its database index; false when the project has no such index. */
  drop(projectId: number, id: number): Promise<boolean>;
}
