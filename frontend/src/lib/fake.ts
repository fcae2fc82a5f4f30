// An in-memory Backend for tests and for `npm run dev` demos (open the dev
// server with ?demo). It keeps sessions, turns and their events, runs
// scripted turns (fake-script.ts) on timers and delivers their events the
// way the Go side does: tokens merged per tick with first_seq..seq.
import type { Backend } from './api';
import { BackendError } from './api';
import { dispatch, type BusHandlers, type BusMessage } from './bus';
import { localDay } from './dates';
import { FakeArena, seedArena } from './fake-arena';
import { diffTurns } from './fake-diff';
import { seedEvals } from './fake-evals';
import { passes, resolveLayers, type Layer } from './fake-projects';
import { FakeKnowledge, isDocumentName, sourcesFrom } from './fake-knowledge';
import { FakeObservability } from './fake-observability';
import { FakePrompts } from './fake-prompts';
import { FakeReviews } from './fake-reviews';
import { FakeReviewSuites } from './fake-reviewsuite';
import { problemsOf } from './runsettings';
import { fakeResult, scriptFor, type Step } from './fake-script';
import { FakeGroups } from './fake-groups';
import { FakeTimeTravel } from './fake-timetravel';
import { MaxUploadBytes } from './generated';
import { MaxImageBytes } from './images';
import type {
  AddDocumentRequest,
  Agreement,
  ObservabilitySave,
  ArenaBoard,
  BoardRequest,
  VoteFilter,
  VoteRecord,
  Review,
  ReviewFilter,
  ReviewedTurn,
  ReviewSuiteMade,
  ReviewSuiteMake,
  LabelCount,
  GroupRef,
  GroupSendRequest,
  TurnGroup,
  Vote,
  KnowledgePlace,
  AboutInfo,
  NewSession,
  Page,
  Project,
  ProjectSummary,
  Prompt,
  Resolved,
  RunSettings,
  Scope,
  SessionPage,
  TagCount,
  EvalCasesSave,
  EvalCasesSaved,
  EvalProgress,
  EvalRun,
  EvalStart,
  EvalSuiteInfo,
  EvalRunSummary,
  RunDiff,
  RunReport,
  AgentEvent,
  BudgetState,
  CallDiagnostics,
  Delivered,
  Detected,
  EventOf,
  EventType,
  ExportReply,
  ImportReport,
  ConversationReport,
  Facts,
  ImageData,
  ImageRef,
  Message,
  Meter,
  MeterRequest,
  ModelWindow,
  PendingApproval,
  Price,
  Provider,
  ProviderView,
  SearchHit,
  SendRequest,
  Session,
  Settings,
  TurnChange,
  TurnDetail,
  UsageChart,
  UsageItem,
  UsageRequest,
  UsageRow,
  UsageSum,
  UsageView,
  WorkflowList,
  RerunFromRequest,
  TimelineStep,
  TurnDiff,
  TurnRef,
} from './types';

interface Running {
  turn: TurnDetail;
  steps: Step[];
  i: number;
  timer?: ReturnType<typeof setTimeout>;
  stopped: boolean;
  text: string;
  waiting: string;
  denied: Set<string>;
  /** Seeded at once: timestamps follow the turn's start, not the clock. */
  instant?: boolean;
  /** Ticks this many times slower than the fake's tick (a side-by-side column's speed). */
  slowdown?: number;
}

export interface FakeOptions {
  /** Milliseconds between ticks of a running turn (default 30). */
  tick?: number;
  /** Tokens delivered per tick (default 4). */
  tokensPerTick?: number;
  now?: () => Date;
}

const presets: Provider[] = [
  { name: 'ollama', kind: 'ollama', base_url: 'http://127.0.0.1:11434/v1', local: true, needs_key: false },
  { name: 'lmstudio', kind: 'lmstudio', base_url: 'http://127.0.0.1:1234/v1', local: true, needs_key: false },
  { name: 'llamacpp', kind: 'llamacpp', base_url: 'http://127.0.0.1:8080/v1', local: true, needs_key: false },
  { name: 'vllm', kind: 'vllm', base_url: 'http://127.0.0.1:8000/v1', local: true, needs_key: false },
  { name: 'openai', kind: 'openai', base_url: 'https://api.openai.com/v1', local: false, needs_key: true },
  { name: 'openrouter', kind: 'openrouter', base_url: 'https://openrouter.ai/api/v1', local: false, needs_key: true },
  { name: 'deepseek', kind: 'deepseek', base_url: 'https://api.deepseek.com/v1', local: false, needs_key: true },
  { name: 'groq', kind: 'groq', base_url: 'https://api.groq.com/openai/v1', local: false, needs_key: true },
];

export class FakeBackend implements Backend {
  readonly kind = 'http' as const;
  sessions: Session[] = [];
  turns = new Map<string, TurnDetail>();
  reviews = new FakeReviews(
    () => this.turns,
    () => this.sessions,
  );
  reviewSuites = new FakeReviewSuites(() => this.evalSuites_);
  events = new Map<string, AgentEvent[]>();
  providers: ProviderView[] = [];
  settings: Settings = {
    default_provider: '',
    default_model: '',
    default_workflow: 'chat',
    limits: { max_steps: 0, max_tool_calls: 0, token_budget: 0, timeout: 0, stall_threshold: 0, max_tool_output: 0 },
    capture: 'record',
    theme: 'system',
    defaults: {},
  };
  projects: Project[] = [];
  /** The OpenTelemetry export's settings and state (fake-observability.ts). */
  readonly observability: FakeObservability = new FakeObservability((m) => this.publish(m));
  /** The prompt library (fake-prompts.ts). */
  readonly library = new FakePrompts(
    () => this.projects,
    () => this.id('pr'),
    () => this.now(),
  );
  /** Votes on side-by-side groups and the leaderboard (fake-arena.ts). */
  readonly arena: FakeArena = new FakeArena({
    session: (id) => this.sessions.find((s) => s.id === id),
    message: (turnId) => this.turns.get(turnId)?.user_message ?? '',
    id: () => this.id('v'),
    now: () => this.now(),
    group: (id) => this.groups.get(id),
  });
  /** Documents of sessions and projects (fake-knowledge.ts). */
  readonly knowledge = new FakeKnowledge(
    (sid) => this.sessions.find((s) => s.id === sid)?.project_id ?? '',
    () => this.id('doc'),
    () => this.now(),
  );
  workflows: WorkflowList = {
    workflows: [
      { name: 'chat', description: 'One agent with tools.', kind: 'chat', source: 'builtin' },
      { name: 'critique-revise', description: 'Draft, critique, revise.', kind: 'critique-revise', source: 'builtin' },
      { name: 'plan-execute', description: 'Plan the steps, then run them.', kind: 'plan-execute', source: 'builtin' },
      { name: 'handoff', description: 'Agents hand the task to each other.', kind: 'handoff', source: 'builtin' },
    ],
    problems: [],
  };
  approvals: PendingApproval[] = [];
  detected: Detected[] = [];
  /** Every call, by method name, for assertions. */
  calls: Array<{ method: string; args: unknown[] }> = [];
  version_ = '0.0.0-dev';
  /** Evaluation runs and their reports and diffs, as tests set them (the fake runs no suite). */
  evalRuns_: EvalRunSummary[] = [];
  evalReports_: Record<string, RunReport> = {};
  /** Whole answers of results whose report has only the start (answer_more), by result id. */
  evalAnswers_: Record<string, string> = {};
  evalDiffs_: Record<string, RunDiff> = {};
  /** The suite files in the evaluations folder; saveEvalCases adds to them, startEval runs one (and the test ends it). */
  evalSuites_: EvalSuiteInfo[] = [];
  /** What about() answers besides the version; tests change it. */
  about_: Omit<AboutInfo, 'version'> = {
    commit: 'demo',
    go_version: 'go1.26.8',
    os: 'linux',
    arch: 'amd64',
    data_dir: '/tmp',
    db_path: '/tmp/agentdeck-demo.db',
    db_bytes: 12_400_000,
    links: [
      { label: 'Project home', url: 'https://github.com/agentdeck/agentdeck' },
      { label: 'Report a problem', url: 'https://github.com/agentdeck/agentdeck/issues' },
    ],
  };

  private subs = new Set<BusHandlers>();
  private running = new Map<string, Running>();
  private nextId = 1;
  private readonly tick: number;
  private readonly tokensPerTick: number;
  private readonly now: () => Date;

  constructor(opts: FakeOptions = {}) {
    this.tick = opts.tick ?? 30;
    this.tokensPerTick = opts.tokensPerTick ?? 4;
    this.now = opts.now ?? (() => new Date());
  }

  // ---- test helpers ----

  /** Hands a message to every subscriber, as the Go bus would. */
  publish(msg: BusMessage) {
    for (const s of this.subs) dispatch(s, msg);
  }

  /** Delivers a batch of live events to every subscriber. */
  emit(batch: Delivered[]) {
    this.publish({ kind: 'events', data: batch });
  }

  emitApproval(p: PendingApproval) {
    this.publish({ kind: 'approval', data: p });
  }

  /** Adds a turn another process runs: stored as running, with no live events here. */
  addForeignTurn(sessionId: string, message: string): TurnDetail {
    return this.newTurn(sessionId, message, 'chat');
  }

  /**
   * The process running a foreign turn died: the Go side marks it
   * interrupted, keeping the answer so far, and announces the change.
   */
  interruptForeignTurn(turnId: string, partial: string) {
    const t = this.turns.get(turnId);
    if (!t) throw new Error(`no turn ${turnId}`);
    Object.assign(t, {
      state: 'interrupted',
      final_text: partial,
      outcome: 'failed',
      termination: { kind: 'interrupted' },
      completed_at: this.now().toISOString(),
    });
    const changes: TurnChange[] = [{ turn_id: t.id, session_id: t.session_id, state: 'interrupted' }];
    this.publish({ kind: 'turns_changed', data: changes });
  }

