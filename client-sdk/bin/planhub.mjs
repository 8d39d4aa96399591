#!/usr/bin/env node
// Development launcher: runs the CLI from its TypeScript source. The published package runs dist/cli.js instead.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
