/** `cds admin create` (§6, §7), registered on the `cds` program by `main.ts`. */
import { type Command, Option } from 'commander';
import { ADMIN_ROLES } from '../core/admin/admin-permissions.js';
import { JSON_OUTPUT, type OutputOptions, print, type ServicesRunner } from './commands.js';
import { positiveInteger } from './positive-integer.js';

interface CreateOptions extends OutputOptions {
  org: number;
  email: string;
  password: string;
  role: string;
}

/** Registers `cds admin create --org <id> --email <e> --password <p> --role owner|editor|viewer [--json]`. */
export function registerAdminCommands(program: Command, withServices: ServicesRunner): void {
  const admin = program.command('admin').description('manage the admins of organisations');
  admin
    .command('create')
    .description('create an admin of an existing organisation')
    .requiredOption('--org <id>', 'organisation id', positiveInteger)
    .requiredOption('--email <email>', 'login email (unique over all organisations)')
    .requiredOption('--password <password>', 'password (at least 8 characters)')
    .addOption(new Option('--role <role>', 'role in the organisation').choices(ADMIN_ROLES).makeOptionMandatory())
    .option('--json', JSON_OUTPUT)
    .action(async (options: CreateOptions) => {
      const created = await withServices((s) =>
        s.admins.createAdmin(options.org, { email: options.email, password: options.password, role: options.role }),
      );
      const text = `Created ${created.role} admin ${created.id} (${created.email}) in organisation ${created.org_id}.`;
      print(options, created, text);
    });
}
