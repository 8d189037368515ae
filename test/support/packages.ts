// The repository's npm packages as an integrator gets them: `npm pack`ed, then installed from the
// tarballs into a project of their own in a temporary directory outside this repository.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testDialect } from './database.ts';

export const run = promisify(execFile);
export const REPOSITORY = join(import.meta.dirname, '..', '..');
/** The machine's own Node.js (Debian's: 20 here), which integrators run; not the project's Node 24. */
export const SYSTEM_NODE = process.env.WFS_SYSTEM_NODE ?? '/usr/bin/node';

export interface ScratchProject {
  dir: string;
  remove(): void;
}

/** A new project that installed the packed workspaces (e.g. `packages/client`) from their tarballs. */
export async function installPacked(workspaces: readonly string[]): Promise<ScratchProject> {
  const dir = mkdtempSync(join(tmpdir(), 'wfs-integrator-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await run('npm', ['pack', ...workspaces.flatMap((workspace) => ['--workspace', workspace]), '--pack-destination', dir], { cwd: REPOSITORY });
    const tarballs = readdirSync(dir).filter((name) => name.endsWith('.tgz')).map((name) => join(dir, name));
    if (tarballs.length !== workspaces.length) throw new Error(`npm pack wrote ${tarballs.length} tarballs for ${workspaces.length} workspaces`);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-integration', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], { cwd: dir });
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Packaging does not depend on the database: it runs once, on SQLite, where the machine has its own Node. */
export function packagingSkip(): string | false {
  if (testDialect === 'postgres') return 'packaging does not depend on the database (run on SQLite)';
  return existsSync(SYSTEM_NODE) ? false : `no ${SYSTEM_NODE}`;
}
