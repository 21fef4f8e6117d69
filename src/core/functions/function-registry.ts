/**
 * The functions loaded at start (§16), by project: which module answers an RPC name, runs a before
 * hook, handles events or runs a schedule for a project. Two modules may not define one RPC, one
 * hook, one after handler or one schedule for one project: the registry refuses them when it is
 * built, naming both files, so the start stops.
 */
import type { AdminApi } from './admin-api.js';
import type {
  AfterHandler,
  BeforeHookName,
  BeforeHooks,
  FunctionsDefinition as Definition,
  RpcFunction,
  ScheduledFunction,
} from './functions-module.js';

/** A module's definition, its functions given the admin API. */
type FunctionsDefinition = Definition<AdminApi>;

/** A loaded module: its file and its checked definition. */
export interface LoadedModule {
  file: string;
  definition: FunctionsDefinition;
}

/** One module as `cds functions list` prints it. */
export interface ModuleSummary {
  file: string;
  projects: '*' | number[];
  rpc: string[];
  before: string[];
  after: string[];
  schedule: string[];
}

/** An RPC found for a project. */
export interface FoundRpc {
  name: string;
  file: string;
  run: RpcFunction<AdminApi>;
}

const serves = (definition: FunctionsDefinition, projectId: number) =>
  definition.projects === '*' || definition.projects.includes(projectId);

const overlap = (a: FunctionsDefinition, b: FunctionsDefinition) =>
  a.projects === '*' || b.projects === '*' || a.projects.some((id) => serves(b, id));

const rpcNames = (definition: FunctionsDefinition) => Object.keys(definition.rpc ?? {});
const hookNames = (definition: FunctionsDefinition) => Object.keys(definition.before ?? {});
const afterNames = (definition: FunctionsDefinition) => Object.keys(definition.after ?? {});
const scheduleNames = (definition: FunctionsDefinition) => Object.keys(definition.schedule ?? {});

/** A schedule of a loaded module, with the projects it runs for. */
export interface FoundSchedule extends ScheduledFunction<AdminApi> {
  name: string;
  file: string;
  projects: '*' | number[];
}

/** An after handler serving a project: the events it takes, and the module it is from. */
export interface FoundAfterHandler {
  /** Its key in `after`: an event type, or `document.written:<collection>`. */
  name: string;
  file: string;
  run: AfterHandler<AdminApi>;
}

/** What a module defines that no other module may define for the same project. */
const definedNames = (definition: FunctionsDefinition) => [
  ...rpcNames(definition).map((name) => `rpc '${name}'`),
  ...hookNames(definition).map((name) => `before hook '${name}'`),
  ...afterNames(definition).map((name) => `after handler '${name}'`),
  ...scheduleNames(definition).map((name) => `schedule '${name}'`),
];

/** The loaded modules, asked by project and name. */
export class FunctionRegistry {
  static readonly empty = new FunctionRegistry([]);
  /** Each project's before hooks, found once: a write asks for its hook on every call. */
  private readonly hooksByProject = new Map<number, BeforeHooks<AdminApi>>();

  private constructor(private readonly modules: readonly LoadedModule[]) {}

  /** A registry of these modules; throws naming both files when two define one name (RPC, hook, handler, schedule) for a project. */
  static of(modules: readonly LoadedModule[]): FunctionRegistry {
    modules.forEach((module, i) => {
      for (const earlier of modules.slice(0, i)) {
        if (!overlap(module.definition, earlier.definition)) continue;
        const theirs = definedNames(earlier.definition);
        const clash = definedNames(module.definition).find((name) => theirs.includes(name));
        if (clash)
          throw new Error(`${module.file}: ${clash} is also defined by ${earlier.file} for a project both serve`);
      }
    });
    return new FunctionRegistry(modules);
  }

  /** The project's before hook of that name, or undefined (then the write costs what it would without functions). */
  before<Name extends BeforeHookName>(projectId: number, name: Name): BeforeHooks<AdminApi>[Name] {
    if (this.modules.length === 0) return undefined;
    let hooks = this.hooksByProject.get(projectId);
    if (!hooks) {
      hooks = {};
      for (const { definition } of this.modules) {
        if (serves(definition, projectId)) Object.assign(hooks, definition.before);
      }
      this.hooksByProject.set(projectId, hooks);
    }
    return hooks[name];
  }

  /** The RPC of that name serving the project, if any. */
  rpc(projectId: number, name: string): FoundRpc | null {
    for (const { file, definition } of this.modules) {
      const rpc = definition.rpc ?? {};
      const run = Object.hasOwn(rpc, name) ? rpc[name] : undefined;
      if (run && serves(definition, projectId)) return { name, file, run };
    }
    return null;
  }

  /** The after handlers serving the project, in module order. */
  after(projectId: number): FoundAfterHandler[] {
    const found: FoundAfterHandler[] = [];
    for (const { file, definition } of this.modules) {
      if (!serves(definition, projectId)) continue;
      for (const [name, run] of Object.entries(definition.after ?? {})) found.push({ name, file, run });
    }
    return found;
  }

  /** Whether any module has after handlers (so commits may need to record events). */
  get hasAfterHandlers(): boolean {
    return this.modules.some(({ definition }) => afterNames(definition).length > 0);
  }

  /** Every schedule of every module, in module order. */
  schedules(): FoundSchedule[] {
    return this.modules.flatMap(({ file, definition }) =>
      Object.entries(definition.schedule ?? {}).map(([name, { cron, run }]) => ({
        name,
        file,
        projects: definition.projects,
        cron,
        run,
      })),
    );
  }

  /** What is loaded, module by module. */
  list(): ModuleSummary[] {
    return this.modules.map(({ file, definition }) => ({
      file,
      projects: definition.projects,
      rpc: rpcNames(definition).sort(),
      before: hookNames(definition).sort(),
      after: afterNames(definition).sort(),
      schedule: scheduleNames(definition).sort(),
    }));
  }
}
