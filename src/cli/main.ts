/** The `cds` command (§7): runs the program of `program.ts` on this process's arguments and environment. */
import { runCds } from './program.js';

const code = await runCds(process.argv, process.env);
// A failure exits at once (an open connection must not hold it); success lets pending output drain.
if (code !== 0) process.exit(code);
