// The only module that talks to the backend.
//
// In the desktop window the Wails runtime injects window.go with the bound
// Go methods and window.runtime with the event bus; in a browser (agentdeck
// serve) the same methods are reached over HTTP and events over an
// EventSource. Both sit behind the Backend interface, so components and
// stores never know which one they have. The calls and their types are
// generated from the Go API (./generated.ts): a call of a method the Go API
// lacks, or with arguments it does not take, does not compile.
import type { API } from './generated';
import type {
  Agreement,
  AddDocumentRequest,
  DocumentText,
  KnowledgeDocument,
  KnowledgePlace,
  KnowledgeResults,
  AboutInfo,
  EvalCasesSave,
  EvalCasesSaved,
  EvalRun,
  EvalStart,
  EvalSuiteInfo,
  EvalRunSummary,
  RunDiff,
  RunReport,
  AgentEvent,
  BranchPage,
  BudgetState,
  ApprovalAnswer,
  Detected,
  ExportFormat,
  ExportOptions,
  ExportReply,
  Facts,
  ImportReport,
  ImageData,
  Meter,
  MeterRequest,
  NewSession,
  Page,
  Project,
  ProjectSummary,
  Prompt,
  PromptImport,
  Resolved,
  Scope,
  TagCount,
  PendingApproval,
  Provider,
  ProviderInput,
  ProviderView,
  ReadyReport,
  RerunOptions,
  RerunFromRequest,
  TimelineStep,
  TurnDiff,
  SearchHit,
  SendRequest,
  Session,
  SessionPage,
  Settings,
  ObservabilitySave,
  ObservabilityView,
  Status,
  TestReply,
  TurnDetail,
  ArenaBoard,
  BoardRequest,
  VoteFilter,
  Review,
  ReviewFilter,
  ReviewedTurn,
  ReviewSuiteMake,
  ReviewSuiteMade,
  LabelCount,
  VoteRecord,
  GroupRef,
  GroupSendRequest,
  TurnGroup,
  Vote,
  TurnPage,
  TurnRef,
  TurnTree,
  UploadedFile,
  UsageRequest,
  UsageView,
  VersionInfo,
  WorkflowList,
  WorkflowProblem,
} from './types';
import { BUS_EVENT, dispatch, isBusMessage, type BusHandlers } from './bus';

export type * from './types';
export type { BusHandlers, BusMessage } from './bus';

