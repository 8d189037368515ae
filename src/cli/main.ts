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
import { consoleCommands } from './console-commands.ts';

/** Every command group: the operator's, then the integrator's (login, api). */
await runProgram('Operate the workforce scheduling service. Acts on the database named by DATABASE_URL.', [identityCommands, grantRequestCommands, dataCommands, consoleCommands, ssoCommands, secretsCommands, registerIntegratorCommands]);
