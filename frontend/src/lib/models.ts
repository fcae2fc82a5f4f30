// What a model picker suggests. Servers list their models at /models, but
// many list only some, or none (gateways, proxies, Azure deployments), so
// a picker takes any name typed: the listed models, and the provider's
// saved default, are suggestions, and a name typed is offered as
// "Use “name”" on the provider chosen (or on the provider it names first,
// "second/name", when that is a provider).

/** A provider's models as a picker knows them. */
export interface ModelGroup {
  provider: string;
  /** What the server listed, or the saved list. */
  models: readonly string[];
  /** The provider's saved default model, listed or not. */
  defaultModel?: string;
}

export interface ModelOption {
  provider: string;
  model: string;
  /** A name typed, offered as itself ("Use “name”"). */
  typed?: boolean;
  /** The provider's saved default. */
  isDefault?: boolean;
}

export interface Suggestions {
  /** Names typed, to use as they are. */
  typed: ModelOption[];
  /** The suggestions of each provider that match what is typed. */
  groups: Array<{ provider: string; options: ModelOption[] }>;
}

/**
 * The suggestions for what is typed in a picker now showing current. An
 * empty query (or the current model, unchanged) matches everything.
 */
export function suggest(groups: readonly ModelGroup[], query: string, current: { provider: string; model: string }): Suggestions {
  const q = query.trim();
  const filtering = q !== '' && q !== current.model;
  const needle = q.toLowerCase();
  const out: Suggestions = { typed: [], groups: [] };
  for (const g of groups) {
    const names = [g.defaultModel, ...g.models, g.provider === current.provider ? current.model : ''].filter((m): m is string => !!m);
    const options = [...new Set(names)]
      .filter((m) => !filtering || `${g.provider}/${m}`.toLowerCase().includes(needle))
      .map((m): ModelOption => ({ provider: g.provider, model: m, isDefault: m === g.defaultModel || undefined }));
    out.groups.push({ provider: g.provider, options });
  }
  if (!filtering) return out;
  const listed = (o: ModelOption) => out.groups.some((g) => g.provider === o.provider && g.options.some((x) => x.model === o.model));
  for (const o of typedOptions(groups, q, current.provider)) {
    if (!listed(o)) out.typed.push(o);
  }
  return out;
}

/**
 * What a name typed means: the model of that name on the provider chosen
 * (the first provider when none is); and when it starts with the name of
 * another provider and a slash, also that provider's model. Model names
 * may hold slashes ("meta-llama/Llama-3.1-8B"), so the first stays first.
 */
export function typedOptions(groups: readonly ModelGroup[], text: string, provider: string): ModelOption[] {
  const q = text.trim();
  if (!q || groups.length === 0) return [];
  const here = groups.some((g) => g.provider === provider) ? provider : groups[0]!.provider;
  const out: ModelOption[] = [{ provider: here, model: q, typed: true }];
  const i = q.indexOf('/');
  const named = i > 0 ? q.slice(0, i) : '';
  const rest = q.slice(i + 1).trim();
  if (named && named !== here && rest && groups.some((g) => g.provider === named)) out.push({ provider: named, model: rest, typed: true });
  return out;
}