  /** Adds a finished turn built by running a script at once. */
  addTurn(sessionId: string, message: string, opts: { at?: Date; workflow?: string } = {}): TurnDetail {
    const turn = this.newTurn(sessionId, message, opts.workflow ?? 'chat', opts.at);
    const r: Running = {
      turn,
      steps: scriptFor(message, turn.workflow, false, this.sourcesFor(sessionId, message)),
      i: 0,
      stopped: false,
      text: '',
      waiting: '',
      denied: new Set(),
      instant: true,
    };
    while (r.i < r.steps.length) {
      const s = r.steps[r.i++]!;
      if (s.type !== 'approval') this.record(r, s);
    }
    return turn;
  }

  /** Adds a session; with `turns`, that many short finished turns without events. */
  addSession(title: string, at: Date, turns = 0): Session {
    const s: Session = {
      id: this.id('s'),
      title,
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
      provider: this.settings.default_provider,
      model: this.settings.default_model,
      workflow: 'chat',
      workspace: '',
      settings: {},
      project_id: '',
      pinned_at: null,
      archived_at: null,
      tags: [],
      turns: 0,
      running_turn: '',
      active_turn_id: '',
      kind: 'chat',
    };
    this.sessions.unshift(s);
    for (let i = 1; i <= turns; i++) {
      const t = this.newTurn(s.id, `Question number ${i}: what is ${i} squared?`, 'chat', at);
      const text =
        i % 7 === 0 ? `${i} squared is **${i * i}**.\n\n\`\`\`js\nconsole.log(${i} * ${i});\n\`\`\`` : `${i} squared is **${i * i}**.`;
      Object.assign(t, {
        state: 'completed',
        final_text: text,
        outcome: 'succeeded',
        termination: { kind: 'natural_completion' },
        completed_at: at.toISOString(),
        messages: [{ role: 'assistant', content: text }],
      });
    }
    return s;
  }

  // ---- Backend ----

  async listSessions(p?: Partial<Page>): Promise<SessionPage> {
    this.log('listSessions', p);
    // Evaluation sessions are hidden unless asked for, as the Go side
    // does; so are archived ones; pinned ones come apart, on the first page.
    const kept = this.sessions.filter(
      (s) => (p?.eval || s.kind !== 'eval') && passes(s, p ?? {}) && this.reviews.sessionPasses(s, p?.reviews),
    );
    const sorted = kept.filter((s) => !s.pinned_at).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    const pinned = p?.cursor ? [] : kept.filter((s) => s.pinned_at).sort((a, b) => b.pinned_at!.localeCompare(a.pinned_at!));
    const start = p?.cursor ? Number(p.cursor) : 0;
    const limit = p?.limit || 50;
    const page = sorted.slice(start, start + limit).map((s) => this.withCounts(s));
    return {
      pinned: pinned.map((s) => this.withCounts(s)),
      sessions: page,
      next_cursor: start + limit < sorted.length ? String(start + limit) : '',
    };
  }

  async createSession(req: NewSession) {
    this.log('createSession', req);
    const at = this.now().toISOString();
    const proj = req.project_id ? this.project(req.project_id) : undefined;
    const ps = proj?.settings ?? {};
    const s: Session = {
      kind: 'chat',
      active_turn_id: '',
      id: this.id('s'),
      title: req.title?.trim() || 'New session',
      created_at: at,
      updated_at: at,
      provider: req.provider || ps.provider || this.settings.default_provider,
      model: req.model || ps.model || this.settings.default_model,
      workflow: req.workflow || ps.workflow || this.settings.default_workflow || 'chat',
      workspace: req.workspace ?? '',
      settings: req.settings ?? {},
      project_id: proj?.id ?? '',
      pinned_at: null,
      archived_at: null,
      tags: [],
      turns: 0,
      running_turn: '',
    };
    this.sessions.unshift(s);
    return { ...s };
  }

  async getSession(id: string) {
    this.log('getSession', id);
    return this.withCounts(this.session(id));
  }

  /** A session as the store reads it: with its number of turns and its running turn. */
  private withCounts(s: Session): Session {
    const turns = this.turnsOf(s.id);
    return { ...s, turns: turns.length, running_turn: turns.find((t) => t.state === 'running')?.id ?? '' };
  }

  async renameSession(id: string, title: string) {
    this.log('renameSession', id, title);
    if (!title.trim()) throw new BackendError('invalid', 'A session needs a title.');
    Object.assign(this.session(id), { title: title.trim(), updated_at: this.now().toISOString() });
  }

  async updateSession(s: Session) {
    this.log('updateSession', s);
    const cur = this.session(s.id);
    checkLayer(s.settings, "The session's settings");
    Object.assign(cur, { provider: s.provider, model: s.model, workflow: s.workflow, workspace: s.workspace, settings: s.settings });
  }

  // Projects and keeping sessions in order, as store/project.go does.

  project(idOrName: string): Project {
    const p = this.projects.find((x) => x.id === idOrName || x.name.toLowerCase() === idOrName.trim().toLowerCase());
    if (!p) throw new BackendError('not_found', `There is no project ${idOrName}. It may have been deleted.`);
    return p;
  }

  private projectWithCount(p: Project): Project {
    return { ...clone(p), sessions: this.sessions.filter((s) => s.project_id === p.id && s.kind !== 'eval').length };
  }

  async listProjects(): Promise<ProjectSummary[]> {
    this.log('listProjects');
    // As the store lists them: no settings (getProject has them).
    return [...this.projects]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((p) => this.projectWithCount(p))
      .map(({ id, name, created_at, updated_at, sessions }) => ({ id, name, created_at, updated_at, sessions }));
  }

  async getProject(idOrName: string) {
    this.log('getProject', idOrName);
    return this.projectWithCount(this.project(idOrName));
  }

  private checkProjectName(name: string, id = '') {
    const n = name.trim();
    if (!n) throw new BackendError('invalid', 'A project needs a name.');
    if (this.projects.some((p) => p.id !== id && p.name.toLowerCase() === n.toLowerCase()))
      throw new BackendError('conflict', `There is already a project named "${n}". Pick another name.`);
    return n;
  }

  async createProject(p: Project) {
    this.log('createProject', p);
    const at = this.now().toISOString();
    const made: Project = {
      id: this.id('p'),
      name: this.checkProjectName(p.name),
      created_at: at,
      updated_at: at,
      settings: clone(p.settings ?? {}),
      sessions: 0,
    };
    this.projects.push(made);
    return clone(made);
  }

  async updateProject(p: Project) {
    this.log('updateProject', p);
    const cur = this.project(p.id);
    checkLayer(p.settings, "The project's settings");
    Object.assign(cur, {
      name: this.checkProjectName(p.name, p.id),
      settings: clone(p.settings ?? {}),
      updated_at: this.now().toISOString(),
    });
  }

  async deleteProject(id: string, sessions: string) {
    this.log('deleteProject', id, sessions);
    const p = this.project(id);
    const its = this.sessions.filter((s) => s.project_id === p.id);
    if (its.length && sessions !== 'keep' && sessions !== 'delete')
      throw new BackendError(
        'conflict',
        `The project "${p.name}" has ${its.length} session${its.length === 1 ? '' : 's'}. Say whether to move them to no project (keep) or delete them (delete).`,
      );
    for (const s of its) {
      if (sessions === 'delete') await this.deleteSession(s.id);
      else s.project_id = '';
    }
    this.projects = this.projects.filter((x) => x.id !== p.id);
    this.library.prompts = this.library.prompts.filter((x) => x.project_id !== p.id);
  }

  async moveSession(sessionId: string, projectId: string) {
    this.log('moveSession', sessionId, projectId);
    const s = this.session(sessionId);
    s.project_id = projectId ? this.project(projectId).id : '';
  }

  async pinSession(sessionId: string, pinned: boolean) {
    this.log('pinSession', sessionId, pinned);
    const s = this.session(sessionId);
    s.pinned_at = pinned ? (s.pinned_at ?? this.now().toISOString()) : null;
  }

  async archiveSession(sessionId: string, archived: boolean) {
    this.log('archiveSession', sessionId, archived);
    const s = this.session(sessionId);
    s.archived_at = archived ? (s.archived_at ?? this.now().toISOString()) : null;
  }

