import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The package's own version: its package.json is one level above dist/cli.js, two above src/cli/. */
const readVersion = (): string => {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = require(path) as { name?: string; version?: string };
      if (pkg.name === '@planhub/client-sdk' && pkg.version) return pkg.version;
    } catch {
      // Not at this level: the other layout.
    }
  }
  return '0.0.0';
};

export const VERSION = readVersion();
