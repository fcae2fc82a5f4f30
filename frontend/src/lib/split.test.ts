import { describe, expect, it } from 'vitest';
import { splitBlocks } from './markdown';

describe('splitBlocks', () => {
  it('keeps short text whole', () => {
    expect(splitBlocks('Hello\n\nworld', 2000)).toEqual(['Hello\n\nworld']);
  });

  it('splits only at blank lines and loses nothing', () => {
    const para = 'word '.repeat(100).trim();
    const src = Array.from({ length: 30 }, () => para).join('\n\n');
    const parts = splitBlocks(src, 1000);
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.join('')).toBe(src);
    for (const p of parts.slice(0, -1)) expect(p.endsWith('\n\n')).toBe(true);
  });

  it('never splits inside a code fence', () => {
    const code = '```js\n' + 'x = 1\n\n'.repeat(400) + '```\n';
    const src = 'intro\n\n' + code + '\noutro';
    const parts = splitBlocks(src, 100);
    expect(parts.join('')).toBe(src);
    const withFence = parts.find((p) => p.includes('```js'))!;
    expect(withFence.split('```').length - 1).toBe(2);
  });

  it('keeps the earlier chunks identical as text streams in', () => {
    const para = 'token '.repeat(80);
    let src = '';
    let prev: string[] = [];
    for (let i = 0; i < 40; i++) {
      src += para + '\n\n';
      const parts = splitBlocks(src, 1500);
      // Every chunk but the last one is unchanged from the previous step.
      for (let j = 0; j < Math.min(prev.length, parts.length) - 1; j++) expect(parts[j]).toBe(prev[j]);
      prev = parts;
    }
  });
});
