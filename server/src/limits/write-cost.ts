/**
 * Documents a commit writes per unit of the caller's call budget, past the few a call writes anyway. A call costs
 * its frame, but a small frame can write a lot: createPlan with 200 one-character steps (852 bytes, 1 unit) wrote
 * 202 documents for 9 ms of node CPU on memory and 21-26 ms on Redis, and one agent repeating it at 6 calls a
 * second took another workspace's p99 from 25 ms to 835 ms. At 4 documents a unit that plan costs about 50 units, so
 * an agent's budget (200 a second) buys four such plans a second.
 */
export const DOCUMENTS_PER_UNIT = 4;

/** Documents any call may write at no extra cost: a step change writes one or two, a small plan a handful. */
export const FREE_DOCUMENTS = 8;

import { ANSWER_BYTES_PER_UNIT } from './answer-cost.ts';

/** What writing `documents` costs beyond the call itself. */
export const writeCost = (documents: number): number =>
  Math.floor(Math.max(0, documents - FREE_DOCUMENTS) / DOCUMENTS_PER_UNIT);

/**
 * What handing an output to waiting steps costs: `bytes` is what the commit's fan-ins record (each waiter's copy of
 * the output), and each copy is written twice, into the waiting step's received outputs and into the event that
 * unblocks it, charged at an answer's rate. A completion whose output 200 steps waited on wrote 200 events of 60 KB in
 * one Redis script (406-619 ms, every tenant of that Redis waiting) and cost what a completion without waiters costs.
 */
export const recordCost = (bytes: number): number => Math.floor((2 * bytes) / ANSWER_BYTES_PER_UNIT);
