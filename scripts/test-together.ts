// Runs the test files named on the command line in this one process, one after the other, so the
// ~1,500 modules of the app load once for all of them instead of once per file (about 1.3 s of CPU
// each). Each file is imported inside a test named after it, when its turn comes: its top-level tests
// and hooks (`before`, `after`, the servers of `useTestServer`) become that test's own, and what the
// file builds at import (a ManualClock, a fixture's date) is built just before its tests run, as in a
// process of its own. `--test-isolation=none` would instead import every file first and run every
// file's `before` at the start. Started by scripts/test.ts; `node scripts/test-together.ts
// test/a.test.ts …` works alone too.
import { test } from 'node:test';
import { appendFileSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/test-together.ts <test file>…');
  process.exit(2);
}

/** CPU seconds of this process and of the processes it waited for (Linux); else of this process alone. */
function cpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime, stime, cutime, cstime (fields 14–17), in ticks of 1/100 s.
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  }
}

/** With WFS_TEST_COSTS=<file>: one JSON line per test file, its wall and CPU seconds. */
function costRecorder(file: string): () => void {
  const costs = process.env.WFS_TEST_COSTS;
  const started = performance.now();
  const cpu = cpuSeconds();
  return () => {
    if (!costs) return;
    appendFileSync(costs, `${JSON.stringify({ file, wall: (performance.now() - started) / 1000, cpu: cpuSeconds() - cpu })}\n`);
  };
}

for (const file of files) {
  const name = relative(process.cwd(), resolve(file));
  test(name, async (t) => {
    const record = costRecorder(name);
    await import(pathToFileURL(resolve(file)).href);
    // Registered after the file's own `after` hooks, so it runs after them.
    t.after(record);
  });
}
