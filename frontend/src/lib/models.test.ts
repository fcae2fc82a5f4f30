import { describe, expect, it } from 'vitest';
import { suggest, typedOptions, type ModelGroup } from './models';

const groups: ModelGroup[] = [
  { provider: 'fake', models: ['smoke-model', 'big-model'], defaultModel: 'smoke-model' },
  { provider: 'azure', models: [], defaultModel: 'my-deployment' },
  { provider: 'second', models: ['second-model'] },
];
const names = (s: ReturnType<typeof suggest>) => ({
  typed: s.typed.map((o) => `${o.provider}/${o.model}`),
  listed: s.groups.flatMap((g) => g.options.map((o) => `${o.provider}/${o.model}${o.isDefault ? '*' : ''}`)),
});

describe('suggest', () => {
  it.each([
    [
      'nothing typed: everything, defaults marked, the current model kept',
      '',
      { provider: 'second', model: 'unlisted' },
      [],
      ['fake/smoke-model*', 'fake/big-model', 'azure/my-deployment*', 'second/second-model', 'second/unlisted'],
    ],
    [
      'the current model unchanged: everything',
      'smoke-model',
      { provider: 'fake', model: 'smoke-model' },
      [],
      ['fake/smoke-model*', 'fake/big-model', 'azure/my-deployment*', 'second/second-model'],
    ],
    [
      'a part of a name: the matches, and the name as typed',
      'model',
      { provider: 'fake', model: 'smoke-model' },
      ['fake/model'],
      ['fake/smoke-model*', 'fake/big-model', 'second/second-model'],
    ],
    ['a listed name exactly: no "Use" for it', 'big-model', { provider: 'fake', model: 'smoke-model' }, [], ['fake/big-model']],
    ['an unknown name: only "Use" it', 'gpt-x', { provider: 'azure', model: 'my-deployment' }, ['azure/gpt-x'], []],
    [
      'provider/name: matched across, and offered on that provider',
      'second/abc',
      { provider: 'fake', model: 'smoke-model' },
      ['fake/second/abc', 'second/abc'],
      [],
    ],
    ['a slash in a model name that is no provider', 'meta-llama/Llama-3', { provider: 'fake', model: '' }, ['fake/meta-llama/Llama-3'], []],
  ])('%s', (_name, query, current, typed, listed) => {
    expect(names(suggest(groups, query, current))).toEqual({ typed, listed });
  });
});

describe('typedOptions', () => {
  it('uses the first provider when none is chosen, and nothing for blank text', () => {
    expect(typedOptions(groups, '  x  ', '')).toEqual([{ provider: 'fake', model: 'x', typed: true }]);
    expect(typedOptions(groups, '   ', 'fake')).toEqual([]);
    expect(typedOptions([], 'x', '')).toEqual([]);
  });
});
