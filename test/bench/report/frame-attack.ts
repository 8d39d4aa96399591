import { ATTACK_FRAME_KEYS, ATTACK_FRAMES_PER_SECOND } from '../../security/support/cpu-attack-driver.ts';
import { BYSTANDER_RATE } from '../frame-attack/shape.ts';
import type { RatioSpec } from './ratio-table.ts';
import { bystanderTable } from './bystander-table.ts';
import { formatNumber } from './render.ts';
import type { BenchResults } from './results.ts';

/**
 * The huge-frame attack's target: a frame refused on its raw text must cost the node so little that another
 * workspace's tail latency at most doubles. Held by the security suite as a timed test until it moved here.
 */
export const FRAME_ATTACK_RATIO_SPECS: readonly RatioSpec[] = [
  {
    label:
      `bystander p99 under a huge-frame attack ÷ quiet p99 (${ATTACK_FRAME_KEYS.toLocaleString('en')}-key frames, ` +
      `${ATTACK_FRAMES_PER_SECOND}/s; ${BYSTANDER_RATE} calls/s)`,
    unit: 'ms',
    numerator: (r) => r.frameAttack?.loud.p99,
    denominator: (r) => r.frameAttack?.quiet.p99,
    target: { op: '<=', value: 2, source: 'security' },
  },
];

/** The bystander's latency in both kinds of phase, and what the attacker was answered. */
export const frameAttackTable = (results: BenchResults, style: 'text' | 'markdown'): string => {
  const a = results.frameAttack;
  if (!a) return '';
  const table = bystanderTable(a.quiet, a.loud, 'under attack', style);
  const answers = Object.entries(a.answersByCode)
    .map(([code, n]) => `${n} ${code}`)
    .join(', ');
  return (
    `${table}\n\n${a.rounds} quiet/loud pairs of ${formatNumber(a.phaseMs)} ms per repetition at ` +
    `${a.rate} calls/s; frames of ${a.frameKeys} keys (${a.frameBytes} bytes), ${a.framesPerSecond}/s. ` +
    `Attacker's answers: ${answers || 'none'}; not refused by the raw-text scan: ${a.notRefusedByScan}.`
  );
};

/** What the report must say about the attack besides its figures: frames the frame guard did not stop. */
export const frameAttackNotes = (results: BenchResults): string[] => {
  const a = results.frameAttack;
  if (!a) return [];
  const notes: string[] = [];
  if (a.notRefusedByScan > 0)
    notes.push(`frame attack: ${a.notRefusedByScan} frames were not refused by the raw-text scan (see its answers).`);
  if (a.quiet.errors + a.loud.errors > 0)
    notes.push(
      `frame attack: ${a.quiet.errors + a.loud.errors} bystander calls failed or went unanswered` +
        ((a.loud.firstError ?? a.quiet.firstError) ? ` (first: ${a.loud.firstError ?? a.quiet.firstError})` : '') +
        '.',
    );
  return notes;
};