  async setTags(sessionId: string, tags: string[]) {
    this.log('setTags', sessionId, tags);
    const s = this.session(sessionId);
    const out: string[] = [];
    for (let t of tags) {
      t = t.trim().replace(/^#/, '');
      if (t && !out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
    }
    s.tags = out.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  }

  async listTags() {
    this.log('listTags');
    const counts = new Map<string, TagCount>();
    for (const s of this.sessions)
      for (const t of s.tags ?? []) {
        const c = counts.get(t.toLowerCase()) ?? { tag: t, sessions: 0 };
        c.sessions++;
        counts.set(t.toLowerCase(), c);
      }
    return [...counts.values()].sort((a, b) => b.sessions - a.sessions || a.tag.localeCompare(b.tag));
  }

  async searchIn(query: string, limit: number, scope: Scope) {
    this.log('searchIn', query, limit, scope);
    const hits = await this.searchSessions(query, 200);
    const keep = new Set(this.sessions.filter((s) => passes(s, { ...scope, archived: true })).map((s) => s.id));
    return hits.filter((h) => keep.has(h.session_id)).slice(0, limit || 20);
  }

  async sessionSettings(sessionId: string): Promise<Resolved> {
    this.log('sessionSettings', sessionId);
    const s = this.session(sessionId);
    const st = this.settings;
    const app: RunSettings = {
      ...st.defaults,
      provider: st.default_provider || undefined,
      model: st.default_model || undefined,
      workflow: st.default_workflow || undefined,
    };
    const layers: Layer[] = [{ name: 'app', settings: app }];
    if (s.project_id) layers.push({ name: 'project', settings: this.project(s.project_id).settings });
    layers.push({
      name: 'session',
      settings: { ...s.settings, provider: s.provider || undefined, model: s.model || undefined, workflow: s.workflow || undefined },
    });
    return resolveLayers(layers);
  }

  // The prompt library, as store/prompts.go does (fake-prompts.ts).

  async listPrompts(projectId: string) {
    this.log('listPrompts', projectId);
    return this.library.list(projectId);
  }

  async savePrompt(p: Prompt) {
    this.log('savePrompt', p);
    // As Go's JSON does: a time that is not one refuses the whole argument.
    if ([p.created_at, p.updated_at].some((t) => Number.isNaN(Date.parse(t))))
      throw new BackendError('invalid', 'Argument 1 of SavePrompt is not a valid store.Prompt.');
    return this.library.save(p);
  }

  async deletePrompt(id: string) {
    this.log('deletePrompt', id);
    this.library.delete(id);
  }

  async exportPrompts(projectId: string) {
    this.log('exportPrompts', projectId);
    return this.library.export(projectId);
  }

  async importPrompts(content: string) {
    this.log('importPrompts', content.length);
    return this.library.import(content);
  }

  async deleteSession(id: string) {
    this.log('deleteSession', id);
    this.session(id);
    this.sessions = this.sessions.filter((s) => s.id !== id);
    for (const t of this.turnsOf(id)) this.turns.delete(t.id);
  }

  async searchSessions(query: string, limit: number): Promise<SearchHit[]> {
    this.log('searchSessions', query, limit);
    const q = query.trim().toLowerCase();
    if (!q) return [];
    const hits: SearchHit[] = [];
    for (const s of this.sessions) {
      const from = s.forked_from_session ? { forked_from: s.forked_from_session } : {};
      const m = snippet(s.title, q);
      if (m)
        hits.push({
          session_id: s.id,
          session_title: s.title,
          turn_id: '',
          turn_seq: 0,
          kind: 'title',
          snippet: m,
          rank: -2,
          at: s.updated_at,
          ...from,
        });
      for (const t of this.turnsOf(s.id)) {
        // Artifacts and code runs are found by their text, as the store
        // indexes them (store/searchindex.go).
        const made = (this.events.get(t.id) ?? []).flatMap((e): [string, string][] => {
          if (e.type === 'artifact') return [['artifact', `${e.data.title}\n${e.data.content}`]];
          if (e.type === 'code_run')
            return [['code_run', [e.data.code, e.data.output, e.data.value ?? '', e.data.error?.message ?? ''].join('\n')]];
          return [];
        });
        for (const [kind, text] of [
          ['message', t.user_message] as [string, string],
          ['message', t.final_text] as [string, string],
          ...made,
        ]) {
          const sn = snippet(text, q);
          if (sn)
            hits.push({
              session_id: s.id,
              session_title: s.title,
              turn_id: t.id,
              turn_seq: t.seq,
              kind,
              snippet: sn,
              rank: -1,
              at: t.started_at,
              ...from,
            });
        }
      }
    }
    return hits.slice(0, limit || 20);
  }

  async sendMessage(req: SendRequest) {
    this.log('sendMessage', req);
    if (!req.message.trim() && !req.continue && !req.images?.length) throw new BackendError('invalid', 'The message is empty.');
    const images = (req.images ?? []).map((im, i) => checkImage(im, i));
    const s = this.session(req.session_id);
    if (this.turnsOf(s.id).some((t) => t.state === 'running'))
      throw new BackendError('conflict', 'A turn is already running in this session. Stop it or wait for it to finish.');
    // As app.sendMessage: a session made by `agentdeck run --base-url` continues on the default provider.
    s.provider ||= this.settings.default_provider;
    // As runner.checkBudget: a spent budget refuses unless the person agreed and the provider asks.
    const budget = this.budgetOf(s.provider);
    if (budget?.state === 'over' && (!req.over_budget || budget.budget.over_limit === 'refuse')) {
      const how =
        budget.budget.over_limit === 'refuse'
          ? 'Raise it in Settings to send more this month.'
          : 'Send again to go over it, or raise it in Settings.';
      throw new BackendError(
        'over_budget',
        `This month's budget for ${s.provider} is spent: $${budget.spent_usd.toFixed(2)} of $${budget.budget.monthly_usd.toFixed(2)}. ${how}`,
      );
    }
    // Where the new turn goes (runner.parentOf): after the turn it
    // continues, beside the turn it is a version of, after its parent.
    let parent = s.active_turn_id;
    let message = req.message;
    if (req.continue) {
      const c = this.turnOrThrow(req.continue);
      if ([...this.turns.values()].some((t) => t.parent_turn_id === c.id && t.continues))
        throw new BackendError('conflict', `Turn ${c.seq} was already continued.`);
      parent = c.id;
      message = '';
    } else if (req.version_of) parent = this.turnOrThrow(req.version_of).parent_turn_id;
    else if (req.parent) parent = this.turnOrThrow(req.parent).id;
    s.active_turn_id = parent;
    const turn = this.newTurn(s.id, message, req.workflow || s.workflow, undefined, req.model || s.model);
    turn.continues = !!req.continue;
    // As the store: the bytes kept by id, the message naming them.
    if (images.length) {
      const refs: ImageRef[] = images.map((im) => {
        const id = this.id('img');
        this.images.set(id, { ...im, id });
        return { id, mime: im.mime, name: im.name, width: im.width, height: im.height, size: base64Size(im.data), sha256: '' };
      });
      turn.messages = [{ role: 'user', content: message, images: refs }];
    }
    // As runner: an attached document becomes the session's (tables stay the message's).
    for (const path of req.attach ?? []) {
      const up = this.uploads.get(path);
      if (!up || !isDocumentName(up.name)) continue;
      try {
        this.knowledge.add({ session_id: s.id }, up.name, decodeText(up.content));
      } catch {
        // the same file is already the session's
      }
      this.uploads.delete(path);
    }
    s.updated_at = turn.started_at;
    this.start(turn);
    return { turn_id: turn.id, session_id: s.id, seq: turn.seq };
  }

  /** Stored uploads, by path: their names and bytes as the page sent them. */
  uploads = new Map<string, { name: string; content: string }>();

  // Documents, as backend/knowledge does (fake-knowledge.ts). An upload's
  // base64 is read as UTF-8 text, pages split by form feeds.

  async addDocument(req: AddDocumentRequest) {
    this.log('addDocument', req);
    if (req.url) throw new BackendError('invalid', 'Adding a web page by its URL is not available yet.');
    const up = this.uploads.get(req.path ?? '');
    if (!up) throw new BackendError('invalid', 'Upload the file first (UploadAttachment), then add the path it answers.');
    const doc = this.knowledge.add({ session_id: req.session_id, project_id: req.project_id }, up.name, decodeText(up.content));
    this.uploads.delete(req.path ?? '');
    return doc;
  }

  async listDocuments(place: KnowledgePlace) {
    this.log('listDocuments', place);
    return this.knowledge.list(place);
  }

  async getDocument(id: string) {
    this.log('getDocument', id);
    return this.knowledge.get(id);
  }

  async removeDocument(id: string) {
    this.log('removeDocument', id);
    this.knowledge.remove(id);
  }

  async searchKnowledge(place: KnowledgePlace, query: string) {
    this.log('searchKnowledge', place, query);
    return this.knowledge.search(place, query);
  }

  async uploadAttachment(name: string, content: string) {
    this.log('uploadAttachment', name);
    const size = base64Size(content);
    if (size > MaxUploadBytes)
      throw new BackendError('invalid', `${name} is over the ${MaxUploadBytes / (1 << 20)} MB a file sent from the page may have.`);
    if (size === 0) throw new BackendError('invalid', `${name} is empty: there is nothing to attach.`);
    const base = name.split(/[\\/]/).pop() || 'upload';
    const path = `/demo/uploads/${this.id('u')}/${base}`;
    this.uploads.set(path, { name: base, content });
    return { path, name: base, size };
  }

  async stopTurn(turnId: string) {
    this.log('stopTurn', turnId);
    const r = this.running.get(turnId);
    if (!r) return;
    r.stopped = true;
    clearTimeout(r.timer);
    this.approvals = this.approvals.filter((a) => a.turn_id !== turnId);
    const evs = [this.record(r, { type: 'cancelled', data: { partial_text: r.text } }), this.record(r, { type: 'turn_completed' })];
    this.emit(evs.map(delivered));
  }

  /** Side-by-side groups (fake-groups.ts). */
  readonly groups: FakeGroups = new FakeGroups({
    session: (id) => this.session(id),
    turn: (id) => this.turns.get(id),
    turnsOf: (sid) => this.turnsOf(sid),
    newTurn: (sid, message, workflow, model) => this.newTurn(sid, message, workflow, undefined, model),
    start: (turn, slowdown) => this.start(turn, false, slowdown),
    stopTurn: (id) => this.stopTurn(id),
    newestUnder: (id) => this.subtree(id).sort((a, b) => b.seq - a.seq)[0] ?? this.turnOrThrow(id),
    id: (prefix) => this.id(prefix),
    now: () => this.now(),
    vote: (id) => this.arena.voteOf(id),
  });

  async sendSideBySide(req: GroupSendRequest): Promise<GroupRef> {
    this.log('sendSideBySide', req);
    return this.groups.send(req);
  }
  async groupChain(groupId: string): Promise<TurnGroup[]> {
    this.log('groupChain', groupId);
    return clone(this.groups.chain(groupId));
  }
  async stopGroup(groupId: string) {
    this.log('stopGroup', groupId);
    await this.groups.stop(groupId);
  }
  async continueWith(turnId: string) {
    this.log('continueWith', turnId);
    return this.groups.continueWith(turnId);
  }
  async openGroup(groupId: string) {
    this.log('openGroup', groupId);
    this.groups.open(groupId);
  }
  async voteOnGroup(v: Vote): Promise<Vote> {
    this.log('voteOnGroup', v);
    return this.arena.vote(v);
  }
  async listVotes(f: VoteFilter): Promise<VoteRecord[]> {
    this.log('listVotes', f);
    return clone(this.arena.list(f));
  }
  async saveReview(r: Review): Promise<Review> {
    this.log('saveReview', r);
    return this.reviews.save(r);
  }
  async reviewsFor(turnIds: string[]): Promise<Review[]> {
    this.log('reviewsFor', turnIds);
    return this.reviews.of(turnIds);
  }
  async listReviewed(f: ReviewFilter): Promise<ReviewedTurn[]> {
    this.log('listReviewed', f);
    return this.reviews.list(f);
  }
  async suiteFromReviewed(req: ReviewSuiteMake): Promise<ReviewSuiteMade> {
    this.log('suiteFromReviewed', req);
    return this.reviewSuites.make(req, this.reviews.list(req.filter));
  }
  async reviewLabels(prefix: string): Promise<LabelCount[]> {
    this.log('reviewLabels', prefix);
    return this.reviews.labels(prefix);
  }
  async arenaBoard(req: BoardRequest): Promise<ArenaBoard> {
    this.log('arenaBoard', req);
    return this.arena.board(req);
  }

  async getTurn(turnId: string, withEvents: boolean): Promise<TurnDetail> {
    this.log('getTurn', turnId, withEvents);
    const t = this.turns.get(turnId);
    if (!t) throw new BackendError('not_found', `There is no turn ${turnId}.`);
    const evs = this.events.get(turnId) ?? [];
    return clone({ ...t, events: withEvents ? evs : undefined, last_seq: evs.length ? evs[evs.length - 1]!.seq : 0 });
  }

  async listTurns(sessionId: string, p?: { limit?: number; cursor?: string }) {
    this.log('listTurns', sessionId, p);
    const all = this.turnsOf(sessionId).sort((a, b) => b.seq - a.seq);
    const limit = p?.limit || 50;
    const from = p?.cursor ? all.findIndex((t) => t.seq < Number(p.cursor)) : 0;
    const page = from < 0 ? [] : all.slice(from, from + limit);
    const last = page[page.length - 1];
    const more = from >= 0 && from + limit < all.length;
    return { turns: page.map(summary), next_cursor: more && last ? String(last.seq) : '' };
  }

  async eventsAfter(turnId: string, afterSeq: number) {
    this.log('eventsAfter', turnId, afterSeq);
    return clone((this.events.get(turnId) ?? []).filter((e) => e.seq > afterSeq));
  }

  async replayTurn(turnId: string) {
    this.log('replayTurn', turnId);
    return this.copyTurn(turnId, 'Replay', {});
  }

  async rerunTurn(turnId: string, opts: { provider?: string; model?: string; workflow?: string }) {
    this.log('rerunTurn', turnId, opts);
    return this.copyTurn(turnId, 'Re-run', opts);
  }

  /** Time travel: a turn's steps and re-runs from them (fake-timetravel.ts). */
  readonly timeTravel = new FakeTimeTravel({
    turn: (id) => this.turns.get(id),
    events: (id) => this.events.get(id) ?? [],
    busy: (sessionId) => this.turnsOf(sessionId).some((t) => t.state === 'running'),
    newVersion: (orig, message) => {
      const s = this.session(orig.session_id);
      s.active_turn_id = orig.parent_turn_id;
      const turn = this.newTurn(s.id, message, orig.workflow, undefined, orig.model);
      s.updated_at = turn.started_at;
      return turn;
    },
    start: (turn, steps) => this.start(turn, false, 1, steps),
  });

  async rerunFrom(req: RerunFromRequest): Promise<TurnRef> {
    this.log('rerunFrom', req);
    return this.timeTravel.rerunFrom(req);
  }

  async turnSteps(turnId: string): Promise<TimelineStep[] | null> {
    this.log('turnSteps', turnId);
    return this.timeTravel.steps(turnId);
  }

  async diffTurns(turnA: string, turnB: string): Promise<TurnDiff> {
    this.log('diffTurns', turnA, turnB);
    const [a, b] = [turnA, turnB].map((id) => {
      const t = this.turns.get(id);
      if (!t) throw new BackendError('not_found', `There is no turn ${id}; it may have been deleted.`);
      return t;
    });
    return clone(diffTurns(a!, this.events.get(turnA) ?? [], b!, this.events.get(turnB) ?? []));
  }

  /** Images sent with messages, by id, with their bytes (base64). */
  images = new Map<string, { id: string; name: string; mime: string; width: number; height: number; data: string }>();

  /** Files of "this machine" by path, for imageFile (tests set them). */
  files = new Map<string, { name: string; mime: string; width: number; height: number; data: string }>();

  async imageFile(path: string) {
    this.log('imageFile', path);
    const f = this.files.get(path);
    if (!f) throw new BackendError('invalid', `${path}: there is no such file`);
    return { ...f };
  }

  /** The image on "the clipboard", for clipboardImage (tests set it); none: the clipboard holds no image. */
  clipboard: { name: string; mime: string; width: number; height: number; data: string } | null = null;

  async clipboardImage() {
    this.log('clipboardImage');
    if (!this.clipboard) throw new BackendError('invalid', 'The clipboard holds no image. Copy one, or add it with the image button.');
    return { ...this.clipboard };
  }

  async getImage(id: string) {
    this.log('getImage', id);
    const im = this.images.get(id);
    if (!im) throw new BackendError('not_found', `There is no image ${id}; it may have been deleted with its turn.`);
    return { ...im };
  }

  // The turn tree, as the store keeps it: each turn names the one it
  // follows; the session its active (newest shown) turn.
  async sessionTree(sessionId: string) {
    this.log('sessionTree', sessionId);
    const turns = this.turnsOf(sessionId).sort((a, b) => a.seq - b.seq);
    const path = this.pathOf(this.session(sessionId).active_turn_id).map((t) => t.id);
    return { turns: clone(turns), active_path: path };
  }

  /** The active branch, newest first, with each turn's versions (store.ListBranch). */
  async listBranch(sessionId: string, p?: { limit?: number; cursor?: string }) {
    this.log('listBranch', sessionId, p);
    const path = this.pathOf(this.session(sessionId).active_turn_id).reverse();
    const limit = p?.limit || 50;
    const from = p?.cursor ? path.findIndex((t) => t.seq < Number(p.cursor)) : 0;
    const page = from < 0 ? [] : path.slice(from, from + limit);
    const last = page[page.length - 1];
    const more = from >= 0 && from + limit < path.length;
    const versions: Record<string, string[]> = {};
    for (const t of page) {
      const sibs = this.turnsOf(sessionId)
        .filter((x) => x.parent_turn_id === t.parent_turn_id && !!x.continues === !!t.continues)
        .sort((a, b) => a.seq - b.seq);
      if (sibs.length > 1) versions[t.id] = sibs.map((x) => x.id);
    }
    return { turns: page.map(summary), next_cursor: more && last ? String(last.seq) : '', versions };
  }

  async switchBranch(turnId: string) {
    this.log('switchBranch', turnId);
    const t = this.turnOrThrow(turnId);
    const s = this.session(t.session_id);
    // A turn already on the active branch leaves it as it is.
    if (this.pathOf(s.active_turn_id).some((x) => x.id === turnId))
      return { turn_id: s.active_turn_id, session_id: s.id, seq: this.turnOrThrow(s.active_turn_id).seq };
    const newest = this.subtree(turnId).sort((a, b) => b.seq - a.seq)[0] ?? t;
    s.active_turn_id = newest.id;
    return { turn_id: newest.id, session_id: t.session_id, seq: newest.seq };
  }

  /** The branch that ends at a turn, oldest first. */
  private pathOf(turnId: string): TurnDetail[] {
    const out: TurnDetail[] = [];
    for (let x = this.turns.get(turnId); x; x = x.parent_turn_id ? this.turns.get(x.parent_turn_id) : undefined) out.unshift(x);
    return out;
  }

  async countTurnsFrom(turnId: string) {
    this.log('countTurnsFrom', turnId);
    this.turnOrThrow(turnId);
    return this.subtree(turnId).length;
  }

  async deleteTurn(turnId: string) {
    this.log('deleteTurn', turnId);
    const t = this.turnOrThrow(turnId);
    const gone = this.subtree(turnId);
    for (const x of gone) this.turns.delete(x.id);
    const s = this.session(t.session_id);
    if (gone.some((x) => x.id === s.active_turn_id)) {
      const rest = (t.parent_turn_id ? this.subtree(t.parent_turn_id) : this.turnsOf(s.id)).sort((a, b) => b.seq - a.seq);
      s.active_turn_id = rest[0]?.id ?? '';
    }
    s.turns = this.turnsOf(s.id).length;
    return gone.length;
  }

  async forkSession(turnId: string) {
    this.log('forkSession', turnId);
    const t = this.turnOrThrow(turnId);
    const from = this.session(t.session_id);
    const branch = this.pathOf(t.id);
    const f = this.addSession(`${from.title} (fork)`, new Date(this.now()));
    f.forked_from_session = from.id;
    f.forked_from_turn = turnId;
    let parent = '';
    for (const [i, x] of branch.entries()) {
      const copy: TurnDetail = { ...clone(x), id: this.id('t'), session_id: f.id, seq: i + 1, parent_turn_id: parent, copied: 'fork' };
      this.turns.set(copy.id, copy);
      parent = copy.id;
    }
    f.active_turn_id = parent;
    f.turns = branch.length;
    return clone(f);
  }

  private turnOrThrow(turnId: string): TurnDetail {
    const t = this.turns.get(turnId);
    if (!t) throw new BackendError('not_found', `There is no turn ${turnId}.`);
    return t;
  }

  /** A turn and every turn that follows it. */
  private subtree(turnId: string): TurnDetail[] {
    const out: TurnDetail[] = [];
    const walk = (id: string) => {
      const t = this.turns.get(id);
      if (!t) return;
      out.push(t);
      for (const c of this.turns.values()) if (c.parent_turn_id === id) walk(c.id);
    };
    walk(turnId);
    return out;
  }

  async exportSession(id: string, format: 'md' | 'json' | 'jsonl', opts: { all_branches?: boolean } = {}) {
    this.log('exportSession', id, format, opts);
    const s = this.session(id);
    // JSON holds every branch; Markdown and JSONL the active one unless asked.
    const turns = format === 'json' || opts.all_branches ? this.turnsOf(id).sort((a, b) => a.seq - b.seq) : this.pathOf(s.active_turn_id);
    const name = s.title.replace(/[^A-Za-z0-9._ -]+/g, '_') || 'session';
    if (format === 'md') {
      const body = turns.map((t) => `## ${t.seq}. You\n\n${t.user_message}\n\n### Assistant\n\n${t.final_text}\n`).join('\n');
      return { filename: `${name}.md`, content: `# ${s.title}\n\n${body}` };
    }
    if (format === 'jsonl') return { filename: `${name}.jsonl`, content: turns.map((t) => JSON.stringify(summary(t))).join('\n') + '\n' };
    return { filename: `${name}.json`, content: JSON.stringify({ session: s, turns: turns.map(summary) }, null, 2) };
  }

  async importSession(content: string) {
    this.log('importSession', content.length);
    let parsed: { session?: Session };
    try {
      parsed = JSON.parse(content) as { session?: Session };
    } catch {
      throw new BackendError('invalid', 'The file is not a JSON export of an Agentdeck session.');
    }
    return this.createSession({ title: `${parsed.session?.title ?? 'Imported'} (imported)` });
  }

  // importFile reads our own export as importSession does, and a ChatGPT
  // export roughly: a session per conversation, its user messages counted
  // as turns, its image parts as left out. Other apps' files are the real
  // backend's (export/foreign); here they import as one conversation.
  async importFile(name: string, content: string): Promise<ImportReport> {
    this.log('importFile', name, content.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      throw new BackendError('invalid', `This file cannot be imported: ${name} is not valid JSON. Nothing was imported.`);
    }
    if ((parsed as { format?: string } | null)?.format === 'agentdeck-session') {
      const s = await this.importSession(content);
      return {
        sessions: [s],
        report: { app: 'Agentdeck', conversations: [{ title: s.title, session_id: s.id, turns: s.turns, branches: 0, left_out: [] }] },
      };
    }
    type Part = string | { content_type?: string };
    type Node = { parent?: string | null; message?: { author?: { role?: string }; content?: { parts?: Part[] } } | null };
    const list = (Array.isArray(parsed) ? parsed : [parsed]) as { title?: string; mapping?: Record<string, Node> }[];
    const chatgpt = list.some((c) => c?.mapping);
    const sessions: Session[] = [];
    const conversations: ConversationReport[] = [];
    for (const c of list) {
      const nodes = Object.values(c?.mapping ?? {});
      const users = nodes.filter((n) => n.message?.author?.role === 'user');
      const images = nodes
        .flatMap((n) => n.message?.content?.parts ?? [])
        .filter((p) => typeof p === 'object' && p?.content_type === 'image_asset_pointer').length;
      const parents = new Set(nodes.map((n) => n.parent));
      const leaves = nodes.filter((_, i) => !parents.has(Object.keys(c?.mapping ?? {})[i])).length;
      const s = await this.createSession({ title: c?.title ?? 'Imported conversation' });
      sessions.push(s);
      conversations.push({
        title: s.title,
        session_id: s.id,
        turns: chatgpt ? users.length : 1,
        branches: Math.max(1, leaves),
        left_out: images ? [`${images} image${images === 1 ? '' : 's'} not in the file`] : [],
      });
    }
    return { sessions, report: { app: chatgpt ? 'ChatGPT' : 'OpenAI messages', conversations } };
  }

  async listProviders() {
    this.log('listProviders');
    return clone(this.providers);
  }

  async presets() {
    return clone(presets);
  }

  async saveProvider(input: { provider: Provider; api_key?: string }) {
    this.log('saveProvider', { ...input, api_key: input.api_key ? '[set]' : '' });
    const p = clone(input.provider);
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(p.name))
      throw new BackendError('invalid', `The provider name "${p.name}" is not valid: use lowercase letters, digits, '-' or '_'.`);
    if (!/^https?:\/\//.test(p.base_url)) throw new BackendError('invalid', 'The base URL must start with http:// or https://.');
    const old = this.providers.find((x) => x.name === p.name);
    const key = input.api_key?.trim();
    const view: ProviderView = {
      ...p,
      api_key_ref: key ? `provider:${p.name}` : p.api_key_ref,
      has_key: key ? true : (old?.has_key ?? false),
      masked_key: key ? `••••${key.slice(-4)}` : (old?.masked_key ?? ''),
    };
    this.providers = [...this.providers.filter((x) => x.name !== p.name), view];
  }

  async deleteProvider(name: string) {
    this.log('deleteProvider', name);
    this.providers = this.providers.filter((p) => p.name !== name);
  }

  async testProvider(input: { provider: Provider; api_key?: string }) {
    this.log('testProvider', input.provider.name);
    const p = input.provider;
    const saved = this.providers.find((x) => x.name === p.name);
    if (p.needs_key && !input.api_key && !saved?.has_key)
      return { ok: false, models: null, error: 'The server refused the key (401). Check the API key.' };
    if (p.base_url.includes('unreachable')) return { ok: false, models: null, error: `Cannot reach ${p.base_url}.` };
    return { ok: true, models: p.local ? ['llama3.2:3b', 'qwen2.5-coder:7b'] : ['gpt-4o-mini', 'gpt-4.1'] };
  }

  async detectLocal() {
    this.log('detectLocal');
    return clone(this.detected);
  }

  async listWorkflows() {
    return clone(this.workflows);
  }

  async validateWorkflow(name: string, content: string) {
    this.log('validateWorkflow', name);
    return content.includes('kind:') ? [] : [{ file: name, line: 1, column: 1, message: 'missing kind' }];
  }

  async pendingApprovals() {
    return clone(this.approvals);
  }

  async answerApproval(a: { turn_id?: string; call_id: string; answer: 'allow_once' | 'always' | 'deny' }) {
    this.log('answerApproval', a);
    const p = this.approvals.find((x) => x.call_id === a.call_id && (!a.turn_id || x.turn_id === a.turn_id));
    if (!p) throw new BackendError('not_found', 'That tool call is no longer waiting for an answer.');
    this.approvals = this.approvals.filter((x) => x !== p);
    const r = this.running.get(p.turn_id);
    if (r && r.waiting === a.call_id) {
      r.waiting = '';
      if (a.answer === 'deny') r.denied.add(a.call_id);
      this.schedule(r);
    }
  }

  async getSettings() {
    return clone(this.settings);
  }

  async saveSettings(s: Settings) {
    this.log('saveSettings', s);
    checkLayer(s.defaults, 'The default settings');
    if (!s.embed_provider !== !s.embed_model)
      throw new BackendError('invalid', 'An embedding model needs both its provider and its name; clear both for none.');
    this.settings = clone(s);
  }

  async getObservability() {
    return this.observability.get();
  }

  async saveObservability(req: ObservabilitySave) {
    this.log('saveObservability', {
      ...req,
      headers: req.headers ? '(set)' : '',
      langfuse_secret_key: req.langfuse_secret_key ? '(set)' : '',
    });
    return this.observability.save(req);
  }

  /** Dollars spent this month by provider: tests set it, and every priced turn adds its cost. */
  spent = new Map<string, number>();

  async contextMeter(req: MeterRequest): Promise<Meter> {
    this.log('contextMeter', req);
    const s = this.session(req.session_id);
    const model = req.model || s.model;
    const window = this.windowOf(s.provider, model);
    const path = this.pathOf(req.parent || s.active_turn_id);
    const history = path.reduce((n, t) => n + tokensOf(t.user_message) + tokensOf(t.final_text) + 8, 0);
    const parts = [
      { name: 'system', tokens: 420 },
      { name: 'tools', tokens: 310 },
      { name: 'history', tokens: history },
      { name: 'images', tokens: (req.images ?? 0) * 85 },
      { name: 'draft', tokens: req.draft ? tokensOf(req.draft) + 4 : 0 },
    ];
    const total = parts.reduce((n, p) => n + p.tokens, 0);
    const state = total >= window.tokens ? 'over' : total >= 0.8 * window.tokens ? 'near' : 'ok';
    const price = this.priceOf(s.provider, model);
    const budget = this.budgetOf(s.provider);
    return {
      provider: s.provider,
      model,
      window,
      parts,
      total,
      method: 'estimate',
      state,
      history_messages: path.length * 2,
      ...(price ? { price } : {}),
      ...(budget ? { budget } : {}),
    };
  }

  async usage(req: UsageRequest): Promise<UsageView> {
    this.log('usage', req);
    const { since, until } = this.span(req);
    const by = req.by || 'model';
    const calls = this.callsBetween(since, until);
    const groups = new Map<string, UsageRow>();
    const series = new Map<string, UsageRow & { day: string }>();
    const sessions = new Map<string, UsageItem>();
    const turns = new Map<string, UsageItem>();
    const total = emptySum();
    for (const c of calls) {
      const key =
        by === 'day' ? c.day : by === 'provider' ? c.provider : by === 'workflow' ? c.turn.workflow : by === 'kind' ? 'chat' : c.call.model;
      addCall(total, c.call);
      addCall(
        getOr(groups, key, () => ({ key, ...emptySum() })),
        c.call,
      );
      const seriesKey = by === 'day' ? c.call.model : key;
      addCall(
        getOr(series, `${c.day}\x00${seriesKey}`, () => ({ day: c.day, key: seriesKey, ...emptySum() })),
        c.call,
      );
      const title = this.sessions.find((x) => x.id === c.turn.session_id)?.title ?? '';
      addCall(
        getOr(sessions, c.turn.session_id, () => ({ session_id: c.turn.session_id, title, ...emptySum() })),
        c.call,
      );
      addCall(
        getOr(turns, c.turn.id, () => ({
          session_id: c.turn.session_id,
          title,
          turn_id: c.turn.id,
          seq: c.turn.seq,
          message: c.turn.user_message,
          continues: c.turn.continues || undefined,
          ...emptySum(),
        })),
        c.call,
      );
    }
    const costliest = (a: UsageSum, b: UsageSum) =>
      b.cost_usd - a.cost_usd || b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens);
    const rows = [...groups.values()].sort(by === 'day' ? (a, b) => a.key.localeCompare(b.key) : costliest);
    const points = [...series.values()].sort((a, b) => a.day.localeCompare(b.day));
    // The fake keeps no evaluation runs: their part is nothing.
    const report = {
      by,
      since,
      until,
      total,
      evaluations: emptySum(),
      rows,
      series: points,
      top_sessions: [...sessions.values()].sort(costliest).slice(0, 10),
      top_turns: [...turns.values()].sort(costliest).slice(0, 10),
    };
    return { report, charts: total.calls ? usageCharts(rows, points, total, by) : [], since, until };
  }

  async usageCSV(req: UsageRequest): Promise<ExportReply> {
    this.log('usageCSV', req);
    const { report, since, until } = await this.usage(req);
    const lines = [`${report.by},calls,input_tokens,output_tokens,cached_input_tokens,reasoning_tokens,cost_usd,unpriced_calls,estimated`];
    for (const r of report.rows ?? [])
      lines.push(
        [
          csvField(r.key),
          r.calls,
          r.input_tokens,
          r.output_tokens,
          r.cached_input_tokens,
          r.reasoning_tokens,
          r.cost_usd,
          r.unpriced,
          r.estimated,
        ].join(','),
      );
    return { filename: `agentdeck-usage-${since}-to-${until}-by-${report.by}.csv`, content: lines.join('\n') + '\n' };
  }

  async modelFacts(provider: string, model: string): Promise<Facts> {
    this.log('modelFacts', provider, model);
    if (!this.providers.some((p) => p.name === provider)) throw new BackendError('not_found', `There is no provider ${provider}.`);
    if (!model) throw new BackendError('invalid', 'Name a model.');
    const price = this.priceOf(provider, model);
    return { provider, model, window: this.windowOf(provider, model), ...(price ? { price } : {}) };
  }

  async budgetState(provider: string): Promise<BudgetState> {
    this.log('budgetState', provider);
    if (!this.providers.some((p) => p.name === provider)) throw new BackendError('not_found', `There is no provider ${provider}.`);
    return (
      this.budgetOf(provider) ?? {
        provider,
        budget: { monthly_usd: 0 },
        spent_usd: this.spent.get(provider) ?? 0,
        state: 'ok',
        since: this.monthStart(),
      }
    );
  }

  async status() {
    return { version: this.version_, db_path: '/tmp/agentdeck-demo.db', schema_version: 1, providers: this.providers.length };
  }

  async version() {
    return { version: this.version_, commit: 'demo', go_version: '' };
  }

  async about(): Promise<AboutInfo> {
    this.log('about');
    return clone({ ...this.about_, version: this.version_ });
  }

  async evalRuns(suite?: string): Promise<EvalRunSummary[]> {
    this.log('evalRuns', suite);
    return clone(this.evalRuns_.filter((r) => !suite || r.run.suite_name === suite));
  }

  async evalReport(runID: string): Promise<RunReport> {
    this.log('evalReport', runID);
    const r = this.evalReports_[runID];
    if (!r) throw new BackendError('not_found', `There is no evaluation run ${runID}.`);
    return clone(r);
  }

  async evalAnswer(resultID: string): Promise<string> {
    this.log('evalAnswer', resultID);
    const whole = this.evalAnswers_[resultID];
    if (whole != null) return whole;
    for (const r of Object.values(this.evalReports_)) {
      const res = (r.results ?? []).find((x) => x.id === resultID);
      if (res) return res.answer;
    }
    throw new BackendError('not_found', `There is no evaluation result ${resultID}; the run may have been deleted. Open the run again.`);
  }

  /** As eval.JudgeAgreement: cells with a judge verdict and a thumb on their turn, and how many agree. */
  async evalAgreement(runID: string): Promise<Agreement> {
    this.log('evalAgreement', runID);
    const r = this.evalReports_[runID];
    if (!r) throw new BackendError('not_found', `There is no evaluation run ${runID}.`);
    const results = r.results ?? [];
    const thumbs = new Map(
      this.reviews
        .of(results.flatMap((x) => (x.turn_id ? [x.turn_id] : [])))
        .filter((v) => v.step === '')
        .map((v) => [v.turn_id, v.thumb]),
    );
    const a: Agreement = { rated: 0, agree: 0, share: 0, judged: 0 };
    for (const x of results) {
      const judges = (x.outcomes ?? []).filter((o) => o.kind === 'judge');
      if (!judges.length) continue;
      a.judged++;
      const thumb = x.turn_id ? (thumbs.get(x.turn_id) ?? 0) : 0;
      if (!thumb) continue;
      a.rated++;
      if (judges.every((o) => o.passed) === thumb > 0) a.agree++;
    }
    if (a.rated) a.share = a.agree / a.rated;
    return a;
  }

  async evalDiff(a: string, b: string): Promise<RunDiff> {
    this.log('evalDiff', a, b);
    const d = this.evalDiffs_[`${a}|${b}`];
    if (!d) throw new BackendError('not_found', `There is no evaluation run ${this.evalReports_[a] ? b : a}.`);
    return clone(d);
  }

  // JSON is YAML: a suite of one case, the turn's message and its answer as a reference.
  async evalCaseFromTurn(turnID: string): Promise<string> {
    this.log('evalCaseFromTurn', turnID);
    const t = this.turns.get(turnID);
    if (!t) throw new BackendError('not_found', `There is no turn ${turnID}.`);
    const assert: unknown[] = t.final_text ? [{ similar_to: { reference: t.final_text, measure: 'token_f1', threshold: 0.5 } }] : [];
    assert.push({ termination: { not_limit: true } });
    return (
      JSON.stringify(
        {
          name: 'from-turn',
          models: [`${this.settings.default_provider}/${t.model}`],
          cases: [{ id: 'case', prompt: t.user_message, assert }],
        },
        null,
        2,
      ) + '\n'
    );
  }

  async uiReady() {
    this.log('uiReady');
  }

  async evalSuites(): Promise<EvalSuiteInfo[]> {
    this.log('evalSuites');
    return clone(this.evalSuites_);
  }

  // A suite that would have no cases is refused with a problem, as the backend refuses one that would not read back.
  async saveEvalCases(req: EvalCasesSave): Promise<EvalCasesSaved> {
    this.log('saveEvalCases', req);
    const file =
      req.file ||
      `${
        (req.name ?? '')
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9_-]+/g, '-')
          .replace(/^-+|-+$/g, '') || 'suite'
      }.yaml`;
    let suite = this.evalSuites_.find((s) => s.file === file);
    if (!req.yaml.includes('cases')) {
      return {
        suite: suite ? clone(suite) : { file, path: `/tmp/evals/${file}`, name: '', cases: 0, models: [], repeat: 0 },
        problems: [{ file, line: 1, column: 1, message: 'The suite has no cases: list them under cases:.' }],
      };
    }
    if (!suite) {
      suite = {
        file,
        path: `/tmp/evals/${file}`,
        name: req.name || file.replace(/\.ya?ml$/, ''),
        cases: 0,
        models: ['local/qwen3'],
        repeat: 1,
      };
      this.evalSuites_.push(suite);
    }
    suite.cases++;
    return { suite: clone(suite) };
  }

  async createExampleSuite(): Promise<EvalSuiteInfo> {
    this.log('createExampleSuite');
    let suite = this.evalSuites_.find((s) => s.file === 'example.yaml');
    if (!suite) {
      suite = {
        file: 'example.yaml',
        path: '/tmp/evals/example.yaml',
        name: 'example',
        cases: 4,
        models: ['openai/gpt-4o-mini', 'ollama/llama3.2'],
        repeat: 2,
      };
      this.evalSuites_.push(suite);
    }
    return clone(suite);
  }

  async startEval(req: EvalStart): Promise<EvalRun> {
    this.log('startEval', req);
    const suite = this.evalSuites_.find((s) => s.file === req.file);
    if (!suite) throw new BackendError('not_found', `There is no suite file ${req.file}.`);
    const models = (req.models?.length ? req.models : suite.models) ?? [];
    const planned = suite.cases * models.length * (req.repeat || suite.repeat || 1);
    const run: EvalRun = {
      id: `run-${this.evalRuns_.length + 1}`,
      suite_name: suite.name,
      suite_file: suite.path,
      suite: { name: suite.name, models },
      capture: req.capture || 'record',
      from_run_id: req.from_run_id ?? '',
      state: 'running',
      started_at: new Date().toISOString(),
    };
    this.evalRuns_.unshift({ run, passed: 0, total: 0, planned });
    this.emitEvalProgress({ run_id: run.id, suite: suite.name, state: 'running', done: 0, planned, passed: 0, failed: 0 });
    return clone(run);
  }

  async stopEval(runID: string): Promise<void> {
    this.log('stopEval', runID);
    const r = this.evalRuns_.find((x) => x.run.id === runID);
    if (!r) throw new BackendError('not_found', `There is no evaluation run ${runID}.`);
    if (r.run.state !== 'running') return;
    r.run.state = 'cancelled';
    this.emitEvalProgress({
      run_id: runID,
      suite: r.run.suite_name,
      state: 'cancelled',
      done: r.total,
      planned: r.planned,
      passed: r.passed,
      failed: r.total - r.passed,
    });
  }

  /** Tells subscribers how an evaluation run goes, as the backend does while it runs one. */
  emitEvalProgress(p: EvalProgress) {
    this.publish({ kind: 'eval_progress', data: clone(p) });
  }

  subscribe(handlers: BusHandlers) {
    const s = { ...handlers }; // one subscription per call, as the backends'
    this.subs.add(s);
    return () => void this.subs.delete(s);
  }

  openURL(url: string) {
    this.log('openURL', url);
  }

  onFileDrop() {
    return undefined;
  }

  // ---- internals ----

  private log(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
  }

  private id(prefix: string) {
    return `${prefix}${this.nextId++}`;
  }

  /** A model's window on a provider: the one set in Settings, else the default. */
  private windowOf(provider: string, model: string): ModelWindow {
    const p = this.providers.find((x) => x.name === provider);
    const set = p?.windows?.[model] ?? p?.windows?.[''];
    return set ? { tokens: set, source: 'user' } : { tokens: 8192, source: 'default' };
  }

  /** A model's price (llm.PriceFor): the user's, free on this machine, else unknown. */
  private priceOf(provider: string, model: string): Price | undefined {
    const p = this.providers.find((x) => x.name === provider);
    const set = p?.prices?.[model] ?? p?.prices?.[''];
    if (set) return { ...set, source: 'user' };
    return p?.local ? { input_per_m: 0, output_per_m: 0, source: 'local' } : undefined;
  }

  /** Where a provider's budget stands; undefined when it has none. */
  private budgetOf(provider: string): BudgetState | undefined {
    const b = this.providers.find((x) => x.name === provider)?.budget;
    if (!b || !(b.monthly_usd > 0)) return undefined;
    const spent = this.spent.get(provider) ?? 0;
    const state = spent >= b.monthly_usd ? 'over' : spent >= 0.8 * b.monthly_usd ? 'warning' : 'ok';
    return { provider, budget: { ...b }, spent_usd: spent, state, since: this.monthStart() };
  }

  private monthStart(): string {
    const d = this.now();
    return new Date(d.getFullYear(), d.getMonth(), 1).toISOString();
  }

  /** A usage request's days (app.usageQuery): the last 30 unless given. */
  private span(req: UsageRequest): { since: string; until: string } {
    const today = this.now();
    const until = req.until || localDay(today);
    const since = req.since || localDay(new Date(today.getFullYear(), today.getMonth(), today.getDate() - 29));
    if (!/^\d{4}-\d{2}-\d{2}$/.test(since) || !/^\d{4}-\d{2}-\d{2}$/.test(until))
      throw new BackendError('invalid', 'Write a day as YYYY-MM-DD.');
    if (until < since) throw new BackendError('invalid', `The span ends (${until}) before it starts (${since}).`);
    return { since, until };
  }

  /** Every model call of a finished turn between two days (inclusive), with its turn. */
  private callsBetween(since: string, until: string) {
    const out: Array<{ day: string; provider: string; turn: TurnDetail; call: CallDiagnostics }> = [];
    for (const t of this.turns.values()) {
      if (t.copied) continue; // counted where it ran, as the Go side does
      const provider = this.sessions.find((x) => x.id === t.session_id)?.provider ?? '';
      for (const call of t.result?.model_calls ?? []) {
        const day = localDay(new Date(call.started_at));
        if (day >= since && day <= until && call.price?.source !== 'replay')
          out.push({ day, provider: call.provider ?? provider, turn: t, call });
      }
    }
    return out;
  }

  private session(id: string): Session {
    const s = this.sessions.find((x) => x.id === id);
    if (!s) throw new BackendError('not_found', `There is no session ${id}. It may have been deleted.`);
    return s;
  }

  private turnsOf(sessionId: string) {
    return [...this.turns.values()].filter((t) => t.session_id === sessionId);
  }

  private newTurn(sessionId: string, message: string, workflow: string, at?: Date, model?: string): TurnDetail {
    const seq = Math.max(0, ...this.turnsOf(sessionId).map((t) => t.seq)) + 1;
    const s = this.sessions.find((x) => x.id === sessionId);
    const t: TurnDetail = {
      parent_turn_id: s?.active_turn_id ?? '',
      continues: false,
      id: this.id('t'),
      session_id: sessionId,
      seq,
      user_message: message,
      state: 'running',
      workflow,
      model: model ?? s?.model ?? '',
      started_at: (at ?? this.now()).toISOString(),
      completed_at: null,
      final_text: '',
      outcome: '',
      termination: { kind: '' },
      messages: [],
      stages: [],
      plan: null,
      charts: [],
      result: null,
      last_seq: 0,
    };
    this.turns.set(t.id, t);
    if (s) s.active_turn_id = t.id;
    this.events.set(t.id, []);
    return t;
  }

  private async copyTurn(turnId: string, kind: string, opts: { provider?: string; model?: string; workflow?: string }) {
    const orig = this.turns.get(turnId);
    if (!orig) throw new BackendError('not_found', `There is no turn ${turnId}.`);
    const s = this.session(orig.session_id);
    const copy = await this.createSession({
      title: `${kind} of ${s.title} #${orig.seq}`,
      provider: opts.provider || s.provider,
      model: opts.model || orig.model,
      workflow: opts.workflow || orig.workflow,
    });
    const turn = this.newTurn(copy.id, orig.user_message, copy.workflow, undefined, copy.model);
    this.start(turn, kind === 'Re-run');
    return { turn_id: turn.id, session_id: copy.id, seq: turn.seq };
  }

  /** What search_knowledge gives a turn of the session (fake-script.ts's canned sources when it has no documents). */
  private sourcesFor(sessionId: string, message: string) {
    const found = sourcesFrom(this.knowledge, sessionId, message.replace(/\bcite\b/gi, ''));
    return found.length ? found : undefined;
  }

  private start(turn: TurnDetail, variant = false, slowdown = 1, script?: Step[]) {
    const r: Running = {
      slowdown,
      turn,
      steps: script ?? scriptFor(turn.user_message, turn.workflow, variant, this.sourcesFor(turn.session_id, turn.user_message)),
      i: 0,
      stopped: false,
      text: '',
      waiting: '',
      denied: new Set(),
    };
    this.running.set(turn.id, r);
    this.schedule(r);
  }

  private schedule(r: Running, delay = this.tick) {
    r.timer = setTimeout(() => this.step(r), delay * (r.slowdown ?? 1));
  }

  // One tick: a few tokens merged into one delivery, or events up to the
  // next pause, like the Go coalescer.
  private step(r: Running) {
    if (r.stopped) return;
    const batch: Delivered[] = [];
    let tokens = 0;
    let delay = this.tick;
    while (r.i < r.steps.length) {
      const s = r.steps[r.i]!;
      if (s.type === 'approval') {
        r.i++;
        r.waiting = s.callId;
        const p: PendingApproval = {
          session_id: r.turn.session_id,
          turn_id: r.turn.id,
          call_id: s.callId,
          tool: s.tool,
          args: s.args,
          side_effects: true,
          guard: 'approval',
          reason: s.reason,
        };
        this.approvals.push(p);
        if (batch.length) this.emit(batch);
        this.emitApproval(p);
        return;
      }
      if (s.type !== 'token' && s.type !== 'turn_completed' && s.delay && batch.length) {
        delay = s.delay;
        break;
      }
      r.i++;
      const ev = this.record(r, s);
      const last = batch[batch.length - 1];
      if (ev.type === 'token' && last?.type === 'token' && last.stage_id === ev.stage_id) {
        last.seq = ev.seq;
        last.data.text += ev.data.text;
      } else {
        batch.push(delivered(ev));
      }
      if (ev.type === 'token' && ++tokens >= this.tokensPerTick) break;
      if (ev.type === 'turn_completed') break;
    }
    if (batch.length) this.emit(batch);
    if (r.i < r.steps.length) this.schedule(r, delay);
    else this.running.delete(r.turn.id);
  }

  /** Stores one event of a turn (and, for the end, the turn's result). */
  private record(r: Running, s: Exclude<Step, { type: 'approval' }>): AgentEvent {
    const t = r.turn;
    const evs = this.events.get(t.id)!;
    let type: EventType = s.type;
    let data: unknown = s.type === 'token' ? { text: s.text } : 'data' in s ? (s.data ?? {}) : {};
    if (s.type === 'token') r.text += s.text;
    if (s.type === 'tool_result' && r.denied.has((s.data as { call_id: string }).call_id)) {
      type = 'tool_error';
      data = { ...(s.data as object), error: 'The person denied this call.', output: undefined };
    }
    if (s.type === 'turn_completed') data = this.finish(r);
    if (s.type === 'stage_end') data = this.stageResult(r);
    const callEvent =
      s.type !== 'token' && 'parent' in s && s.parent ? evs.find((e) => e.type === 'tool_call' && e.data.call_id === s.parent) : undefined;
    // The script's data is loose (a step gives what the UI reads), so the
    // event is asserted whole; the UI narrows it by type like a real one.
    const ev = {
      id: this.id('e'),
      session_id: t.session_id,
      turn_id: t.id,
      stage_id: 'stage' in s ? (s.stage ?? '') : '',
      seq: evs.length + 1,
      parent_id: callEvent?.id ?? '',
      at: this.clock(r, evs.length).toISOString(),
      type,
      phase: 'thinking', // the UI does not read an event's phase
      checkpoint: false,
      data,
    } as AgentEvent;
    evs.push(ev);
    if (ev.type === 'chart') t.charts = [...(t.charts ?? []), { event_id: ev.id, seq: ev.seq, title: ev.data.title, spec: ev.data.spec }];
    return clone(ev);
  }

  private stageResult(r: Running) {
    return this.resultOf(r).stages?.[0] ?? null;
  }

  private clock(r: Running, n: number): Date {
    const start = new Date(r.turn.started_at).getTime();
    return r.instant ? new Date(start + n * 15) : new Date(Math.max(this.now().getTime(), start + 1));
  }

  private resultOf(r: Running) {
    const evs = this.events.get(r.turn.id)!;
    const err = evs.find((e): e is EventOf<'error'> => e.type === 'error');
    const cancelled = evs.some((e) => e.type === 'cancelled');
    const multi = r.turn.workflow !== 'chat';
    const provider = this.sessions.find((x) => x.id === r.turn.session_id)?.provider ?? '';
    const model = r.turn.model || 'llama3.2:3b';
    return fakeResult({
      price: this.priceOf(provider, model),
      provider,
      started: new Date(r.turn.started_at),
      ended: this.clock(r, 160),
      model,
      text: r.text,
      ok: !err && !cancelled,
      cancelled,
      error: err?.data.message,
      withTool: evs.some((e) => e.type === 'tool_call'),
      stageName: multi ? 'draft' : undefined,
      stageId: multi ? 'stage-1' : r.turn.id,
    });
  }

  private finish(r: Running) {
    const t = r.turn;
    const res = this.resultOf(r);
    const msgs: Message[] = [
      { role: 'user', content: t.user_message, ...(t.messages?.[0]?.images ? { images: t.messages[0].images } : {}) },
    ];
    if (r.text) msgs.push({ role: 'assistant', content: r.text });
    Object.assign(t, {
      state: res.cancelled ? 'cancelled' : res.ok ? 'completed' : 'failed',
      completed_at: res.completed_at,
      final_text: res.final_text,
      outcome: res.outcome,
      termination: res.termination,
      result: res,
      messages: msgs,
      stages: res.stages ?? [{ ...fakeStage(res), id: t.id }],
      plan: null,
    });
    const session = this.sessions.find((s) => s.id === t.session_id);
    if (session) session.updated_at = res.completed_at;
    if (session && res.cost?.usd) this.spent.set(session.provider, (this.spent.get(session.provider) ?? 0) + res.cost.usd);
    return res;
  }
}

/** A rough count, as the Go side's estimate: four characters a token. */
function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

function emptySum(): UsageSum {
  return {
    calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0,
    unpriced: 0,
    estimated: false,
  };
}

function addCall(sum: UsageSum, c: CallDiagnostics) {
  sum.calls++;
  sum.input_tokens += c.usage.input_tokens;
  sum.output_tokens += c.usage.output_tokens;
  sum.cached_input_tokens += c.usage.cached_input_tokens;
  sum.reasoning_tokens += c.usage.reasoning_tokens;
  if (c.cost) sum.cost_usd += c.cost.usd;
  else sum.unpriced++;
  sum.estimated ||= !!c.usage.estimated;
}

function getOr<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
}

