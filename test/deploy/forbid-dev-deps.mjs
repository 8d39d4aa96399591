// Loaded with `node --import` in front of the built server: any attempt to load a development-only package at run
// time fails loudly, which proves the production image (which does not have them) can run the bundle.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
const DEV_ONLY = /^(tsx|esbuild|typescript|vitest|socket\\.io-client|@planhub\\/[^/]+)(\\/|$)/;
export async function resolve(specifier, context, next) {
  if (DEV_ONLY.test(specifier)) throw new Error('development-only package loaded at run time: ' + specifier);
  return next(specifier, context);
}`),
);
