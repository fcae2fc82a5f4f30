// A suite file's problems, each after its line and column when it has
// them, in the order given; a message is shown as text.
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import ProblemList from './ProblemList.svelte';

describe('ProblemList', () => {
  it('puts each problem after its line:column, its line alone, or nothing', () => {
    render(ProblemList, {
      problems: [
        { file: 'geo.yaml', line: 4, column: 7, message: 'unknown field "contain" (did you mean "contains"?)' },
        { file: 'geo.yaml', line: 9, column: 0, message: 'a case needs an id' },
        { file: 'geo.yaml', line: 0, column: 0, message: 'The file is empty.' },
        { file: 'geo.yaml', line: 2, column: 1, message: '<img src=x onerror=alert(1)>' },
      ],
    });
    const items = screen.getAllByRole('listitem').map((li) => li.textContent);
    expect(items).toEqual([
      'line 4:7: unknown field "contain" (did you mean "contains"?)',
      'line 9: a case needs an id',
      'The file is empty.',
      'line 2:1: <img src=x onerror=alert(1)>',
    ]);
    expect(document.querySelector('img')).toBeNull();
  });

  it('is an empty list when there is nothing wrong', () => {
    render(ProblemList, { problems: [] });
    expect(screen.getByRole('list').children).toHaveLength(0);
  });
});
