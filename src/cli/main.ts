#!/usr/bin/env node
// `wfs`, the operator's command-line program (contract: operator side). Each group of commands lives in its own
// file and registers itself here; `npm run wfs -- --help` lists them all.
import { identityCommands } from './identity-commands.ts';
import { dataCommands } from './data-commands.ts';
import { ssoCommands } from './sso-commands.ts';
import { secretsCommands } from './secrets-commands.ts';
import { grantRequestCommands } from './grant-request-commands.ts';
import { registerIntegratorCommands } from '../../packages/cli/src/commands.ts';
import { runProgram } from '../../packages/cli/src/program.ts';
import type { Terminal } from '../../packages/cli/src/terminal.ts';
import { consoleCommands } from './console-commands.ts';

/**
 * Runs `wfs <args>` on `terminal` and answers its exit status: every command group, the operator's,
 * then the integrator's (login, api). Tests run it in-process on a terminal of their own.
 */
export function runWfs(args: readonly string[], terminal: Terminal): Promise<number> {
  return runProgram('Operate the workforce scheduling service. Acts on the database named by DATABASE_URL.', [identityCommands, grantRequestCommands, dataCommands, consoleCommands, ssoCommands, secretsCommands, registerIntegratorCommands], args, terminal);
}

if (import.meta.main) process.exitCode = await runWfs(process.argv.slice(2), process);
