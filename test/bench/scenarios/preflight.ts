import type { SessionFactory } from '../load/sessions.ts';
import { nextTag } from '../load/sessions.ts';

/**
 * Tries one sample of a cross-node scenario before measuring it, so a feature that is missing (a tool not yet
 * implemented, events not pushed) is reported as "not measured" with the reason instead of as a slow figure.
 */
export const tryOnce = async (factory: SessionFactory, timeoutMs = 5000): Promise<true | string> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer or event within ${timeoutMs} ms`)), timeoutMs);
  });
  let close: (() => void) | undefined;
  try {
    await Promise.race([
      (async () => {
        const session = await factory(nextTag());
        close = () => session.close();
        await session.send(0);
      })(),
      timeout,
    ]);
    return true;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
    close?.();
  }
};
