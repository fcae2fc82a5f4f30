// Preferences, providers, their models, workflows, and the theme.
import { derived, get, writable, type Readable } from 'svelte/store';
import { messageOf, type Backend } from '../api';
import type { Detected, Provider, ProviderInput, ProviderView, Settings, WorkflowList } from '../types';

export type SettingsBackend = Pick<
  Backend,
  'getSettings' | 'saveSettings' | 'listProviders' | 'presets' | 'saveProvider' | 'deleteProvider' | 'testProvider' | 'detectLocal' | 'listWorkflows'
>;

export const defaultSettings = (): Settings => ({
  default_provider: '',
  default_model: '',
  default_workflow: 'chat',
  limits: { max_steps: 0, max_tool_calls: 0, token_budget: 0, timeout: 0, stall_threshold: 0, max_tool_output: 0 },
  capture: 'record',
  theme: 'system',
});

export function createSettings(backend: SettingsBackend) {
  const settings = writable<Settings>(defaultSettings());
  const providers = writable<ProviderView[]>([]);
  const presets = writable<Provider[]>([]);
  const workflows = writable<WorkflowList>({ workflows: [], problems: [] });
  /** Models by provider name: the saved list, or what a connection test found. */
  const models = writable<Record<string, string[]>>({});
  const error = writable('');

  const modelsOf: Readable<(provider: string) => string[]> = derived([providers, models], ([ps, ms]) => (name: string) => {
    const fromTest = ms[name];
    if (fromTest?.length) return fromTest;
    const p = ps.find((x) => x.name === name);
    return p?.models ?? [];
  });

  /**
   * The model a provider runs when none is named: a session, a draft or
   * the defaults with a provider but no model use the provider's saved
   * default, listed by its server or not.
   */
  function modelFor(provider: string, model: string): string {
    return model || get(providers).find((p) => p.name === provider)?.default_model || '';
  }

  async function tryLoad<T>(fn: () => Promise<T>, apply: (v: T) => void) {
    try {
      apply(await fn());
    } catch (err) {
      error.set(messageOf(err));
    }
  }

  /** Providers whose server was asked for its models (once each, not on every picker shown). */
  const asked = new Set<string>();

  // A saved provider with no saved models lists them from its server, once.
  async function askModels(p: ProviderView) {
    if (asked.has(p.name) || p.models?.length || get(models)[p.name]?.length) return;
    asked.add(p.name);
    try {
      const reply = await backend.testProvider({ provider: p });
      if (reply.ok) models.update((m) => ({ ...m, [p.name]: reply.models ?? [] }));
    } catch {
      // The picker keeps what it has; Settings → Test connection asks again.
    }
  }

  async function reloadProviders() {
    await tryLoad(() => backend.listProviders(), (v) => providers.set(v ?? []));
    await Promise.all(get(providers).map(askModels));
  }

  return {
    settings,
    providers,
    presets,
    workflows,
    models,
    modelsOf,
    modelFor,
    error,

    async load() {
      await Promise.all([
        tryLoad(() => backend.getSettings(), (v) => settings.set({ ...defaultSettings(), ...v, limits: { ...defaultSettings().limits, ...(v?.limits ?? {}) } })),
        reloadProviders(),
        tryLoad(() => backend.presets(), (v) => presets.set(v ?? [])),
        tryLoad(() => backend.listWorkflows(), (v) => workflows.set({ workflows: v?.workflows ?? [], problems: v?.problems ?? [] })),
      ]);
    },

    async save(s: Settings) {
      await backend.saveSettings(s);
      settings.set(s);
    },

    reloadProviders,

    async saveProvider(input: ProviderInput) {
      await backend.saveProvider(input);
      asked.delete(input.provider.name);
      await reloadProviders();
      // A first provider becomes the default.
      const s = get(settings);
      if (!s.default_provider) {
        const model = input.provider.default_model || input.provider.models?.[0] || '';
        await this.save({ ...s, default_provider: input.provider.name, default_model: s.default_model || model });
      }
    },

    async deleteProvider(name: string) {
      await backend.deleteProvider(name);
      await reloadProviders();
    },

    /** Tests a provider; the models it lists become its choices. */
    async test(input: ProviderInput) {
      const reply = await backend.testProvider(input);
      if (reply.ok) models.update((m) => ({ ...m, [input.provider.name]: reply.models ?? [] }));
      return reply;
    },

    async detect(): Promise<Detected[]> {
      return (await backend.detectLocal()) ?? [];
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettings>;