export interface Backend {
  readonly kind: 'wails' | 'http';
  listSessions(p?: Partial<Page>): Promise<SessionPage>;
  createSession(req: NewSession): Promise<Session>;
  getSession(id: string): Promise<Session>;
  renameSession(id: string, title: string): Promise<void>;
  updateSession(s: Session): Promise<void>;
  deleteSession(id: string): Promise<void>;
  searchSessions(query: string, limit: number): Promise<SearchHit[] | null>;
  /** Search within one project ('-': no project) or a tag. */
  searchIn(query: string, limit: number, scope: Scope): Promise<SearchHit[] | null>;
  /** The projects by name, with their counts of sessions; getProject has one's settings. */
  listProjects(): Promise<ProjectSummary[] | null>;
  getProject(idOrName: string): Promise<Project>;
  createProject(p: Project): Promise<Project>;
  updateProject(p: Project): Promise<void>;
  /** sessions: 'keep' (move them to no project) or 'delete'; '' is refused for a project with sessions. */
  deleteProject(id: string, sessions: string): Promise<void>;
  moveSession(sessionId: string, projectId: string): Promise<void>;
  pinSession(sessionId: string, pinned: boolean): Promise<void>;
  archiveSession(sessionId: string, archived: boolean): Promise<void>;
  setTags(sessionId: string, tags: string[]): Promise<void>;
  listTags(): Promise<TagCount[] | null>;
  /** What the session's next turn would run with, and where each value came from. */
  sessionSettings(sessionId: string): Promise<Resolved>;
  /** The global prompts and projectId's ('' the global ones only, '*' every prompt), by name. */
  listPrompts(projectId: string): Promise<Prompt[] | null>;
  /** Stores a new prompt (id '') or changes one; a name its scope already has is refused. */
  savePrompt(p: Prompt): Promise<Prompt>;
  deletePrompt(id: string): Promise<void>;
  /** The prompts listPrompts(projectId) lists, as one YAML file. */
  exportPrompts(projectId: string): Promise<ExportReply>;
  /** Stores a prompt file's prompts; a file with any problem is refused, naming each, and nothing is written. */
  importPrompts(content: string): Promise<PromptImport>;
  /** Reads an uploaded file (or a web page) as a document of a session or a project. */
  addDocument(req: AddDocumentRequest): Promise<KnowledgeDocument>;
  /** A session's documents and its project's, or a project's, newest first. */
  listDocuments(place: KnowledgePlace): Promise<KnowledgeDocument[] | null>;
  /** A document with its passages in order. */
  getDocument(id: string): Promise<DocumentText>;
  /** Deletes a document from the file; turns that cited it keep their copies. */
  removeDocument(id: string): Promise<void>;
  /** Searches a place's documents as search_knowledge does, saying whether it was hybrid or lexical. */
  searchKnowledge(place: KnowledgePlace, query: string): Promise<KnowledgeResults>;
  sendMessage(req: SendRequest): Promise<TurnRef>;
  /**
   * Stores a file's bytes (base64, at most MaxUploadBytes) for a message
   * to attach: the path it answers goes in SendRequest.attach. For the
   * files a page knows only as bytes: a browser's, and the window's picker.
   */
  uploadAttachment(name: string, content: string): Promise<UploadedFile>;
  stopTurn(turnId: string): Promise<void>;
  /** Sends one message to 2–4 targets at once, each a turn in a column of a new group. */
  sendSideBySide(req: GroupSendRequest): Promise<GroupRef>;
  /** A group and the groups it follows, oldest first, each with its columns and vote. */
  groupChain(groupId: string): Promise<TurnGroup[] | null>;
  /** Stops every running column of a group. */
  stopGroup(groupId: string): Promise<void>;
  /** "Continue with this one": that column's branch becomes active and side-by-side mode ends. */
  continueWith(turnId: string): Promise<TurnRef>;
  /** Shows a group side by side again. */
  openGroup(groupId: string): Promise<void>;
  /** Records the verdict on a group (replacing an earlier one). */
  voteOnGroup(v: Vote): Promise<Vote>;
  /** Votes with what they compared, newest first. */
  listVotes(f: VoteFilter): Promise<VoteRecord[] | null>;
  /** The leaderboard of a project's votes, or of all. */
  arenaBoard(req: BoardRequest): Promise<ArenaBoard>;
  /** Stores a review of a turn or one of its steps (replacing it); an empty one removes it. */
  saveReview(r: Review): Promise<Review>;
  /** The reviews of these turns and of their steps. */
  reviewsFor(turnIds: string[]): Promise<Review[] | null>;
  /** The ended turns a filter picks, newest first, with their reviews (the review queue). */
  listReviewed(f: ReviewFilter): Promise<ReviewedTurn[] | null>;
  /** Labels in use starting with prefix, most used first. */
  reviewLabels(prefix: string): Promise<LabelCount[] | null>;
  /** Makes an evaluation suite of the turns a review filter picks (a new suite file, or cases added to one). */
  suiteFromReviewed(req: ReviewSuiteMake): Promise<ReviewSuiteMade>;
  getTurn(turnId: string, withEvents: boolean): Promise<TurnDetail>;
  listTurns(sessionId: string, p?: Partial<Page>): Promise<TurnPage>;
  /** The active branch, newest first, with each turn's versions: the conversation as it reads. */
  listBranch(sessionId: string, p?: Partial<Page>): Promise<BranchPage>;
  eventsAfter(turnId: string, afterSeq: number): Promise<AgentEvent[] | null>;
  replayTurn(turnId: string): Promise<TurnRef>;
  rerunTurn(turnId: string, opts: RerunOptions): Promise<TurnRef>;
  /** Re-runs a stored turn from one of its steps with one edit: a new version of it, streaming like any turn. */
  rerunFrom(req: RerunFromRequest): Promise<TurnRef>;
  /** A stored turn's steps, each a point to re-run it from. */
  turnSteps(turnId: string): Promise<TimelineStep[] | null>;
  /** Two turns compared step by step from where the second left the first. */
  diffTurns(turnA: string, turnB: string): Promise<TurnDiff>;
  /** Reads an image file of this machine by its path (one dropped on the window), to send. */
  imageFile(path: string): Promise<ImageData>;
  /** Reads the image on the clipboard: the Linux window's web view hands a paste of one to the page empty. */
  clipboardImage(): Promise<ImageData>;
  /** An image stored with a message, with its bytes (base64), to show. */
  getImage(id: string): Promise<ImageData>;
  /** A session's turns, each naming the turn it follows, and its active branch. */
  sessionTree(sessionId: string): Promise<TurnTree>;
  /** Makes the branch through a turn active; answers its newest turn. */
  switchBranch(turnId: string): Promise<TurnRef>;
  /** How many turns deleteTurn would delete: the turn and all that follow it. */
  countTurnsFrom(turnId: string): Promise<number>;
  deleteTurn(turnId: string): Promise<number>;
  /** A new session from the branch up to a turn. */
  forkSession(turnId: string): Promise<Session>;
  exportSession(id: string, format: ExportFormat, opts?: ExportOptions): Promise<ExportReply>;
  importSession(content: string): Promise<Session>;
  /** Imports our own export or another app's history (ChatGPT, Open WebUI, LM Studio, OpenAI messages): the sessions made and what was taken and left out. */
  importFile(name: string, content: string): Promise<ImportReport>;
  listProviders(): Promise<ProviderView[] | null>;
  presets(): Promise<Provider[] | null>;
  saveProvider(input: ProviderInput): Promise<void>;
  deleteProvider(name: string): Promise<void>;
  testProvider(input: ProviderInput): Promise<TestReply>;
  detectLocal(): Promise<Detected[] | null>;
  listWorkflows(): Promise<WorkflowList>;
  validateWorkflow(name: string, content: string): Promise<WorkflowProblem[] | null>;
  pendingApprovals(): Promise<PendingApproval[] | null>;
  answerApproval(a: ApprovalAnswer): Promise<void>;
  getSettings(): Promise<Settings>;
  saveSettings(s: Settings): Promise<void>;
  /** Where turns go as OpenTelemetry traces, whether headers are kept (never their values), and the exporter's state. */
  getObservability(): Promise<ObservabilityView>;
  /** Saves the export's settings and headers (kept in the keyring) and restarts it. */
  saveObservability(req: ObservabilitySave): Promise<ObservabilityView>;
  /**
   * How full the model's context would be with a draft, part by part, and
   * where the provider's budget stands. The history is counted once on the
   * Go side; only the draft is counted again, yet callers debounce typing.
   */
  contextMeter(req: MeterRequest): Promise<Meter>;
  /** Tokens and cost over a span of days (the last 30 by default), with the Usage page's charts. */
  usage(req: UsageRequest): Promise<UsageView>;
  /** The same usage as CSV, a row a group. */
  usageCSV(req: UsageRequest): Promise<ExportReply>;
  /** A model's window and price on a saved provider, and where each came from. */
  modelFacts(provider: string, model: string): Promise<Facts>;
  /** Where a provider's monthly budget stands. */
  budgetState(provider: string): Promise<BudgetState>;
  status(): Promise<Status>;
  version(): Promise<VersionInfo>;
  /** What the About box shows: the build, the platform, the data folder and the database's size, the project's links. */
  about(): Promise<AboutInfo>;
  /** Evaluation runs, newest first, with how each did (of one suite when given). */
  evalRuns(suite?: string): Promise<EvalRunSummary[]>;
  /** One run: each case × model × repeat's result, linked to its turn, and a summary per model. */
  evalReport(runID: string): Promise<RunReport>;
  /** One result's whole answer (a report carries its first 2,000 characters; answer_more says there is more). */
  evalAnswer(resultID: string): Promise<string>;
  /** How often a run's judge agrees with the thumbs given its cells' turns. */
  evalAgreement(runID: string): Promise<Agreement>;
  /** Two runs compared case by case: regressions, fixes, still failing. */
  evalDiff(runA: string, runB: string): Promise<RunDiff>;
  /** A suite of one case made from a turn, as YAML to edit (Add to evaluation). */
  evalCaseFromTurn(turnID: string): Promise<string>;
  /** The suite files in the data folder's evals/, each with its problems if it has any. */
  evalSuites(): Promise<EvalSuiteInfo[]>;
  /** Adds cases to a suite file (or starts a new one); a suite that would not read back is not saved, and its problems come back. */
  saveEvalCases(req: EvalCasesSave): Promise<EvalCasesSaved>;
  /** Writes the example suite (every assertion kind) into the evaluations folder; a file of its name that is not the example is never overwritten. */
  createExampleSuite(): Promise<EvalSuiteInfo>;
  /** Starts running a suite file; its progress comes to subscribe's onEvalProgress. */
  startEval(req: EvalStart): Promise<EvalRun>;
  /** Stops a run this app started: running cases are stored cancelled. */
  stopEval(runID: string): Promise<void>;
  uiReady(report: ReadyReport): Promise<void>;
  /**
   * Starts the one subscription to the backend's bus (./bus.ts): each
   * message goes to the handler of its kind, and onResync also hears that
   * the browser's stream reconnected after a drop. Returns the function
   * that ends it.
   */
  subscribe(handlers: BusHandlers): () => void;
  /** Opens a link outside the app; the app window never navigates. */
  openURL(url: string): void;
  /**
   * Listens for files dropped on the window with their paths, where the
   * runtime can tell them (Wails' OnFileDrop). Returns undefined when it cannot.
   */
  onFileDrop(fn: (paths: string[]) => void): (() => void) | undefined;
}