function csvField(v: string): string {
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** The Usage page's four charts (usage.Charts): minimal Vega-Lite with the rows inline. */
function usageCharts(rows: UsageRow[], series: Array<UsageRow & { day: string }>, total: UsageSum, by: string): UsageChart[] {
  const daily = series.map((p) => ({
    day: p.day,
    key: p.key || '(not recorded)',
    tokens: p.input_tokens + p.output_tokens,
    cost: p.cost_usd,
  }));
  const groups = rows.map((r) => ({ key: r.key || '(not recorded)', tokens: r.input_tokens + r.output_tokens, cost: r.cost_usd }));
  const stack = by === 'day' ? 'model' : by;
  const [measure, measureTitle] = total.cost_usd ? ['cost', 'Cost (US$)'] : ['tokens', 'Tokens'];
  const bars = (field: string, title: string) => ({
    data: { values: daily },
    mark: { type: 'bar', tooltip: true },
    encoding: {
      x: { field: 'day', type: 'ordinal', title: 'Day' },
      y: { field, type: 'quantitative', title, aggregate: 'sum' },
      color: { field: 'key', type: 'nominal', title: stack },
    },
  });
  return [
    { id: 'tokens', title: 'Tokens a day', spec: bars('tokens', 'Tokens') },
    { id: 'cost', title: 'Cost a day', spec: bars('cost', 'Cost (US$)') },
    {
      id: 'groups',
      title: `${measureTitle} by ${by}`,
      spec: {
        data: { values: groups },
        mark: { type: 'bar', tooltip: true },
        encoding: {
          y: { field: 'key', type: 'nominal', title: by, sort: '-x' },
          x: { field: measure, type: 'quantitative', title: measureTitle },
        },
      },
    },
    {
      id: 'cached',
      title: 'Input tokens from the prompt cache',
      spec: {
        data: {
          values: [
            { kind: 'cached', tokens: total.cached_input_tokens },
            { kind: 'not cached', tokens: total.input_tokens - total.cached_input_tokens },
          ],
        },
        mark: { type: 'arc', innerRadius: 40, tooltip: true },
        encoding: { theta: { field: 'tokens', type: 'quantitative' }, color: { field: 'kind', type: 'nominal', title: 'Input' } },
      },
    },
  ];
}

function base64Size(b64: string): number {
  return Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);
}

