// Runs the real `wfs` program against one database: in the test's own process (its streams and exit
// status captured), or as a process of its own where the test is about the process — its exit status
// and streams as an operator's shell sees them, or a command acting beside a running server.
import { lastJson, runWfs, runWfsProcess, type WfsRun } from '../support/processes.ts';

export function wfs(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<WfsRun> {
  return runWfs(args, { DATABASE_URL: databaseUrl, ...env });
}

/** `wfs <args>` as a process of its own. */
export function wfsProcess(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<WfsRun> {
  return runWfsProcess(args, { DATABASE_URL: databaseUrl, ...env });
}

/** Runs `wfs <args> --json`, asserts success, and returns the JSON result. */
export async function wfsJson(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return succeeded(args, await wfs(databaseUrl, [...args, '--json'], env));
}

/** `wfsJson` as a process of its own. */
export async function wfsProcessJson(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  return succeeded(args, await wfsProcess(databaseUrl, [...args, '--json'], env));
}

function succeeded(args: string[], run: WfsRun): Record<string, unknown> {
  if (run.code !== 0) throw new Error(`wfs ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return lastJson(run);
}