/** An error from the backend: a stable code and a message for people. */
export class BackendError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BackendError';
  }
}

type Bound = (...args: unknown[]) => Promise<unknown>;
/** window.go.app.API: every method of the Go API (app/api.go) by its Go name. */
export type Binding = Record<string, Bound>;

export interface WailsRuntime {
  EventsOn(name: string, fn: (...data: unknown[]) => void): (() => void) | void;
  EventsOff?(name: string, ...more: string[]): void;
  BrowserOpenURL?(url: string): void;
  OnFileDrop?(fn: (x: number, y: number, paths: string[]) => void, useDropTarget: boolean): void;
  OnFileDropOff?(): void;
}

export interface WailsWindow {
  go?: { app?: { API?: Binding } };
  runtime?: WailsRuntime;
}

/** One call of the Go API: its method, its arguments as Go takes them, and what it answers. */
type Call = <M extends keyof API>(method: M, ...args: API[M]['args']) => Promise<API[M]['result']>;

/** Picks the Wails bindings when present, else HTTP against the page's origin. */
export function createBackend(win: Window & WailsWindow = window, fetchFn: typeof fetch = fetch.bind(window)): Backend {
  const binding = win.go?.app?.API;
  if (binding) return wailsBackend(binding, win.runtime, win);
  const ES = (win as { EventSource?: typeof EventSource }).EventSource;
  const url = new URL(win.location.href);
  const backend = httpBackend(url, fetchFn, win.sessionStorage, ES ? (u) => new ES(u) : undefined, win);
  if (url.searchParams.has('token')) {
    url.searchParams.delete('token');
    win.history?.replaceState(win.history.state, '', url.pathname + url.search + url.hash);
  }
  return backend;
}

