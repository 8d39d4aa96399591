import { describe, expect, it } from 'vitest';
import { addEdge, findCycle, removeEdge, removeNode } from '../src/core/dependencies/graph.ts';

describe('dependency graph', () => {
  it('refuses a self edge and a two-node cycle, and names the path', () => {
    expect(findCycle({}, 'a', 'a')).toEqual(['a', 'a']);
    const g = addEdge({}, 'b', 'a');
    expect(findCycle(g, 'a', 'b')).toEqual(['a', 'b', 'a']);
  });

  it('finds long cycles across agents and allows diamonds', () => {
    let g = addEdge({}, 'p:1', 's1:1');
    g = addEdge(g, 's1:1', 's2:1');
    g = addEdge(g, 'p:1', 's2:1');
    expect(findCycle(g, 's2:1', 'p:1')).toEqual(['s2:1', 'p:1', 's1:1', 's2:1']);
    expect(findCycle(g, 'p:2', 'p:1')).toBeUndefined();
  });

  it('forgets resolved edges and deleted nodes', () => {
    let g = addEdge(addEdge({}, 'a', 'b'), 'c', 'b');
    g = removeEdge(g, 'a', 'b');
    expect(g).toEqual({ c: ['b'] });
    expect(removeNode(g, 'b')).toEqual({});
    expect(addEdge(addEdge({}, 'a', 'b'), 'a', 'b')).toEqual({ a: ['b'] });
  });
});
