// The types of what the UI sends to and gets from the backend. They are
// generated from the Go types (./generated.ts, `make types`); this module
// gives a few of them the names the UI uses and adds what is the UI's own.
// Go nil slices and pointers arrive as null, as the generated types say:
// readers use `?? []`.
import type * as gen from './generated';

export type {
  // export/foreign: what an import of another app's file took and left out
  App as ImportedApp,
  ConversationReport,
  FileReport,
} from './generated';

export type {
  // knowledge: documents, their passages, a search's hits, what a turn cited
  AddDocumentRequest,
  DocFormat,
  Document as KnowledgeDocument,
  DocumentText,
  Hit as KnowledgeHit,
  Mode as KnowledgeMode,
  Passage,
  Place as KnowledgePlace,
  Results as KnowledgeResults,
  Source,
  SourcesData,
} from './generated';

export type {
  ExporterStatus,
  Observability,
  ObservabilitySave,
  ObservabilityView,
  // side by side: groups of columns, their targets and votes, the board
  Board as ArenaBoard,
  BoardRequest,
  Rating as ArenaRating,
  VoteFilter,
  VoteRecord,
  GroupColumn,
  // human review of turns and steps
  Review,
  ReviewFilter,
  ReviewedTurn,
  ReviewSuiteMake,
  ReviewSuiteMade,
  LabelCount,
  SessionReviews,
  GroupRef,
  GroupSendRequest,
  GroupTarget,
  TurnGroup,
  Vote,
  VoteOutcome,
} from './generated';

export type {
  // app: the API's requests and replies, and the bus's payloads
  AboutInfo,
  EvalRunSummary,
  EvalCaseEnded,
  EvalCasesSave,
  EvalCasesSaved,
  EvalProgress,
  EvalStart,
  EvalSuiteInfo,
  ApprovalAnswer,
  Delivered,
  Done,
  ExportOptions,
  ExportReply,
  ImageData,
  ImportReport,
  NewSession,
  PendingApproval,
  ProviderInput,
  ProviderView,
  ReadyReport,
  TurnTree,
  RerunOptions,
  RerunFromRequest,
  Edit as RerunEdit,
  TimelineStep,
  TurnDiff,
  StepRow,
  StepCell,
  TurnSide,
  TurnTotals,
  TextOp,
  LiveFromData,
  SendRequest,
  Status,
  TestReply,
  TurnChange,
  TurnRef,
  UploadedFile,
  UsageRequest,
  UsageView,
  WorkflowInfo,
  WorkflowList,
  // turn: the event envelope and its payloads, a turn's result
  Answer,
  CancelledData,
  ArtifactData,
  ChartData,
  CodeError,
  CodeRunData,
  CompressedData,
  CritiqueData,
  ErrorData,
  EventBase,
  EventOf,
  EventType,
  FinalAnswerData,
  GuardData,
  HandoffEndData,
  HandoffStartData,
  Limits,
  MemoryData,
  Resolved,
  RunSettings,
  Sampling,
  ModelRetryData,
  ModelWaitingData,
  Outcome,
  PlanData,
  PlanStep,
  ReasoningData,
  ReflectionEndData,
  ReflectionStartData,
  RefiningData,
  ReplayDivergenceData,
  Result,
  RevisionData,
  StageEndData,
  StageDiagnostics,
  StageResult,
  StageStartData,
  StepEndData,
  StepStartData,
  Termination,
  TerminationKind,
  ThinkEndData,
  ThinkStartData,
  TokenData,
  ToolCallData,
  ToolCallDiagnostics,
  ToolErrorData,
  ToolResultData,
  TurnCompletedData,
  // store
  BranchPage,
  ChartRecord,
  Page,
  Project,
  ProjectSummary,
  Prompt,
  PromptImport,
  PromptImported,
  Scope,
  SearchHit,
  TagCount,
  Session,
  SessionPage,
  Turn,
  TurnPage,
  TurnState,
  Copied,
  UsageItem,
  UsagePoint,
  UsageReport,
  UsageRow,
  UsageSum,
  // runner: the context meter, a model's facts, a provider's budget
  BudgetState,
  Facts,
  Meter,
  MeterPart,
  MeterRequest,
  // llm
  Budget,
  CallDiagnostics,
  Cost,
  Price,
  Detected,
  Message,
  Provider,
  Role,
  ToolCall,
  Usage,
  // the rest, under the names the UI gives them
  Event as AgentEvent,
  Error as CodedError,
  Image as ImageRef,
  Format as ExportFormat,
  Info as VersionInfo,
  Link as AboutLink,
  Problem as WorkflowProblem,
  Window as ModelWindow,
  Method as CountMethod,
  Chart as UsageChart,
} from './generated';

/**
 * A stored turn. Its result is stored as raw JSON (so Go types it as
 * json.RawMessage); it is a turn's Result.
 */
export interface TurnDetail extends Omit<gen.TurnDetail, 'result'> {
  result: gen.Result | null;
}

// The preferences' capture and theme are plain strings in Go
// (store.AppSettings); these are the values the settings screen offers.
export type Theme = 'system' | 'light' | 'dark';
export type CaptureMode = 'off' | 'record' | 'auto';

export interface Settings extends Omit<gen.Settings, 'capture' | 'theme'> {
  capture: CaptureMode | '';
  theme: Theme | '';
}

// eval: evaluation runs as the window reads them
export type { Agreement, AssertOutcome, CellResult, DiffCell, EvalRun, ModelSummary, RunDiff, RunReport } from './generated';