export function wailsBackend(b: Binding, rt?: WailsRuntime, win?: Pick<Window, 'open'>): Backend {
  const call: Call = async (method, ...args) => {
    const fn = b[method];
    if (typeof fn !== 'function') throw new BackendError('unavailable', `This version of Agentdeck has no ${method}.`);
    return (await guard(fn(...args))) as never;
  };
  return {
    ...methods(call),
    kind: 'wails',
    subscribe(handlers) {
      if (!rt) return () => {};
      const off = rt.EventsOn(BUS_EVENT, (msg) => {
        if (isBusMessage(msg)) dispatch(handlers, msg);
      });
      return () => {
        if (typeof off === 'function') off();
      };
    },
    openURL(url) {
      if (!isExternal(url)) return;
      if (rt?.BrowserOpenURL) rt.BrowserOpenURL(url);
      else win?.open(url, '_blank', 'noopener,noreferrer');
    },
    onFileDrop(fn) {
      if (!rt?.OnFileDrop) return undefined;
      rt.OnFileDrop((_x, _y, paths) => fn(paths ?? []), false);
      return () => rt.OnFileDropOff?.();
    },
  };
}

const tokenKey = 'agentdeck.token';

interface EventSourceLike {
  onmessage: ((e: MessageEvent) => void) | null;
  onerror: ((e: Event) => void) | null;
  onopen: ((e: Event) => void) | null;
  close(): void;
}

