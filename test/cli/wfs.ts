// Runs the real `wfs` program as its own process, the way an operator does, against one database.
import { lastJson, runWfs, type WfsRun } from '../support/processes.ts';

export function wfs(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<WfsRun> {
  return runWfs(args, { DATABASE_URL: databaseUrl, ...env });
}

/** Runs `wfs <args> --json`, asserts success, and returns the JSON result. */
export async function wfsJson(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const run = await wfs(databaseUrl, [...args, '--json'], env);
  if (run.code !== 0) throw new Error(`wfs ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return lastJson(run);
}
