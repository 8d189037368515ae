// A `wfs` program from groups of commands: the integrator's package runs `login` and `api`; the
// service's checkout adds the operator's commands to the same program. A command-line mistake exits 2
// and, with --json, still ends with the `{error}` line.
import { Command, CommanderError } from 'commander';
import { printJsonFailure } from './output.ts';
import { beginRun, exitCodeOf, type Terminal } from './terminal.ts';

/** Exit status for a wrong command line (1 is a command that ran and failed). */
export const EXIT_USAGE = 2;

export type CommandGroup = (program: Command) => void;

/** Runs the program on `args` (the command line after `wfs`) and answers its exit status. */
export async function runProgram(description: string, groups: readonly CommandGroup[], args: readonly string[], terminal: Terminal): Promise<number> {
  const program = new Command('wfs')
    .description(description)
    .option('--json', 'print one JSON object as the last line of standard output; text goes to standard error')
    .showSuggestionAfterError()
    .configureOutput({ writeOut: (text) => terminal.stdout.write(text), writeErr: (text) => terminal.stderr.write(text) })
    .exitOverride();
  beginRun(program, terminal);
  for (const register of groups) register(program);
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // commander has already explained the problem (or printed help/version) on standard error.
    if (error.exitCode === 0) return 0;
    // Called without a command, commander shows the help and says only "(outputHelp)".
    const message = error.code === 'commander.help' ? 'a command is required; see wfs --help' : error.message.replace(/^error: /, '');
    if (args.includes('--json')) printJsonFailure(terminal, message);
    return EXIT_USAGE;
  }
  return exitCodeOf(program);
}
