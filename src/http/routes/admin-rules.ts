import { ADMIN_PERMISSIONS } from '../../core/admin/admin-permissions.js';
import type { RulesService } from '../../core/rules/rules-service.js';
import type { RulesTester } from '../../core/rules/rules-tester.js';
import { type AdminGuard, decorateAdminRequests } from '../admin-auth-hook.js';
import { ProjectParams } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';
import {
  PutRulesBody,
  RulesRevisionsSchema,
  RulesStateSchema,
  RuleTestResultsSchema,
  TestRulesBody,
} from '../schemas/rules.js';
import type { HttpApp } from '../server.js';
import { adminRoute, inProject, SCOPE } from './admin-project-shared.js';

/** What the access rules routes use. */
export interface AdminRulesDeps {
  guard: AdminGuard;
  rules: RulesService;
  tester: RulesTester;
}

const PREFIX = '/admin/projects/:project_id/rules';

/** Reading, setting and testing a project's access rules (§9 Management). */
export function adminRulesRoutes(app: HttpApp, deps: AdminRulesDeps): void {
  const { rules, tester } = deps;
  decorateAdminRequests(app);
  const anyRole = inProject(deps.guard);
  const manage = inProject(deps.guard, ADMIN_PERMISSIONS.rulesManage);

  app.get(
    PREFIX,
    adminRoute(anyRole, {
      description: `The project’s ruleset, its revision and when it was set (any admin role). ${SCOPE}`,
      params: ProjectParams,
      response: { 200: RulesStateSchema, ...errorResponses },
    }),
    (request) => rules.get(request.projectId),
  );

  app.put(
    PREFIX,
    adminRoute(manage, {
      description:
        'Sets the ruleset as the next revision (identical rules too), in force on every instance within 1 s. ' +
        'An invalid ruleset → 400 `<where>: <problem>` (e.g. `documents[2].allow.write: ...`) and nothing ' +
        `changes; \`rules\` not an object → 422. Needs \`rules.manage\` (owner, editor). ${SCOPE}`,
      params: ProjectParams,
      body: PutRulesBody,
      response: { 200: RulesStateSchema, ...errorResponses },
    }),
    (request) => rules.put(request.projectId, request.body.rules),
  );

  app.get(
    `${PREFIX}/revisions`,
    adminRoute(anyRole, {
      description:
        'The saved revisions, newest first (the last 50); a rollback is a PUT of an older one’s rules ' +
        `(any admin role). ${SCOPE}`,
      params: ProjectParams,
      response: { 200: RulesRevisionsSchema, ...errorResponses },
    }),
    async (request) => ({ revisions: await rules.revisions(request.projectId) }),
  );

  app.post(
    `${PREFIX}/test`,
    adminRoute(anyRole, {
      description:
        'Decides each case under `rules` (validated as a PUT’s: 400) or the current ruleset, as user `user_id` ' +
        '(unknown → 422), with `existing` standing in for the stored data (null: absent) or else the stored ' +
        `one; \`rule\` is the lowest index of a granting rule in its area. Changes nothing (any admin role). ${SCOPE}`,
      params: ProjectParams,
      body: TestRulesBody,
      response: { 200: RuleTestResultsSchema, ...errorResponses },
    }),
    async (request) => ({
      results: await tester.decide(request.projectId, request.body.cases, request.body.rules),
    }),
  );
}
