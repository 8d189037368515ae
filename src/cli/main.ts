#!/usr/bin/env node
// `wfs`, the operator's command-line program (CONTRACT §5). Each group of commands lives in its own
// file and registers itself here; `npm run wfs -- --help` lists them all.
import { Command, CommanderError } from 'commander';
import { identityCommands } from './identity-commands.ts';
import { dataCommands } from './data-commands.ts';
import { ssoCommands } from './sso-commands.ts';
import { grantRequestCommands } from './grant-request-commands.ts';
import { registerIntegratorCommands } from '../integrator/commands.ts';
import { consoleCommands } from '../console/commands.ts';
import { EXIT_USAGE } from './output.ts';
import { printJsonFailure } from '../platform/command-output.ts';

/** Every command group: the operator's, then the integrator's (login, api). */
const COMMAND_GROUPS: ReadonlyArray<(program: Command) => void> = [identityCommands, grantRequestCommands, dataCommands, consoleCommands, ssoCommands, registerIntegratorCommands];

const program = new Command('wfs')
  .description('Operate the workforce scheduling service. Acts on the database named by DATABASE_URL.')
  .option('--json', 'print one JSON object as the last line of standard output; text goes to standard error')
  .showSuggestionAfterError()
  .exitOverride();
for (const register of COMMAND_GROUPS) register(program);
for (const command of program.commands) command.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  // commander has already explained the problem (or printed help/version) on standard error.
  if (error.exitCode !== 0) {
    // Called without a command, commander shows the help and says only "(outputHelp)".
    const message = error.code === 'commander.help' ? 'a command is required; see wfs --help' : error.message.replace(/^error: /, '');
    if (process.argv.includes('--json')) printJsonFailure(message);
    process.exitCode = EXIT_USAGE;
  }
}
