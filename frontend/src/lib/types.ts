// Hand-written mirrors of the Go JSON the UI receives (snake_case, as the
// Go structs' tags say). Go nil slices arrive as null: readers use `?? []`.
// Sources: app/api.go, app/service.go, app/coalesce.go, app/approver.go,
// backend/agent/{event,result,guard,runner}.go, backend/store/*.go,
// backend/llm/{types,provider,provider_models}.go, backend/workflow/load.go.

export interface VersionInfo {
  version: string;
  commit: string;
  go_version: string;
}

export interface CodedError {
  code: string;
  message: string;
}

export interface Status {
  version: string;
  db_path: string;
  schema_version: number;
  db_error?: CodedError;
  /** How many providers are saved (0: show onboarding). */
  providers?: number;
  /** Set once the backend met damage in the database: what and what to do. */
  damaged?: string;
}

export interface ReadyReport {
  version_shown: string;
  regions: string[];
  width: number;
  height: number;
}

// ---- sessions and turns (backend/store) ----

export interface Session {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  provider: string;
  model: string;
  workflow: string;
  workspace: string;
  settings: unknown;
  turns: number;
}

export interface Page {
  limit: number;
  cursor: string;
}

export interface SessionPage {
  sessions: Session[] | null;
  next_cursor: string;
}

export interface NewSession {
  title?: string;
  provider?: string;
  model?: string;
  workflow?: string;
  workspace?: string;
}

export interface SearchHit {
  session_id: string;
  session_title: string;
  turn_id: string;
  turn_seq: number;
  kind: 'message' | 'tool_call' | 'tool_result' | 'title' | string;
  /** Plain text; matches sit between \x02 and \x03. */
  snippet: string;
  rank: number;
  at: string;
}

export type TurnState = 'running' | 'completed' | 'cancelled' | 'failed' | 'interrupted';
export type Outcome = 'succeeded' | 'failed' | 'skipped' | 'cancelled' | '';

export type TerminationKind =
  | 'completed'
  | 'natural_completion'
  | 'completed_early_after_tool_call'
  | 'max_iterations_reached'
  | 'max_tool_calls_reached'
  | 'budget_exceeded'
  | 'stall_detected'
  | 'timeout'
  | 'cancelled'
  | 'failed'
  | 'skipped'
  | 'interrupted'
  | 'disk_full'
  | 'custom'
  | '';

export interface Termination {
  kind: TerminationKind;
  limit?: number;
  used?: number;
  threshold?: number;
  /** After a step, tool-call or stall limit, a last call without tools gave the answer. */
  concluded?: boolean;
  /** The call a stall repeated. */
  call?: { name: string; arguments: string };
  /** The stage that reached the limit, on a turn's termination. */
  stage?: string;
  error?: string;
  reason?: string;
  /** "counts" names what a workflow loop's limit counts: revisions, iterations. */
  properties?: Record<string, string>;
}

export interface Turn {
  id: string;
  session_id: string;
  seq: number;
  user_message: string;
  state: TurnState;
  workflow: string;
  model: string;
  started_at: string;
  completed_at: string | null;
  final_text: string;
  outcome: Outcome;
  termination: Termination;
}

export interface TurnPage {
  turns: Turn[] | null;
  next_cursor: string;
}

export interface ChartRecord {
  event_id: string;
  seq: number;
  title: string;
  spec: unknown;
}

export interface TurnDetail extends Turn {
  messages: Message[] | null;
  stages: StageResult[] | null;
  plan: PlanStep[] | null;
  charts: ChartRecord[] | null;
  result: Result | null;
  events?: AgentEvent[] | null;
  last_seq: number;
}

// ---- llm ----

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Message {
  role: Role;
  content: string;
  reasoning?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  estimated: boolean;
}

export interface CallDiagnostics {
  model: string;
  started_at: string;
  completed_at: string;
  duration_ns: number;
  time_to_first_token_ns: number;
  usage: Usage;
  request_messages: number;
  attempts: number;
  capture?: '' | 'recorded' | 'replayed';
  ok: boolean;
  error_kind?: string;
  error?: string;
}

export interface Provider {
  name: string;
  kind: string;
  base_url: string;
  models?: string[] | null;
  default_model?: string;
  api_key_ref?: string;
  local: boolean;
  needs_key: boolean;
}

/** A saved provider as the UI sees it: never the key, only its masked tail. */
export interface ProviderView extends Provider {
  has_key: boolean;
  masked_key: string;
}

export interface ProviderInput {
  provider: Provider;
  api_key?: string;
}

export interface TestReply {
  ok: boolean;
  models: string[] | null;
  error?: string;
}

export interface Detected {
  provider: Provider;
  models: string[] | null;
  latency_ns: number;
}

// ---- agent ----

export interface ToolCallDiagnostics {
  call_id: string;
  name: string;
  arguments: string;
  result_size: number;
  started_at: string;
  duration_ms: number;
  ok: boolean;
  error?: string;
}

export interface PlanStep {
  title: string;
  status: 'pending' | 'running' | 'done' | 'error' | string;
}

export interface StageDiagnostics {
  started_at: string;
  completed_at: string;
  duration_ms: number;
  usage: Usage;
  model_calls: CallDiagnostics[] | null;
  tool_calls: ToolCallDiagnostics[] | null;
  input_messages: number;
  output_messages: number;
}

