/** Where the session and the guest device id are kept: localStorage's shape, sync or async. */
export interface SessionStorage {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** A storage in memory (the default outside browsers). */
export function memoryStorage(): SessionStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, value);
    },
    removeItem: (key) => {
      items.delete(key);
    },
  };
}

/** localStorage when the platform has one, else memory. */
export function defaultStorage(): SessionStorage {
  const local = (globalThis as { localStorage?: SessionStorage }).localStorage;
  return local ?? memoryStorage();
}

/** A random id (guest device ids). */
export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}
