import { closeSync, mkdirSync, openSync } from 'node:fs';
import { appendFile, mkdir, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError } from '../config-error.ts';
import type { FileReporterConfig } from './reporter-config.ts';
import type { Reporter, ReporterDeps } from './reporter.ts';

/** The longest wait between attempts to write while writes fail (a full disk, a folder removed): backoff's cap. */
const MAX_RETRY_MS = 30_000;
const FIRST_RETRY_MS = 500;

/**
 * Whether the node can write `path` at all, checked once at startup: a folder it may not create (the docs' example
 * /var/log/planhub for a node that does not run as root) is the operator's to fix, so the node does not start.
 */
const checkWritable = (path: string) => {
  try {
    mkdirSync(dirname(path), { recursive: true });
    closeSync(openSync(path, 'a'));
  } catch (err) {
    throw new ConfigError(
      `the file reporter cannot write ${path} (${err instanceof Error ? err.message : String(err)}); make its ` +
        "folder writable by the node's user, or set another path in planhub.json (reporters[].path).",
    );
  }
};

/**
 * JSON lines, one event per line, rotated by size: before a line would take the file past max_bytes it becomes
 * path.1 (path.1 → path.2 …, the oldest beyond max_files is overwritten). Writes are batched and sequential.
 */
export const fileReporter = (config: FileReporterConfig, deps: ReporterDeps): Reporter => {
  checkWritable(config.path);
  const log = deps.log.child({ module: 'reporter', reporter: 'file', path: config.path });
  const queue: string[] = [];
  let size: number | undefined;
  let writing: Promise<void> | undefined;
  /** Lines of the batch being written, counted as failed if the write fails. */
  let pending = 0;

  const rotate = async () => {
    for (let i = config.max_files - 1; i >= 1; i--)
      await rename(`${config.path}.${i}`, `${config.path}.${i + 1}`).catch(() => undefined);
    await rename(config.path, `${config.path}.1`).catch(() => undefined);
    size = 0;
  };

  const writeAll = async () => {
    await mkdir(dirname(config.path), { recursive: true });
    size ??= await stat(config.path).then(
      (s) => s.size,
      () => 0,
    );
    while (queue.length > 0) {
      const lines = queue.splice(0, queue.length);
      pending = lines.length;
      let chunk = '';
      let chunkBytes = 0;
      for (const line of lines) {
        const bytes = Buffer.byteLength(line);
        if (size + chunkBytes + bytes > config.max_bytes && size + chunkBytes > 0) {
          if (chunk) await appendFile(config.path, chunk);
          await rotate();
          chunk = '';
          chunkBytes = 0;
        }
        chunk += line;
        chunkBytes += bytes;
      }
      if (chunk) await appendFile(config.path, chunk);
      size += chunkBytes;
      pending = 0;
      deps.metrics.reporterOutcome('file', 'delivered', lines.length);
    }
  };

  /** Writes that failed in a row; while there are any, the next attempt waits (backoff), and a success resets it. */
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const kick = () => {
    if (writing || retry) return;
    writing = writeAll()
      .then(
        () => {
          failures = 0;
        },
        (err: unknown) => {
          // The size is re-read next time: a failed append may have written part of a batch.
          size = undefined;
          failures += 1;
          deps.metrics.reporterOutcome('file', 'failed', Math.max(1, pending));
          log.error({ err, failures }, 'could not write the event log file; retrying with backoff');
        },
      )
      .finally(() => {
        writing = undefined;
        if (queue.length === 0) return;
        if (failures === 0) return kick();
        // Retried at once, a failure that persists (the folder was removed, the disk is full) spun the node at full
        // CPU writing error lines; the queue meanwhile stays within max_queue (later events are dropped, counted).
        retry = setTimeout(
          () => {
            retry = undefined;
            kick();
          },
          Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (failures - 1)),
        );
        retry.unref();
      });
  };

  return {
    name: 'file',
    report(event) {
      if (queue.length >= config.max_queue) {
        deps.metrics.reporterOutcome('file', 'dropped');
        return;
      }
      queue.push(`${JSON.stringify(event)}\n`);
      kick();
    },
    async close() {
      // One last attempt for what waits out a backoff; what still cannot be written is lost with the node.
      if (retry) {
        clearTimeout(retry);
        retry = undefined;
        kick();
      }
      while (writing) await writing;
      clearTimeout(retry);
    },
  };
};
