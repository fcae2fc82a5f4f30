/* eslint-disable svelte/prefer-svelte-reactivity -- the Maps and Sets here are scratch inside a method, or values held in $state.raw and replaced whole, never changed in place. */
// Preferences, providers, their models, workflows, and the theme.
import { messageOf, type Backend } from '../api';
import type { ModelGroup } from '../models';
import type { Detected, ExporterStatus, Provider, ProviderInput, ProviderView, Settings, WorkflowList } from '../types';

export type SettingsBackend = Pick<
  Backend,
  | 'getSettings'
  | 'saveSettings'
  | 'listProviders'
  | 'presets'
  | 'saveProvider'
  | 'deleteProvider'
  | 'testProvider'
  | 'detectLocal'
  | 'listWorkflows'
>;

export const defaultSettings = (): Settings => ({
  default_provider: '',
  default_model: '',
  default_workflow: 'chat',
  limits: { max_steps: 0, max_tool_calls: 0, token_budget: 0, timeout: 0, stall_threshold: 0, max_tool_output: 0 },
  capture: 'record',
  theme: 'system',
  defaults: {},
});

export class SettingsStore {
  #backend: SettingsBackend;
  settings = $state.raw<Settings>(defaultSettings());
  providers = $state.raw<ProviderView[]>([]);
  presets = $state.raw<Provider[]>([]);
  workflows = $state.raw<WorkflowList>({ workflows: [], problems: [] });
  /** Models by provider name: the saved list, or what a connection test found. */
  models = $state.raw<Record<string, string[]>>({});
  error = $state('');
  /** The OpenTelemetry export's state as the bus last pushed it (null: none pushed yet; Settings → Observability reads it first). */
  traces = $state.raw<ExporterStatus | null>(null);
  /** Providers whose server was asked for its models (once each, not on every picker shown). */
  #asked = new Set<string>();

  constructor(backend: SettingsBackend) {
    this.#backend = backend;
  }

  /** Every saved provider's models to pick from, with its saved default: what a model picker suggests. */
  modelGroups(): ModelGroup[] {
    return this.providers.map((p) => ({ provider: p.name, models: this.modelsOf(p.name), defaultModel: p.default_model || undefined }));
  }

  /** The models to pick from for a provider: what a test found, else its saved list. */
  modelsOf(name: string): string[] {
    const fromTest = this.models[name];
    if (fromTest?.length) return fromTest;
    const p = this.providers.find((x) => x.name === name);
    return p?.models ?? [];
  }

  /**
   * The model a provider runs when none is named: a session, a draft or
   * the defaults with a provider but no model use the provider's saved
   * default, listed by its server or not.
   */
  modelFor(provider: string, model: string): string {
    return model || this.providers.find((p) => p.name === provider)?.default_model || '';
  }

  async #tryLoad<T>(fn: () => Promise<T>, apply: (v: T) => void) {
    try {
      apply(await fn());
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  // A saved provider with no saved models lists them from its server, once.
  async #askModels(p: ProviderView) {
    if (this.#asked.has(p.name) || p.models?.length || this.models[p.name]?.length) return;
    this.#asked.add(p.name);
    try {
      const reply = await this.#backend.testProvider({ provider: p });
      if (reply.ok) this.models = { ...this.models, [p.name]: reply.models ?? [] };
    } catch {
      // The picker keeps what it has; Settings → Test connection asks again.
    }
  }

  async reloadProviders() {
    await this.#tryLoad(
      () => this.#backend.listProviders(),
      (v) => (this.providers = v ?? []),
    );
    await Promise.all(this.providers.map((p) => this.#askModels(p)));
  }

  async load() {
    await Promise.all([
      this.#tryLoad(
        () => this.#backend.getSettings(),
        (v) => (this.settings = { ...defaultSettings(), ...v, limits: { ...defaultSettings().limits, ...(v?.limits ?? {}) } }),
      ),
      this.reloadProviders(),
      this.#tryLoad(
        () => this.#backend.presets(),
        (v) => (this.presets = v ?? []),
      ),
      this.#tryLoad(
        () => this.#backend.listWorkflows(),
        (v) => (this.workflows = { workflows: v?.workflows ?? [], problems: v?.problems ?? [] }),
      ),
    ]);
  }

  async save(s: Settings) {
    await this.#backend.saveSettings(s);
    this.settings = s;
  }

  async saveProvider(input: ProviderInput) {
    await this.#backend.saveProvider(input);
    this.#asked.delete(input.provider.name);
    await this.reloadProviders();
    // A first provider becomes the default.
    const s = this.settings;
    if (!s.default_provider) {
      const model = input.provider.default_model || input.provider.models?.[0] || '';
      await this.save({ ...s, default_provider: input.provider.name, default_model: s.default_model || model });
    }
  }

  async deleteProvider(name: string) {
    await this.#backend.deleteProvider(name);
    await this.reloadProviders();
  }

  /** Tests a provider; the models it lists become its choices. */
  async test(input: ProviderInput) {
    const reply = await this.#backend.testProvider(input);
    if (reply.ok) this.models = { ...this.models, [input.provider.name]: reply.models ?? [] };
    return reply;
  }

  async detect(): Promise<Detected[]> {
    return (await this.#backend.detectLocal()) ?? [];
  }
}
