#!/usr/bin/env node
// The `planhub` bin, committed rather than built, so installing the workspace can link it before any build has run.
// In the checkout it runs the CLI from its TypeScript source, so a change shows without a rebuild; the packed package
// ships no src/ and no tsx, and runs the built dist/cli.js.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli.js');
}
