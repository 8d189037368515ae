// How every command reports (contract: operator side). With --json the last line of standard output is one JSON
// object, the result or `{error, errors?}`, and human-readable text goes to standard error; without
// it the text goes to standard output. Secrets appear exactly once: in the JSON, or in the text.
import type { Command, OptionValues } from 'commander';
import { ConfigError } from '../platform/config.ts';
import { ProblemError, type FieldError } from '../platform/errors.ts';
import { printFailure } from '../../packages/cli/src/output.ts';
import { EXIT_USAGE } from '../../packages/cli/src/program.ts';
import { exitWith, terminalOf, type Terminal } from '../../packages/cli/src/terminal.ts';
import { withDatabase, type CommandContext } from './database.ts';

export interface Outcome {
  /** What --json prints: exactly the documented result object. */
  json: object;
  /** One or more lines for people, without secrets. */
  summary: string;
  /** Secrets to show once when printing for people (label → value). */
  secrets?: Record<string, string>;
}

/** Exit status 1: the command failed (2, the command line or configuration is wrong, is the runner's EXIT_USAGE). */
export const EXIT_FAILED = 1;

const STORE_WARNING = 'Store secrets now: they are shown only this once and cannot be retrieved later.';
const STORE_WARNING_JSON = 'The JSON output holds secrets shown only this once: store them now.';

function forPeople(outcome: Outcome): string {
  const secrets = Object.entries(outcome.secrets ?? {});
  if (secrets.length === 0) return `${outcome.summary}\n`;
  const width = Math.max(...secrets.map(([label]) => label.length));
  const lines = secrets.map(([label, value]) => `  ${`${label}:`.padEnd(width + 2)}${value}`);
  return `${outcome.summary}\n${lines.join('\n')}\n${STORE_WARNING}\n`;
}

function printSuccess(terminal: Terminal, json: boolean, outcome: Outcome): void {
  if (!json) {
    terminal.stdout.write(forPeople(outcome));
    return;
  }
  const secretNote = outcome.secrets ? `\n${STORE_WARNING_JSON}` : '';
  terminal.stderr.write(`${outcome.summary}${secretNote}\n`);
  terminal.stdout.write(`${JSON.stringify(outcome.json)}\n`);
}

/**
 * A failure with more field errors than are worth holding at once (a rejected import of millions of
 * entries): `errors` is the JSON text between the brackets of their array, printed as it is read.
 */
export class ListedFailure extends Error {
  readonly count: number;
  readonly errors: AsyncIterable<Buffer>;

  constructor(message: string, count: number, errors: AsyncIterable<Buffer>) {
    super(message);
    this.count = count;
    this.errors = errors;
  }
}

/** printFailure for a ListedFailure: the same text and JSON line, written a chunk of errors at a time. */
async function printListedFailure({ stdout, stderr }: Terminal, json: boolean, failure: ListedFailure): Promise<void> {
  stderr.write(`Error: ${failure.count} problem(s):`);
  if (json) stdout.write(`${JSON.stringify({ error: failure.message }).slice(0, -1)},"errors":[`);
  for await (const chunk of failure.errors) {
    if (json) stdout.write(chunk);
    const text = chunk.toString('utf8');
    const errors = JSON.parse(`[${text.startsWith(',') ? text.slice(1) : text}]`) as FieldError[];
    stderr.write(errors.map((e) => `\n  ${e.path} ${e.message}`).join(''));
  }
  stderr.write('\n');
  if (json) stdout.write(']}\n');
}

function describeFailure(error: unknown): { message: string; errors?: FieldError[]; status: number } {
  if (error instanceof ProblemError) return { message: error.message, ...(error.errors ? { errors: error.errors } : {}), status: EXIT_FAILED };
  if (error instanceof ConfigError) return { message: `Configuration error: ${error.message}`, status: EXIT_USAGE };
  // Whatever else (the database unreachable, a bug): the message only, never a stack or SQL values.
  return { message: error instanceof Error ? error.message : String(error), status: EXIT_FAILED };
}

/**
 * Wraps a command's work as a commander action: runs `work` with the command's options and operands
 * and prints the outcome or the failure in the requested form. Commands that need no database (an
 * integrator's `login`, say) use this directly.
 */
export function commandAction<Options extends OptionValues>(work: (options: Options, operands: string[], terminal: Terminal) => Promise<Outcome>) {
  return async (...params: unknown[]): Promise<void> => {
    const command = params.at(-1) as Command;
    const terminal = terminalOf(command);
    const json = Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
    try {
      printSuccess(terminal, json, await work(command.opts<Options>(), command.args, terminal));
    } catch (error) {
      if (error instanceof ListedFailure) {
        await printListedFailure(terminal, json, error);
        exitWith(command, EXIT_FAILED);
        return;
      }
      const failure = describeFailure(error);
      printFailure(terminal, json, failure.message, failure.errors);
      exitWith(command, failure.status);
    }
  };
}

/** An operator command: `work` runs on the migrated database named by DATABASE_URL. */
export function operatorAction<Options extends OptionValues>(work: (context: CommandContext, options: Options, operands: string[]) => Promise<Outcome>) {
  return commandAction<Options>((options, operands, terminal) => withDatabase(terminal, (context) => work(context, options, operands)));
}
