/**
 * Whether a POST's JSON-RPC body only completes the session's opening (`notifications/initialized`, which every
 * client sends after the initialize answer). Such a session was never used: its host did not list a tool, call
 * one, or open its event stream, so it is soon ended (session-registry.ts), and may be ended for another.
 */
export const isHandshakeOnly = (parsed: unknown): boolean => {
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return (
    messages.length > 0 &&
    messages.every(
      (m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'notifications/initialized',
    )
  );
};
