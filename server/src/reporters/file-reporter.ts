import { appendFile, mkdir, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileReporterConfig } from './reporter-config.ts';
import type { Reporter, ReporterDeps } from './reporter.ts';

/**
 * JSON lines, one event per line, rotated by size: before a line would take the file past max_bytes it becomes
 * path.1 (path.1 → path.2 …, the oldest beyond max_files is overwritten). Writes are batched and sequential.
 */
export const fileReporter = (config: FileReporterConfig, deps: ReporterDeps): Reporter => {
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

  const kick = () => {
    writing ??= writeAll()
      .catch((err: unknown) => {
        // The size is re-read next time: a failed append may have written part of a batch.
        size = undefined;
        deps.metrics.reporterOutcome('file', 'failed', Math.max(1, pending));
        log.error({ err }, 'could not write the event log file');
      })
      .finally(() => {
        writing = undefined;
        if (queue.length > 0) kick();
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
      while (writing) await writing;
    },
  };
};
