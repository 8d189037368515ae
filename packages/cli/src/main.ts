#!/usr/bin/env node
// `wfs` as an integrator installs it (`npx @wfs/cli …`): `wfs login` and `wfs api`. The operator's
// commands need the service's database and come with the service's checkout (`npm run wfs`).
import { runProgram } from './program.ts';
import { registerIntegratorCommands } from './commands.ts';

process.exitCode = await runProgram('Log in to the workforce scheduling service and call its API as an API User.', [registerIntegratorCommands], process.argv.slice(2), process);
