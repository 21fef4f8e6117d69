import { basename } from 'node:path';
import type { ModuleSummary } from '../../core/functions/function-registry.js';
import { type AdminGuard, decorateAdminRequests } from '../admin-auth-hook.js';
import type { FunctionCallCount } from '../metrics.js';
import { ProjectParams } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import { ProjectFunctionsSchema, projectFunctionsDescription } from '../schemas/functions.js';
import type { HttpApp } from '../server.js';
import { adminRoute, inProject } from './admin-project-shared.js';

/** What the console's functions view uses. */
export interface AdminFunctionDeps {
  guard: AdminGuard;
  /** What is loaded, module by module (`FunctionRegistry.list`). */
  modules(): ModuleSummary[];
  /** The project's calls counted by this process (`Metrics.functionCallCounts`). */
  calls(projectId: number): FunctionCallCount[];
}

/** One module as an admin of a project it serves sees it. */
interface ProjectModule {
  file: string;
  rpc: string[];
  /** `before`, `after`, `schedule`, …: the names of each kind of function. */
  [kind: string]: string | string[];
}

/**
 * A module's listing for one project: its file name (the operator's folder stays private) and
 * every list of names it has, whatever kinds later versions add; not `projects`, which would name
 * other organisations' projects.
 */
function forProject(summary: ModuleSummary): ProjectModule {
  const module: ProjectModule = { file: basename(summary.file), rpc: summary.rpc };
  for (const [kind, value] of Object.entries(summary)) {
    if (kind === 'projects' || kind === 'file' || !Array.isArray(value)) continue;
    module[kind] = value.map(String);
  }
  return module;
}

const serves = (summary: ModuleSummary, projectId: number) =>
  summary.projects === '*' || summary.projects.includes(projectId);

/** `GET /admin/projects/{project_id}/functions` (§13, §16): what the console's Functions area shows. */
export function adminFunctionRoutes(app: HttpApp, deps: AdminFunctionDeps): void {
  decorateAdminRequests(app);
  app.get(
    '/admin/projects/:project_id/functions',
    adminRoute(inProject(deps.guard), {
      description: projectFunctionsDescription,
      params: ProjectParams,
      response: { 200: ProjectFunctionsSchema, ...errorResponses },
    }),
    (request) => ({
      modules: deps
        .modules()
        .filter((summary) => serves(summary, request.projectId))
        .map(forProject),
      calls: deps.calls(request.projectId),
    }),
  );
}