/** The backend's check of an image sent (imagesOf in app/turns.go): by its bytes' type and size. */
function checkImage(im: ImageData, i: number): Required<Omit<ImageData, 'id'>> {
  const name = im.name || `Image ${i + 1}`;
  const size = base64Size(im.data);
  if (size === 0) throw new BackendError('invalid', `${name} is empty.`);
  if (size > MaxImageBytes)
    throw new BackendError(
      'invalid',
      `${name} is ${(size / (1 << 20)).toFixed(1)} MB; an image may be at most ${MaxImageBytes >> 20} MB. Send it smaller.`,
    );
  const head = atob(im.data.slice(0, 16));
  const sniffed = head.startsWith('\x89PNG')
    ? 'image/png'
    : head.startsWith('\xff\xd8\xff')
      ? 'image/jpeg'
      : head.startsWith('GIF8')
        ? 'image/gif'
        : head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP'
          ? 'image/webp'
          : '';
  if (!sniffed) throw new BackendError('invalid', `${name} is not a PNG, JPEG, WebP or GIF image.`);
  return { name: im.name, mime: sniffed, width: im.width, height: im.height, data: im.data };
}

function fakeStage(res: ReturnType<typeof fakeResult>) {
  return {
    id: '',
    name: 'chat',
    agent: 'assistant',
    phase: '',
    response: res.final_text ? { role: 'assistant' as const, content: res.final_text } : null,
    outcome: res.outcome,
    termination: res.termination,
    diagnostics: {
      started_at: res.started_at,
      completed_at: res.completed_at,
      duration_ms: res.duration_ms,
      usage: res.usage,
      cost: res.cost,
      model_calls: res.model_calls,
      tool_calls: res.tool_calls,
      input_messages: 1,
      output_messages: 1,
    },
  };
}

