// Where one run of `wfs` reads and writes: standard output and error, standard input (prompts), the
// environment, and the exit status it ends with. The program runs on its process's own; a test runs
// it in-process on its own terminal (`runWfs` in the service's `src/cli/main.ts`), which spares the
// start of a process, and the loading of its modules, for every command it runs.
import type { Command } from 'commander';

export interface Terminal {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** One run of the program: its terminal and the exit status so far. */
interface Run {
  readonly terminal: Terminal;
  exitCode: number;
}

const runs = new WeakMap<Command, Run>();

/** Starts a run of `program` (the root command) on `terminal`. */
export function beginRun(program: Command, terminal: Terminal): void {
  runs.set(program, { terminal, exitCode: 0 });
}

function runOf(command: Command): Run {
  let root = command;
  while (root.parent) root = root.parent;
  const run = runs.get(root);
  if (!run) throw new Error('wfs: a command ran outside a run of the program');
  return run;
}

/** The terminal of the run `command` belongs to. */
export function terminalOf(command: Command): Terminal {
  return runOf(command).terminal;
}

/** Ends the run of `command` with a failure's exit status. */
export function exitWith(command: Command, status: number): void {
  runOf(command).exitCode = status;
}

/** The exit status the run of `program` ends with. */
export function exitCodeOf(program: Command): number {
  return runOf(program).exitCode;
}
