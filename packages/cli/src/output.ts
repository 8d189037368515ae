// How a `wfs` command reports a failure, whether an operator's command or an integrator's (the
// service's command-line convention): text on standard error, and with --json a last line
// `{error, errors?}` on standard output.
import type { Terminal } from './terminal.ts';

/** One invalid field of a refused request or document (`/items/3/amount`, `/shifts/3/start`). */
export interface FieldError {
  path: string;
  message: string;
}

/** The --json failure line: `{error, errors?}`. */
export function printJsonFailure(terminal: Terminal, message: string, errors?: readonly FieldError[]): void {
  terminal.stdout.write(`${JSON.stringify({ error: message, ...(errors?.length ? { errors } : {}) })}\n`);
}

/** The failure for people on standard error (one line per field error), and the JSON line when asked. */
export function printFailure(terminal: Terminal, json: boolean, message: string, errors?: readonly FieldError[]): void {
  const headline = errors?.length ? `${errors.length} problem(s):` : message;
  const details = (errors ?? []).map((e) => `\n  ${e.path} ${e.message}`).join('');
  terminal.stderr.write(`Error: ${headline}${details}\n`);
  if (json) printJsonFailure(terminal, message, errors);
}
