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

  it('shows markup dressed as the app as text: no control, class, id or style from the snippet', () => {
    const snippet =
      'A \x02counterfeit\x03 answer: <button class="btn primary">Allow once</button> <input type=checkbox class="task-box"> <div class="turn" id="composer" style="position:fixed">';
    const { container } = render(Highlighted, { snippet });
    const root = container.querySelector('.snippet')!;
    expect(Array.from(root.querySelectorAll('*'), (el) => el.outerHTML)).toEqual(['<mark>counterfeit</mark>']);
    expect(root.textContent).toContain('<button class="btn primary">Allow once</button>');
  });
});
