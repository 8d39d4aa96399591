import type { ServerResponse } from 'node:http';

export interface EventStreamGuardOptions {
  maxBytes: number;
  /** Runs once per stream cut, with what was queued for it. */
  onCut: (queuedBytes: number) => void;
}

const byteLength = (chunk: unknown): number =>
  typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0;

/**
 * Bounds what the node holds for a session's GET event stream, as `transport/outbound-limit.ts` does for a socket.
 *
 * The SDK puts each message for that stream in a web ReadableStream, which @hono/node-server copies into the
 * response only while the response is under its high-water mark. So for a client that stops reading, the response
 * itself (`writableLength`) holds about one message and the rest piles up in the SDK's stream, which has no bound.
 * What sits there is what was offered to the stream less what reached the response: this counts both sides.
 */
export class EventStreamGuard {
  private res: ServerResponse | undefined;
  /** Bytes offered and written since the stream last had nothing waiting in the SDK's stream. */
  private offered = 0;
  private written = 0;
  /** Bytes that left the response for the kernel, as of the previous keepingUp(). */
  private leftBefore = 0;
  private totalWritten = 0;
  private peakBytes = 0;

  constructor(private readonly options: EventStreamGuardOptions) {}

  /**
   * Watches the response of a GET of the session. A second GET while one is open is refused by the SDK (409), so
   * only the first is the stream.
   */
  watch(res: ServerResponse): void {
    if (this.res) return;
    this.res = res;
    this.offered = this.written = this.leftBefore = this.totalWritten = 0;
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      const bytes = byteLength(chunk);
      this.written += bytes;
      this.totalWritten += bytes;
      // The SDK's keep-alive comments are written but never offered: counting restarts whenever nothing waits.
      if (this.written >= this.offered) this.offered = this.written = 0;
      return write(chunk, ...rest);
    }) as typeof res.write;
    // Whatever was still waiting is dropped with the stream (the SDK cancels it when the response closes).
    res.once('close', () => {
      if (this.res === res) this.res = undefined;
    });
  }

  /** Whether a GET stream of the session is open: its host is there, even when nothing was sent for a while. */
  get open(): boolean {
    return this.res !== undefined;
  }

  /** Bytes waiting for the client on this node: in the SDK's stream, the response and the socket. */
  queued(): number {
    if (!this.res) return 0;
    return Math.max(0, this.offered - this.written) + this.res.writableLength;
  }

  /** The most ever queued for this session's stream. */
  get peak(): number {
    return this.peakBytes;
  }

  /**
   * Called before the SDK queues a message of `bytes()` for the stream. False when the stream is past the limit: it is
   * cut (closed through `cut`, which must end the response) and the message is not sent. The size is asked only while
   * a stream is open: measuring means serializing the message, which a session without a stream would do for nothing.
   */
  admit(bytes: () => number, cut: () => void): boolean {
    const res = this.res;
    if (!res) return true;
    const queued = this.queued();
    if (queued > this.options.maxBytes) {
      this.drop(cut);
      this.options.onCut(queued);
      return false;
    }
    const size = bytes();
    this.offered += size;
    this.peakBytes = Math.max(this.peakBytes, queued + size);
    return true;
  }

  /**
   * Cuts the open stream (closed through `cut`, which must end the response) and drops what waited for it; answers
   * how much that was (0 with no stream open).
   */
  drop(cut: () => void): number {
    const res = this.res;
    if (!res) return 0;
    const queued = this.queued();
    this.res = undefined;
    cut();
    // Destroying the response makes the SDK's stream cancel, which drops what was waiting in it.
    res.destroy();
    return queued;
  }

  /** Ends the stream with its session: what waits in the SDK's stream is dropped rather than held for the client. */
  close(): void {
    this.res?.destroy();
    this.res = undefined;
  }

  /**
   * Whether the stream shows its client is reading: it is open and either nothing waits on this node or bytes left
   * it since the previous call. A stream that stalls with events waiting stops keeping its session alive.
   */
  keepingUp(): boolean {
    if (!this.res) return false;
    const left = this.totalWritten - this.res.writableLength;
    const moved = left > this.leftBefore;
    this.leftBefore = left;
    return moved || this.queued() === 0;
  }
}
