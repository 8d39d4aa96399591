import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SilentPort {
  close(): Promise<void>;
}

// Listens with a backlog of 0 and fills that queue with a connection of its own that it never accepts: from then on
// the kernel drops every SYN to the port (no SYN-ACK, no RST), as for the address of a container that vanished.
const SCRIPT = `
import select, socket, sys
port = int(sys.argv[1])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', port))
srv.listen(0)
held = []
while True:
    c = socket.socket()
    c.setblocking(False)
    c.connect_ex(('127.0.0.1', port))
    held.append(c)
    _, ready, _ = select.select([], [c], [], 0.3)
    if not ready or c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
        break
print('silent', flush=True)
sys.stdin.read()
`;

/**
 * Makes 127.0.0.1:`port` (free, e.g. a node's port right after the node was killed) silent: connections to it are
 * neither accepted nor refused. Resolves once a connection attempt already goes unanswered. Needs python3.
 */
export const silencePort = async (port: number): Promise<SilentPort> => {
  const child = spawn('python3', ['-c', SCRIPT, String(port)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'silent') resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the silent listener exited with ${code}:\n${lines.join('\n')}`)));
  });
  return {
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
};
