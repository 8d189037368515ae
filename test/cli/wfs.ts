// Runs the real `wfs` program as its own process, the way an operator does, against one database.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface WfsRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function wfs(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<WfsRun> {
  // Only what node needs from the test runner's environment: a stray variable must not steer the CLI.
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: databaseUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

/** The JSON object on the last line of standard output (what `--json` promises). */
export function lastJson(run: WfsRun): Record<string, unknown> {
  const last = run.stdout.trimEnd().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`no JSON on the last line (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

/** Runs `wfs <args> --json`, asserts success, and returns the JSON result. */
export async function wfsJson(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const run = await wfs(databaseUrl, [...args, '--json'], env);
  if (run.code !== 0) throw new Error(`wfs ${args.join(' ')} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return lastJson(run);
}
