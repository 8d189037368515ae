// The worker thread behind NodeSqliteDatabase.checkpointInBackground: its own connection to the
// database file, copying the write-ahead log back into the database every few hundred milliseconds
// (a PASSIVE checkpoint: it never waits for, nor blocks, the server's readers and writers).
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new DatabaseSync(path);
// This connection only checkpoints; it must never checkpoint as a side effect of anything else.
db.exec('PRAGMA wal_autocheckpoint = 0');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch (error) {
    parentPort?.postMessage({ error: (error as Error).message });
  }
}, intervalMs);

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