export function httpBackend(
  url: URL,
  fetchFn: typeof fetch,
  storage: Storage,
  openStream?: (url: string) => EventSourceLike,
  win?: Pick<Window, 'open'>,
): Backend {
  // The server prints a URL with ?token=...; keep it for reloads and take it
  // out of the address bar so it does not end up in screenshots or history.
  const fromURL = url.searchParams.get('token');
  if (fromURL) storage.setItem(tokenKey, fromURL);
  const token = storage.getItem(tokenKey) ?? '';

  const call: Call = async (method, ...args) => {
    let res: Response;
    try {
      res = await fetchFn(`/api/call/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(args),
      });
    } catch {
      throw new BackendError('unavailable', 'Cannot reach the Agentdeck server. Is `agentdeck serve` still running?');
    }
    const body: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const e = body as { code?: string; message?: string } | null;
      throw new BackendError(e?.code ?? 'internal', e?.message ?? `The server answered ${res.status}.`);
    }
    return body as never;
  };

  return {
    ...methods(call),
    kind: 'http',
    subscribe(handlers) {
      if (!openStream) return () => {};
      const es = openStream(`/api/events?token=${encodeURIComponent(token)}`);
      let dropped = false;
      es.onmessage = (e) => {
        let msg: unknown;
        try {
          msg = JSON.parse(String(e.data));
        } catch {
          return;
        }
        if (isBusMessage(msg)) dispatch(handlers, msg);
      };
      // EventSource reconnects by itself; whatever was sent meanwhile is
      // lost, so the stores catch up from the last seq they have.
      es.onerror = () => {
        dropped = true;
      };
      es.onopen = () => {
        if (dropped) {
          dropped = false;
          handlers.onResync?.();
        }
      };
      return () => es.close();
    },
    openURL(u) {
      if (isExternal(u)) win?.open(u, '_blank', 'noopener,noreferrer');
    },
    onFileDrop: () => undefined,
  };
}

type Transport = Omit<Backend, 'kind' | 'subscribe' | 'openURL' | 'onFileDrop'>;

// One table for both transports: the Go method name and its arguments, in
// the order of the Go signature. The Go methods with nothing to return
// answer Done ({}); here they resolve to nothing.
function methods(call: Call): Transport {
  // Only what Page has; eval goes only when set, as the Go side's omitempty.
  // Only what Page has; the flags and filters go only when set, as the Go side's omitempty.
  const page = (p?: Partial<Page>): Page => ({
    limit: p?.limit ?? 0,
    cursor: p?.cursor ?? '',
    ...(p?.eval ? { eval: true } : {}),
    ...(p?.project ? { project: p.project } : {}),
    ...(p?.tag ? { tag: p.tag } : {}),
    ...(p?.archived ? { archived: true } : {}),
    ...(p?.archived_only ? { archived_only: true } : {}),
    ...(p?.reviews ? { reviews: p.reviews } : {}),
  });
  const done = async (p: Promise<unknown>): Promise<void> => void (await p);
  return {
    listSessions: (p) => call('ListSessions', page(p)),
    createSession: (req) => call('CreateSession', req),
    getSession: (id) => call('GetSession', id),
    renameSession: (id, title) => done(call('RenameSession', id, title)),
    updateSession: (s) => done(call('UpdateSession', s)),
    deleteSession: (id) => done(call('DeleteSession', id)),
    searchSessions: (q, limit) => call('SearchSessions', q, limit),
    searchIn: (q, limit, scope) => call('SearchIn', q, limit, scope),
    listProjects: () => call('ListProjects'),
    getProject: (idOrName) => call('GetProject', idOrName),
    createProject: (p) => call('CreateProject', p),
    updateProject: (p) => done(call('UpdateProject', p)),
    deleteProject: (id, sessions) => done(call('DeleteProject', id, sessions)),
    moveSession: (sid, pid) => done(call('MoveSession', sid, pid)),
    pinSession: (sid, pinned) => done(call('PinSession', sid, pinned)),
    archiveSession: (sid, archived) => done(call('ArchiveSession', sid, archived)),
    setTags: (sid, tags) => done(call('SetTags', sid, tags)),
    listTags: () => call('ListTags'),
    sessionSettings: (sid) => call('SessionSettings', sid),
    listPrompts: (pid) => call('ListPrompts', pid),
    savePrompt: (p) => call('SavePrompt', p),
    deletePrompt: (id) => done(call('DeletePrompt', id)),
    exportPrompts: (pid) => call('ExportPrompts', pid),
    importPrompts: (content) => call('ImportPrompts', content),
    addDocument: (req) => call('AddDocument', req),
    listDocuments: (place) => call('ListDocuments', place),
    getDocument: (id) => call('GetDocument', id),
    removeDocument: (id) => done(call('RemoveDocument', id)),
    searchKnowledge: (place, query) => call('SearchKnowledge', place, query),
    sendMessage: (req) => call('SendMessage', req),
    uploadAttachment: (name, content) => call('UploadAttachment', name, content),
    stopTurn: (id) => done(call('StopTurn', id)),
    sendSideBySide: (req) => call('SendSideBySide', req),
    groupChain: (id) => call('GroupChain', id),
    stopGroup: (id) => done(call('StopGroup', id)),
    continueWith: (id) => call('ContinueWith', id),
    openGroup: (id) => done(call('OpenGroup', id)),
    voteOnGroup: (v) => call('VoteOnGroup', v),
    listVotes: (f) => call('ListVotes', f),
    saveReview: (r) => call('SaveReview', r),
    reviewsFor: (ids) => call('ReviewsFor', ids),
    listReviewed: (f) => call('ListReviewed', f),
    reviewLabels: (prefix) => call('ReviewLabels', prefix),
    suiteFromReviewed: (req) => call('SuiteFromReviewed', req),
    arenaBoard: (req) => call('ArenaBoard', req),
    // Narrower than Go says (types.ts): the stored result is a Result.
    getTurn: (id, withEvents) => call('GetTurn', id, withEvents) as Promise<TurnDetail>,
    listTurns: (sid, p) => call('ListTurns', sid, page(p)),
    listBranch: (sid, p) => call('ListBranch', sid, page(p)),
    eventsAfter: (id, after) => call('EventsAfter', id, after),
    replayTurn: (id) => call('ReplayTurn', id),
    rerunTurn: (id, opts) => call('RerunTurn', id, opts),
    rerunFrom: (req) => call('RerunFrom', req),
    turnSteps: (id) => call('TurnSteps', id),
    diffTurns: (a, b) => call('DiffTurns', a, b),
    getImage: (id) => call('GetImage', id),
    imageFile: (path) => call('ImageFile', path),
    clipboardImage: () => call('ClipboardImage'),
    sessionTree: (sid) => call('SessionTree', sid),
    switchBranch: (id) => call('SwitchBranch', id),
    countTurnsFrom: (id) => call('CountTurnsFrom', id),
    deleteTurn: (id) => call('DeleteTurn', id),
    forkSession: (id) => call('ForkSession', id),
    exportSession: (id, format, opts) => call('ExportSession', id, format, opts ?? {}),
    importSession: (content) => call('ImportSession', content),
    importFile: (name, content) => call('ImportFile', name, content),
    listProviders: () => call('ListProviders'),
    presets: () => call('Presets'),
    saveProvider: (input) => done(call('SaveProvider', input)),
    deleteProvider: (name) => done(call('DeleteProvider', name)),
    testProvider: (input) => call('TestProvider', input),
    detectLocal: () => call('DetectLocal'),
    listWorkflows: () => call('ListWorkflows'),
    validateWorkflow: (name, content) => call('ValidateWorkflow', name, content),
    pendingApprovals: () => call('PendingApprovals'),
    answerApproval: (a) => done(call('AnswerApproval', a)),
    // Narrower than Go says (types.ts): capture and theme are one of the values offered.
    getSettings: () => call('GetSettings') as Promise<Settings>,
    saveSettings: (s) => done(call('SaveSettings', s)),
    getObservability: () => call('GetObservability'),
    saveObservability: (req) => call('SaveObservability', req),
    contextMeter: (req) => call('ContextMeter', req),
    usage: (req) => call('Usage', req),
    usageCSV: (req) => call('UsageCSV', req),
    modelFacts: (provider, model) => call('ModelFacts', provider, model),
    budgetState: (provider) => call('BudgetState', provider),
    status: () => call('Status'),
    version: () => call('Version'),
    about: () => call('About'),
    evalRuns: async (suite) => (await call('EvalRuns', suite ?? '')) ?? [],
    evalReport: (runID) => call('EvalReport', runID),
    evalAnswer: (resultID) => call('EvalAnswer', resultID),
    evalAgreement: (runID) => call('EvalAgreement', runID),
    evalDiff: (a, b) => call('EvalDiff', a, b),
    evalCaseFromTurn: (turnID) => call('EvalCaseFromTurn', turnID),
    evalSuites: async () => (await call('EvalSuites')) ?? [],
    saveEvalCases: (req) => call('SaveEvalCases', req),
    createExampleSuite: () => call('CreateExampleSuite'),
    startEval: (req) => call('StartEval', req),
    stopEval: (runID) => done(call('StopEval', runID)),
    uiReady: (r) => done(call('UIReady', r)),
  };
}

/** Only web and mail links leave the app. */
export function isExternal(url: string): boolean {
  return /^(https?:|mailto:)/i.test(url.trim());
}

// Wails rejects a promise with what the Go side's ErrorFormatter returned:
// {code, message} for our errors; older paths may give the text, possibly JSON.
async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw toBackendError(err);
  }
}

export function toBackendError(err: unknown): BackendError {
  if (err instanceof BackendError) return err;
  if (isCoded(err)) return new BackendError(err.code, err.message);
  const text = err instanceof Error ? err.message : String(err);
  try {
    const parsed = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'string' && typeof parsed.message === 'string') {
      return new BackendError(parsed.code, parsed.message);
    }
  } catch {
    // not JSON: fall through
  }
  return new BackendError('internal', text || 'Something went wrong inside Agentdeck.');
}

/** The message to show for any failure. */
export function messageOf(err: unknown): string {
  return toBackendError(err).message;
}

/** The code of apperr.Damaged: the database file has unreadable pages. */
export const DAMAGED = 'damaged';

/** Whether err says the database is damaged. */
export function isDamaged(err: unknown): boolean {
  return toBackendError(err).code === DAMAGED;
}

/** The code of apperr.OverBudget: the provider's monthly budget is spent. */
export const OVER_BUDGET = 'over_budget';

/** Whether err says the provider's monthly budget is spent (send again only with consent). */
export function isOverBudget(err: unknown): boolean {
  return toBackendError(err).code === OVER_BUDGET;
}

function isCoded(v: unknown): v is { code: string; message: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { code?: unknown }).code === 'string' &&
    typeof (v as { message?: unknown }).message === 'string'
  );
}
