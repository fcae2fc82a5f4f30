import { describe, expect, it } from 'vitest';
import { diffPair } from './diffpair';

describe('diffPair', () => {
  const versions = ['v1', 'v2', 'v3'];
  it('compares a re-run with the turn it was re-run from, whichever is asked from', () => {
    const from = (id: string) => (id === 'v1' ? 'v3' : undefined);
    expect(diffPair('v1', 'v3', versions, from)).toEqual(['v3', 'v1']);
    expect(diffPair('v3', 'v1', versions, from)).toEqual(['v3', 'v1']);
  });
  it('compares other versions older first', () => {
    const none = () => undefined;
    expect(diffPair('v3', 'v2', versions, none)).toEqual(['v2', 'v3']);
    expect(diffPair('v1', 'v2', versions, none)).toEqual(['v1', 'v2']);
  });
});
