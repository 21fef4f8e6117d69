/**
 * Loads the operator's server functions (§16) at start: every `*.js`, `*.mjs` and `*.ts` file
 * directly in the folder (TypeScript compiled by esbuild as it loads), each default-exporting
 * `defineFunctions({...})`. A module that fails to load or has the wrong shape, or two that define
 * one name for one project, stop the start with an error naming the file. No folder: no functions.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import nodeModule from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { FunctionRegistry, type LoadedModule } from '../core/functions/function-registry.js';
import { moduleProblem } from '../core/functions/functions-module.js';

/** Module files: not hidden (a compiled module being loaded is), not declarations. */
const MODULE_FILE = /^[^.].*\.(m?js|ts)$/;
/** The package's own subpath, which modules outside the package cannot otherwise resolve. */
const SELF = 'client-data-service/functions';

let resolverRegistered = false;

/**
 * The file of `client-data-service/functions`: `index` beside this module (the build, or the
 * sources under tsx), or, when this module was bundled into one file (the tests' entries), the
 * package's build found from there, else its source.
 */
function functionsEntry(): string {
  const here = fileURLToPath(import.meta.url);
  const candidates = /load-functions\.[jt]s$/.test(here)
    ? [join(dirname(here), here.endsWith('.ts') ? 'index.ts' : 'index.js')]
    : [];
  for (let dir = dirname(here); dir !== dirname(dir); dir = dirname(dir)) {
    if (!existsSync(join(dir, 'package.json'))) continue;
    candidates.push(join(dir, 'dist', 'src', 'functions', 'index.js'), join(dir, 'src', 'functions', 'index.ts'));
    break;
  }
  const entry = candidates.find((file) => existsSync(file));
  if (!entry) throw new Error(`client-data-service/functions not found from ${here}`);
  return pathToFileURL(entry).href;
}

/** Lets modules anywhere import `client-data-service/functions`. */
function registerSelfResolver(): void {
  if (resolverRegistered) return;
  resolverRegistered = true;
  const entry = functionsEntry();
  const hook = `export async function resolve(specifier, context, next) {
    return specifier === ${JSON.stringify(SELF)} ? { url: ${JSON.stringify(entry)}, shortCircuit: true } : next(specifier, context);
  }`;
  // `module.register` is Node 20.6 and newer: a named import would stop older 20s from starting at all.
  if (!nodeModule.register) throw new Error('server functions need Node.js 20.6 or newer (module.register)');
  nodeModule.register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

/**
 * Imports a module. TypeScript is compiled first, with the local files it imports, into one ES
 * module written beside it (so its packages resolve from its own folder) and removed once loaded:
 * ES module whatever the folder's package.json says, no build step for the operator.
 */
async function importModule(file: string): Promise<unknown> {
  if (!file.endsWith('.ts')) return import(pathToFileURL(file).href);
  const compiled = join(dirname(file), `.${basename(file, '.ts')}.${process.pid}.cds.mjs`);
  await build({
    entryPoints: [file],
    outfile: compiled,
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  try {
    return await import(pathToFileURL(compiled).href);
  } finally {
    rmSync(compiled, { force: true });
  }
}

/** The modules of `dir` (relative to the working directory), checked; an empty registry when it does not exist. */
export async function loadFunctions(dir: string): Promise<FunctionRegistry> {
  const folder = resolve(dir);
  const found = statSync(folder, { throwIfNoEntry: false });
  if (!found) return FunctionRegistry.empty;
  if (!found.isDirectory()) throw new Error(`CDS_FUNCTIONS_DIR ${folder} is not a folder`);
  const files = readdirSync(folder)
    .filter((name) => MODULE_FILE.test(name) && !name.endsWith('.d.ts'))
    .sort()
    .map((name) => join(folder, name));
  if (files.length === 0) return FunctionRegistry.empty;
  registerSelfResolver();
  const modules: LoadedModule[] = [];
  for (const file of files) {
    let loaded: unknown;
    try {
      loaded = await importModule(file);
    } catch (error) {
      throw new Error(`${file}: failed to load: ${error instanceof Error ? error.message : String(error)}`);
    }
    const definition = (loaded as { default?: unknown } | null)?.default;
    const problem = moduleProblem(definition);
    if (problem) throw new Error(`${file}: ${problem}`);
    modules.push({ file, definition: definition as LoadedModule['definition'] });
  }
  return FunctionRegistry.of(modules);
}