export interface StageResult {
  id: string;
  name: string;
  agent: string;
  phase: string;
  response: Message | null;
  outcome: Outcome;
  termination: Termination;
  diagnostics: StageDiagnostics;
}

export interface Result {
  messages?: Message[] | null;
  steps_used: number;
  tool_calls_used: number;
  cancelled: boolean;
  budget_exhausted: boolean;
  plan_steps: PlanStep[] | null;
  plan_incomplete_reason: string;
  error: string;
  error_source?: string;
  final_text: string;
  /** The stage whose reply final_text is. */
  final_stage_id?: string;
  /** Why final_text is not a clean answer (a draft the critic never passed). */
  final_note?: string;
  ok: boolean;
  outcome: Outcome;
  termination: Termination;
  usage: Usage;
  started_at: string;
  completed_at: string;
  duration_ms: number;
  model_calls: CallDiagnostics[] | null;
  tool_calls: ToolCallDiagnostics[] | null;
  stages?: StageResult[] | null;
}

export interface Limits {
  max_steps: number;
  max_tool_calls: number;
  token_budget: number;
  /** Go time.Duration: nanoseconds. */
  timeout: number;
  stall_threshold: number;
  max_tool_output: number;
}

export type EventType =
  | 'token'
  | 'think_start'
  | 'think_end'
  | 'tool_call'
  | 'tool_result'
  | 'tool_error'
  | 'guard_triggered'
  | 'plan_generated'
  | 'step_start'
  | 'step_end'
  | 'memory_recalled'
  | 'context_compressed'
  | 'handoff_start'
  | 'handoff_end'
  | 'reflection_start'
  | 'reflection_end'
  | 'critique_generated'
  | 'refining'
  | 'revision_completed'
  | 'replay_divergence'
  | 'chart'
  | 'stage_start'
  | 'stage_end'
  | 'error'
  | 'final_answer'
  | 'cancelled'
  | 'turn_completed';

export interface AgentEvent {
  id: string;
  session_id: string;
  turn_id: string;
  stage_id: string;
  seq: number;
  parent_id: string;
  at: string;
  type: EventType;
  phase: string;
  checkpoint: boolean;
  data: unknown;
}

/** An event as the UI receives it live: tokens may be merged (first_seq..seq). */
export interface Delivered extends AgentEvent {
  first_seq: number;
}

/**
 * A turn whose stored state changed with no event of its own: the process
 * running it died and the backend marked it interrupted (app/hub.go).
 */
export interface TurnChange {
  turn_id: string;
  session_id: string;
  state: TurnState;
}

// Event payloads, one per type.
export interface TokenData { text: string }
export interface ThinkEndData { prompt_tokens: number; completion_tokens: number }
export interface ToolCallData { call_id: string; name: string; args: unknown }
export interface ToolResultData { call_id: string; name: string; output: string; duration_ms: number }
export interface ToolErrorData { call_id: string; name: string; error: string; duration_ms: number; not_run?: boolean }
export interface GuardData { guard: string; blocked: boolean; reason: string }
export interface PlanData { steps: PlanStep[] | null }
export interface StepStartData { step_index: number; description: string }
export interface StepEndData { step_index: number; success: boolean }
export interface MemoryData { count: number }
export interface CompressedData { before_count: number; after_count: number; before_tokens: number; after_tokens: number }
export interface HandoffStartData { from: string; to: string }
export interface HandoffEndData { to: string; outcome?: Outcome; target_stage_id?: string }
export interface ReflectionStartData { iteration: number }
export interface ReflectionEndData { iteration: number; score: number; passed: boolean }
export interface CritiqueData { score: number; passed: boolean; feedback: string }
export interface RefiningData { iteration: number }
export interface RevisionData { iteration: number; text: string }
export interface ReplayDivergenceData { call?: number; kind: string; message: string; diffs?: string[] | null }
export interface ChartData { spec: unknown; title: string }
export interface StageStartData { stage_id: string; stage: string; phase: string; agent: string; final?: boolean }
export interface ErrorData { source: string; message: string }
export interface FinalAnswerData { text: string }
export interface CancelledData { partial_text: string }

// ---- app ----

export interface SendRequest {
  session_id: string;
  message: string;
  workflow?: string;
  model?: string;
  limits: Partial<Limits>;
  attach?: string[];
  /** Store the turn even in a damaged database (the person confirmed). */
  force?: boolean;
}

export interface TurnRef {
  turn_id: string;
  session_id: string;
}

export interface RerunOptions {
  model?: string;
  workflow?: string;
}

export type ExportFormat = 'md' | 'json' | 'jsonl';

export interface ExportReply {
  filename: string;
  content: string;
}

export interface WorkflowInfo {
  name: string;
  description: string;
  kind: string;
  source: string;
}

export interface WorkflowProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

export interface WorkflowList {
  workflows: WorkflowInfo[] | null;
  problems: WorkflowProblem[] | null;
}

export type Answer = 'allow_once' | 'always' | 'deny';

export interface PendingApproval {
  session_id: string;
  turn_id: string;
  call_id: string;
  tool: string;
  args: unknown;
  side_effects: boolean;
  guard: string;
  reason: string;
}

export interface ApprovalAnswer {
  call_id: string;
  answer: Answer;
}

export type Theme = 'system' | 'light' | 'dark';
export type CaptureMode = 'off' | 'record' | 'auto';

export interface Settings {
  default_provider: string;
  default_model: string;
  default_workflow: string;
  limits: Limits;
  capture: CaptureMode | '';
  theme: Theme | '';
}
