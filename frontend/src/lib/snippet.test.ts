import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import Highlighted from '../components/sidebar/Highlighted.svelte';
import { splitHighlights } from './snippet';

describe('splitHighlights', () => {
  it('splits marks from text', () => {
    expect(splitHighlights('a \x02match\x03 b')).toEqual([
      { text: 'a ', mark: false },
      { text: 'match', mark: true },
      { text: ' b', mark: false },
    ]);
  });

  it('flattens new lines and drops other control characters', () => {
    expect(splitHighlights('x\ny\x00z')).toEqual([{ text: 'x yz', mark: false }]);
  });
});

describe('Highlighted', () => {
  it('renders matches as <mark> and markup in the snippet as text', () => {
    const { container } = render(Highlighted, { snippet: '<img src=x onerror=alert(1)> \x02<b>found</b>\x03 <script>x</script>' });
    expect(container.querySelector('img, script, b')).toBeNull();
    const marks = container.querySelectorAll('mark');
    expect(marks).toHaveLength(1);
    expect(marks[0]!.textContent).toBe('<b>found</b>');
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>');
  });
});
