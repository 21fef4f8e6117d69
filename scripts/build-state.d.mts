/** Declarations of build-state.mjs (a plain script, so that `npm start` runs it without building). */
export const SERVICE_ENTRY: string;
export function staleBuild(root?: string): { source: string; output: string } | null;
