import { describe, expect, it } from 'vitest';
// ioredis has no exports map: its built files are reachable as they are (patched by patches/ioredis@5.11.1.patch).
import ShardedSubscriberModule from 'ioredis/built/cluster/ShardedSubscriber.js';
import { EventEmitter } from 'node:events';

type Instance = EventEmitter;
interface ShardedSubscriber {
  getInstance(): Instance | null;
  stop(): void;
}
type Constructor = new (...args: unknown[]) => ShardedSubscriber;
// A CommonJS module with `exports.default`: interop hands over either the class or the exports object.
const imported = ShardedSubscriberModule as unknown as Constructor | { default: Constructor };
const ShardedSubscriber = 'default' in imported ? imported.default : imported;

/**
 * A Redis Cluster subscriber of ioredis drops every listener of its connection when it stops, its own 'error' one
 * included; a late push on the closing socket (an sunsubscribe from a node a failover demoted) then emitted 'error'
 * with no listener, an uncaught exception that ended a PlanHub node in the round-30 cluster review. The project's
 * patch keeps a listener.
 */
describe("ioredis' sharded subscriber once stopped", () => {
  it('has an error listener on its connection, so a late error ends nothing', () => {
    const subscriber = new ShardedSubscriber(new EventEmitter(), { host: '127.0.0.1', port: 1 }, { lazyConnect: true });
    const connection = subscriber.getInstance();
    expect(connection).not.toBeNull();
    subscriber.stop();
    expect(() =>
      connection?.emit('error', new Error('Command queue state error. Last reply: sunsubscribe,x,1')),
    ).not.toThrow();
  });
});
