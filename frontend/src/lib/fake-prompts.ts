// The prompt library for the fake backend (tests and `npm run dev`), as
// backend/store/prompts.go and backend/promptfile do: names unique per
// scope ignoring case, the YAML file written and read back (the fake reads
// what it and the Go side write: a version, a list of prompts, plain,
// quoted or literal-block values).
import { BackendError } from './api';
import { variables } from './promptvars';
import type { ExportReply, Project, Prompt, PromptImport, PromptImported } from './types';

/** A prompt as the file holds it: project is a project's name. */
interface Entry {
  name: string;
  description: string;
  project: string;
  body: string;
}

export class FakePrompts {
  prompts: Prompt[] = [];

  constructor(
    private projects: () => Project[],
    private newID: () => string,
    private now: () => Date,
  ) {}

  list(projectId: string): Prompt[] {
    return this.prompts
      .filter((p) => projectId === '*' || !p.project_id || p.project_id === projectId)
      .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || Number(!!a.project_id) - Number(!!b.project_id))
      .map((p) => ({ ...p, variables: variables(p.body) }));
  }

  save(p: Prompt): Prompt {
    const name = p.name.trim();
    if (!name) throw new BackendError('invalid', 'A prompt needs a name.');
    if (/[\n\r\t]/.test(name)) throw new BackendError('invalid', "A prompt's name must be one line.");
    if (!p.body.trim()) throw new BackendError('invalid', `The prompt "${name}" has no text. Write what it should say.`);
    if (p.project_id && !this.projects().some((x) => x.id === p.project_id))
      throw new BackendError('not_found', `There is no project ${p.project_id}. It may have been deleted.`);
    if (
      this.prompts.some(
        (x) => x.id !== p.id && (x.project_id || '') === (p.project_id || '') && x.name.toLowerCase() === name.toLowerCase(),
      )
    )
      throw new BackendError(
        'conflict',
        `There is already a prompt named "${name}" ${p.project_id ? 'in this project' : 'among the global prompts'}. Pick another name, or edit that one.`,
      );
    const at = this.now().toISOString();
    const cur = p.id ? this.prompts.find((x) => x.id === p.id) : undefined;
    if (p.id && !cur) throw new BackendError('not_found', `There is no prompt ${p.id}. It may have been deleted.`);
    const saved: Prompt = {
      id: cur?.id ?? this.newID(),
      project_id: p.project_id || '',
      name,
      description: p.description.trim(),
      body: p.body,
      created_at: cur?.created_at ?? at,
      updated_at: at,
      variables: variables(p.body),
    };
    if (cur) Object.assign(cur, saved);
    else this.prompts.push(saved);
    return { ...saved };
  }

  delete(id: string) {
    if (!this.prompts.some((p) => p.id === id)) throw new BackendError('not_found', `There is no prompt ${id}. It may have been deleted.`);
    this.prompts = this.prompts.filter((p) => p.id !== id);
  }

  export(projectId: string): ExportReply {
    const names = new Map(this.projects().map((p) => [p.id, p.name]));
    const lines = ['# Agentdeck prompt library: agentdeck prompts import FILE, or Settings → Prompts → Import.', 'version: 1'];
    const list = this.list(projectId);
    lines.push(list.length ? 'prompts:' : 'prompts: []');
    for (const p of list) {
      lines.push(`  - name: ${JSON.stringify(p.name)}`);
      if (p.description) lines.push(`    description: ${JSON.stringify(p.description)}`);
      if (p.project_id) lines.push(`    project: ${JSON.stringify(names.get(p.project_id) ?? '')}`);
      lines.push(`    body: ${JSON.stringify(p.body)}`);
    }
    return { filename: 'agentdeck-prompts.yaml', content: lines.join('\n') + '\n' };
  }

  import(content: string): PromptImport {
    const entries = parse(content);
    const rep: PromptImport = { created: [], updated: [], skipped: [] };
    const plan: Array<() => void> = [];
    for (const e of entries) {
      const one: PromptImported = { name: e.name, ...(e.project ? { project: e.project } : {}) };
      const project = e.project ? this.projects().find((p) => p.name.toLowerCase() === e.project.toLowerCase()) : undefined;
      if (e.project && !project) {
        rep.skipped!.push({ ...one, reason: 'there is no project of that name here; create it and import again' });
        continue;
      }
      const pid = project?.id ?? '';
      const cur = this.prompts.find((p) => (p.project_id || '') === pid && p.name.toLowerCase() === e.name.toLowerCase());
      if (cur && cur.body === e.body && cur.description === e.description) {
        rep.skipped!.push({ ...one, reason: 'unchanged: the library already has it as the file says' });
        continue;
      }
      (cur ? rep.updated : rep.created)!.push(one);
      plan.push(() => this.save({ ...(cur ?? emptyPrompt()), project_id: pid, name: e.name, description: e.description, body: e.body }));
    }
    plan.forEach((f) => f());
    return rep;
  }
}

function emptyPrompt(): Prompt {
  return { id: '', project_id: '', name: '', description: '', body: '', created_at: '', updated_at: '', variables: [] };
}

/** Reads the prompt file's YAML, as much of it as the two sides write; a problem names its line. */
function parse(content: string): Entry[] {
  const lines = content.replace(/\r\n/g, '\n').split('\n');
  const problem = (i: number, msg: string) =>
    new BackendError('invalid', `The file was not imported (nothing was written). Fix it and import it again:\nline ${i + 1}: ${msg}`);
  let version = 0;
  const out: Entry[] = [];
  let cur: Entry | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    const m = /^(\s*)(- )?([a-z_]+):\s?(.*)$/.exec(line);
    if (!m) throw problem(i, 'expected "field: value"');
    const [, , dash, key, raw] = m as unknown as [string, string, string | undefined, string, string];
    if (key === 'version') version = Number(raw);
    else if (key === 'prompts') continue;
    else {
      if (dash) out.push((cur = { name: '', description: '', project: '', body: '' }));
      if (!cur || !['name', 'description', 'project', 'body'].includes(key)) throw problem(i, `unknown field ${key}`);
      let value: string;
      if (/^\|[-+]?$/.test(raw)) {
        const block: string[] = [];
        while (i + 1 < lines.length && (lines[i + 1] === '' || /^\s{6}/.test(lines[i + 1]!))) block.push(lines[++i]!.slice(6));
        let trailing = 0;
        while (trailing < block.length && block[block.length - 1 - trailing] === '') trailing++;
        const text = block.slice(0, block.length - trailing).join('\n');
        value = raw === '|-' ? text : raw === '|' ? `${text}\n` : text + '\n'.repeat(trailing + 1);
      } else if (raw.startsWith('"')) value = JSON.parse(raw) as string;
      else if (raw.startsWith("'")) value = raw.slice(1, -1).replace(/''/g, "'");
      else value = raw.trim();
      (cur as unknown as Record<string, string>)[key] = value;
    }
  }
  if (version !== 1) throw problem(0, version > 1 ? `this file is version ${version}, written by a newer Agentdeck` : 'missing version');
  out.forEach((e, n) => {
    if (!e.name.trim() || !e.body.trim()) throw problem(0, `prompts[${n}]: a prompt needs a name and a body`);
  });
  return out;
}
