/**
 * What the `cds` commands share: how they reach the services, the options of a command on one
 * project with its check, and their output (a human-readable text, or JSON with `--json`).
 */
import type { Command } from 'commander';
import { notFound } from '../core/errors.js';
import type { Services } from '../services.js';
import { positiveInteger } from './positive-integer.js';

/**
 * Runs a task with the services of the configured storage, closing it afterwards (main.ts's
 * `withServices`); `announces` when the task changes what running servers cache (it then
 * publishes on the configured bus).
 */
export type ServicesRunner = <T>(
  task: (services: Services) => Promise<T>,
  options?: { announces?: boolean },
) => Promise<T>;

/** The help of `--json` for a command that prints a line of text without it. */
export const JSON_OUTPUT = 'machine-readable output';
/** The help of `--json` for a command that prints JSON either way (indented without it). */
export const ALWAYS_JSON = 'machine-readable output (always JSON)';

/** Output mode shared by every command. */
export interface OutputOptions {
  json?: boolean;
}

/** The options of a command on one project. */
export interface ProjectOptions extends OutputOptions {
  project: number;
}

/** Adds the command `name` to `parent`, acting on one project: `--project <id>` is required. */
export function projectCommand(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description).requiredOption('--project <id>', 'project id', positiveInteger);
}

/** Runs `task` with the services once the project exists (else `Project not found`, exit 1). */
export function inProject<T>(
  withServices: ServicesRunner,
  projectId: number,
  task: (services: Services) => Promise<T>,
  options?: { announces?: boolean },
): Promise<T> {
  return withServices(async (services) => {
    if (!(await services.storage.accounts.getProject(projectId))) throw notFound('Project not found');
    return task(services);
  }, options);
}

/** Prints `result` as JSON with `--json`, else the human-readable `text`. */
export function print(options: OutputOptions, result: unknown, text: string): void {
  process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `${text}\n`);
}

/** Prints the body a route would answer: indented, or on one line with `--json`. */
export function printBody(options: OutputOptions, body: unknown): void {
  process.stdout.write(`${JSON.stringify(body, null, options.json ? undefined : 2)}\n`);
}
