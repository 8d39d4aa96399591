import { compareEventIds } from '@planhub/shared';

/**
 * Where a session's waitForEvents continues in the workspace's event log. It advances only past events looked at
 * and returned; a subscription with after_event can move it back, and a wait that was running meanwhile then must
 * not move it forward over the rewind.
 */
export class SessionCursor {
  constructor(private current: string) {}

  get position(): string {
    return this.current;
  }

  /** Moves from `from` to `to`, unless the cursor was rewound since `from` was read. */
  advance(from: string, to: string): void {
    if (this.current === from) this.current = to;
  }

  /** The model names where to continue (an id it got earlier, possibly in another session). */
  moveTo(to: string): void {
    this.current = to;
  }

  rewind(to: string): boolean {
    if (compareEventIds(to, this.current) >= 0) return false;
    this.current = to;
    return true;
  }
}
