import { describe, expect, it } from 'vitest';
import { href, parseRoute } from '../../server/src/dashboard/web/router.ts';

describe('the dashboard router', () => {
  it('reads the views of its own workspace, percent-escapes decoded', () => {
    expect(parseRoute('#/ws/my%20ws/graph', 'my ws')).toEqual({ view: 'graph' });
    expect(parseRoute('#/ws/ws/plan/p%2F1/step/s%201', 'ws')).toEqual({ view: 'step', planId: 'p/1', stepId: 's 1' });
    expect(parseRoute(href('ws', { view: 'plan', planId: 'a/b%' }), 'ws')).toEqual({ view: 'plan', planId: 'a/b%' });
    expect(parseRoute('#/ws/other/graph', 'ws')).toEqual({ view: 'overview' });
  });

  it('takes a malformed escape (a truncated link) for the overview instead of throwing', () => {
    for (const hash of ['#/ws/ws/plan/%E0%A4%A', '#/ws/%E0%A4%A/graph', '#/ws/ws/plan/p/step/%', '#/ws/%'])
      expect(parseRoute(hash, 'ws'), hash).toEqual({ view: 'overview' });
  });
});
