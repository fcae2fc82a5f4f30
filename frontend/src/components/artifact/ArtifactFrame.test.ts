import { render } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import ArtifactFrame from './ArtifactFrame.svelte';

describe('ArtifactFrame', () => {
  it('is the loader in a frame sealed to scripts alone', () => {
    const { getByTitle } = render(ArtifactFrame, { kind: 'html', content: '<p>hi</p>', title: 'Hi' });
    const frame = getByTitle('Artifact: Hi') as HTMLIFrameElement;
    expect(frame.getAttribute('src')).toBe('/artifact.html');
    expect(frame.getAttribute('sandbox')).toBe('allow-scripts');
    expect(frame.getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(frame.getAttribute('allow')).toBe('');
    expect(frame.hasAttribute('srcdoc')).toBe(false);
  });

  it('posts the document once, after the first load, and never listens to the frame', () => {
    const listen = vi.spyOn(window, 'addEventListener');
    const { getByTitle } = render(ArtifactFrame, { kind: 'svg', content: '<svg></svg>', title: 'Pic' });
    const frame = getByTitle('Artifact: Pic') as HTMLIFrameElement;
    const post = vi.fn();
    Object.defineProperty(frame, 'contentWindow', { value: { postMessage: post } });
    frame.dispatchEvent(new Event('load'));
    frame.dispatchEvent(new Event('load'));
    expect(post).toHaveBeenCalledTimes(1);
    expect(post.mock.calls[0]![0]).toContain('<body><svg></svg></body>');
    expect(post.mock.calls[0]![1]).toBe('*');
    expect(listen.mock.calls.filter(([type]) => type === 'message')).toEqual([]);
    listen.mockRestore();
  });
});