/** A JSON round trip, as the real transports do (and safe for Svelte's state proxies). */
function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function delivered(ev: AgentEvent): Delivered {
  return { ...clone(ev), first_seq: ev.seq };
}

function summary(t: TurnDetail) {
  const { messages: _m, stages: _s, plan: _p, charts: _c, result: _r, events: _e, last_seq: _l, ...turn } = t;
  return turn;
}

function snippet(text: string, q: string): string {
  const at = text.toLowerCase().indexOf(q);
  if (at < 0) return '';
  const from = Math.max(0, at - 30);
  return (
    (from > 0 ? '…' : '') +
    text.slice(from, at) +
    '\x02' +
    text.slice(at, at + q.length) +
    '\x03' +
    text.slice(at + q.length, at + q.length + 60)
  );
}

/** A fake backend with a few sessions and a provider, for `npm run dev`. */
export function demoBackend(opts: FakeOptions & { long?: number; fresh?: boolean } = {}): FakeBackend {
  const b = new FakeBackend(opts);
  b.detected = [{ provider: presets[0]!, models: ['llama3.2:3b', 'qwen2.5-coder:7b'], latency_ns: 3_200_000 }];
  if (opts.fresh) return b;
  b.providers = [
    { ...presets[0]!, models: ['llama3.2:3b', 'qwen2.5-coder:7b'], default_model: 'llama3.2:3b', has_key: false, masked_key: '' },
  ];
  b.settings.default_provider = 'ollama';
  b.settings.default_model = 'llama3.2:3b';
  b.workflows.problems = [{ file: '~/.config/agentdeck/workflows/broken.yaml', line: 7, column: 3, message: 'unknown field "stpes"' }];
  const day = 86_400_000;
  const now = Date.now();
  const old = b.addSession('Quarterly sales review', new Date(now - 20 * day));
  b.addTurn(old.id, 'Read the sales table with a tool and chart the growth', { at: new Date(now - 20 * day) });
  const week = b.addSession('Plan a data migration', new Date(now - 4 * day));
  b.addTurn(week.id, 'Make a plan for the migration and critique it', { at: new Date(now - 4 * day), workflow: 'plan-execute' });
  const y = b.addSession('Why is the build failing?', new Date(now - day));
  b.addTurn(y.id, 'This will fail: the model is unreachable', { at: new Date(now - day) });
  if (opts.long) b.addSession(`Long session (${opts.long} turns)`, new Date(now - 2 * 3600_000), opts.long);
  const today = b.addSession('Explore the regions', new Date(now - 600_000));
  b.addTurn(today.id, 'Summarise the regions and draw a chart', { at: new Date(now - 600_000) });
  seedEvals(b, new Date(now - 300_000));
  seedArena(b, new Date(now - 900_000));
  return b;
}

/** Refuses a layer of settings as the store does (turn.RunSettings.Validate, wrapped). */
function checkLayer(s: RunSettings | undefined, what: string) {
  const bad = Object.values(problemsOf(s ?? {}));
  if (bad.length) throw new BackendError('invalid', `${what} are not valid: ${bad.join('; ')}.`);
}

/** An upload's base64 read as UTF-8 text. */
function decodeText(b64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
}
