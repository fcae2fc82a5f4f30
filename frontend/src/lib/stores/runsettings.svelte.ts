// The layer of settings a dialog edits (a session's, a project's, the
// app's defaults), with what the layers below it give (so a field left
// unset shows what it inherits, and from where), and what is wrong with
// it. A draft never saves itself: its dialog loads it, checks `valid`,
// and saves `layer()` with the call for that layer.
import { messageOf, type Backend } from '../api';
import { appLayer, cleanLayer, problemsOf, resolveLayers, type Layer, type LayerLabels, type Problems } from '../runsettings';
import type { Project, Resolved, RunSettings, Session, Settings } from '../types';

export class LayerDraft {
  /** This layer's values; a field left undefined inherits. */
  value = $state<RunSettings>({});
  /** What the layers below give, and which layer gives each field. */
  inherited = $state.raw<Resolved>({ settings: {}, from: {} });
  /** Each layer below in words ("app defaults", "project Research"). */
  labels = $state.raw<LayerLabels>({});
  readonly problems: Problems = $derived(problemsOf(this.value));
  readonly valid = $derived(Object.keys(this.problems).length === 0);

  constructor(value: RunSettings, below: Layer[] = [], labels: LayerLabels = {}) {
    this.value = structuredClone(value ?? {});
    this.inherited = resolveLayers(below);
    this.labels = labels;
  }

  /** The layer as it is saved: unset fields left out. */
  layer(): RunSettings {
    return cleanLayer($state.snapshot(this.value) as RunSettings);
  }
}

/** The labels of the layers below a session or a project. */
export function labelsFor(project: Pick<Project, 'name'> | null): LayerLabels {
  return { app: 'app defaults', ...(project ? { project: `project ${project.name}` } : {}) };
}

/** A session's own layer, over the app's defaults and its project's. */
export async function sessionDraft(backend: Pick<Backend, 'getProject'>, s: Session, st: Settings): Promise<LayerDraft> {
  const project = s.project_id ? await backend.getProject(s.project_id) : null;
  const below: Layer[] = [{ name: 'app', settings: appLayer(st) }];
  if (project) below.push({ name: 'project', settings: project.settings ?? {} });
  return new LayerDraft(s.settings ?? {}, below, labelsFor(project));
}

/** A project's layer, over the app's defaults. */
export function projectDraft(p: Project, st: Settings): LayerDraft {
  return new LayerDraft(p.settings ?? {}, [{ name: 'app', settings: appLayer(st) }], labelsFor(null));
}

/**
 * A dialog's loading and saving of one draft: the error of either shown
 * in the dialog, a save refused while the draft has problems.
 */
export class LayerForm {
  draft = $state.raw<LayerDraft | null>(null);
  error = $state('');
  saving = $state(false);

  async load(fn: () => Promise<LayerDraft>) {
    this.error = '';
    try {
      this.draft = await fn();
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  /** Saves the draft's layer with put; true when it went through. */
  async save(put: (layer: RunSettings) => Promise<void>): Promise<boolean> {
    const d = this.draft;
    if (!d || this.saving) return false;
    if (!d.valid) {
      this.error = 'Some values are not valid (marked above): nothing was saved.';
      return false;
    }
    this.error = '';
    this.saving = true;
    try {
      await put(d.layer());
      return true;
    } catch (err) {
      this.error = messageOf(err);
      return false;
    } finally {
      this.saving = false;
    }
  }
}
