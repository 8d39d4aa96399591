import { defineConfig } from 'tsdown';

/**
 * The published package: ESM JavaScript and bundled declarations in dist/. `@planhub/shared` (the zod contract) is
 * compiled in, so a consumer installs one package; its own dependencies (zod, socket.io-client, …) stay external.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli/main.ts' },
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  fixedExtension: false,
  dts: true,
  tsconfig: 'tsconfig.build.json',
  deps: { alwaysBundle: ['@planhub/shared'] },
});
