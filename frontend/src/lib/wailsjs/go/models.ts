export namespace agent {
	
	export class Time {
	
	
	    static createFrom(source: any = {}) {
	        return new Time(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	
	    }
	}
	export class Event {
	    id: string;
	    session_id: string;
	    turn_id: string;
	    stage_id: string;
	    seq: number;
	    parent_id: string;
	    at: Time;
	    type: string;
	    phase: string;
	    checkpoint: boolean;
	    data: number[];
	
	    static createFrom(source: any = {}) {
	        return new Event(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session_id = source["session_id"];
	        this.turn_id = source["turn_id"];
	        this.stage_id = source["stage_id"];
	        this.seq = source["seq"];
	        this.parent_id = source["parent_id"];
	        this.at = this.convertValues(source["at"], Time);
	        this.type = source["type"];
	        this.phase = source["phase"];
	        this.checkpoint = source["checkpoint"];
	        this.data = source["data"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Limits {
	    max_steps: number;
	    max_tool_calls: number;
	    token_budget: number;
	    timeout: number;
	    stall_threshold: number;
	    max_tool_output: number;
	
	    static createFrom(source: any = {}) {
	        return new Limits(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.max_steps = source["max_steps"];
	        this.max_tool_calls = source["max_tool_calls"];
	        this.token_budget = source["token_budget"];
	        this.timeout = source["timeout"];
	        this.stall_threshold = source["stall_threshold"];
	        this.max_tool_output = source["max_tool_output"];
	    }
	}
	export class PlanStep {
	    title: string;
	    status: string;
	
	    static createFrom(source: any = {}) {
	        return new PlanStep(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.title = source["title"];
	        this.status = source["status"];
	    }
	}
	export class RepeatedCall {
	    name: string;
	    arguments: string;
	
	    static createFrom(source: any = {}) {
	        return new RepeatedCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	    }
	}
	export class ToolCallDiagnostics {
	    call_id: string;
	    name: string;
	    arguments: string;
	    result_size: number;
	    started_at: Time;
	    duration_ms: number;
	    ok: boolean;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ToolCallDiagnostics(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.call_id = source["call_id"];
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	        this.result_size = source["result_size"];
	        this.started_at = this.convertValues(source["started_at"], Time);
	        this.duration_ms = source["duration_ms"];
	        this.ok = source["ok"];
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StageDiagnostics {
	    started_at: Time;
	    completed_at: Time;
	    duration_ms: number;
	    usage: llm.Usage;
	    model_calls: llm.CallDiagnostics[];
	    tool_calls: ToolCallDiagnostics[];
	    input_messages: number;
	    output_messages: number;
	
	    static createFrom(source: any = {}) {
	        return new StageDiagnostics(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.started_at = this.convertValues(source["started_at"], Time);
	        this.completed_at = this.convertValues(source["completed_at"], Time);
	        this.duration_ms = source["duration_ms"];
	        this.usage = this.convertValues(source["usage"], llm.Usage);
	        this.model_calls = this.convertValues(source["model_calls"], llm.CallDiagnostics);
	        this.tool_calls = this.convertValues(source["tool_calls"], ToolCallDiagnostics);
	        this.input_messages = source["input_messages"];
	        this.output_messages = source["output_messages"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Termination {
	    kind: string;
	    limit?: number;
	    used?: number;
	    threshold?: number;
	    concluded?: boolean;
	    call?: RepeatedCall;
	    stage?: string;
	    error?: string;
	    reason?: string;
	    properties?: {[key: string]: string};
	
	    static createFrom(source: any = {}) {
	        return new Termination(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.limit = source["limit"];
	        this.used = source["used"];
	        this.threshold = source["threshold"];
	        this.concluded = source["concluded"];
	        this.call = this.convertValues(source["call"], RepeatedCall);
	        this.stage = source["stage"];
	        this.error = source["error"];
	        this.reason = source["reason"];
	        this.properties = source["properties"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StageResult {
	    id: string;
	    name: string;
	    agent: string;
	    phase: string;
	    response?: llm.Message;
	    outcome: string;
	    termination: Termination;
	    diagnostics: StageDiagnostics;
	
	    static createFrom(source: any = {}) {
	        return new StageResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.agent = source["agent"];
	        this.phase = source["phase"];
	        this.response = this.convertValues(source["response"], llm.Message);
	        this.outcome = source["outcome"];
	        this.termination = this.convertValues(source["termination"], Termination);
	        this.diagnostics = this.convertValues(source["diagnostics"], StageDiagnostics);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace app {
	
	export class ApprovalAnswer {
	    call_id: string;
	    answer: string;
	
	    static createFrom(source: any = {}) {
	        return new ApprovalAnswer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.call_id = source["call_id"];
	        this.answer = source["answer"];
	    }
	}
	export class Attachment {
	    session_id: string;
	    name: string;
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new Attachment(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.name = source["name"];
	        this.content = source["content"];
	    }
	}
	export class ExportReply {
	    filename: string;
	    content: string;
	
	    static createFrom(source: any = {}) {
	        return new ExportReply(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.filename = source["filename"];
	        this.content = source["content"];
	    }
	}
	export class MCPServers {
	    config_path: string;
	    servers: mcp.ServerStatus[];
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPServers(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.config_path = source["config_path"];
	        this.servers = this.convertValues(source["servers"], mcp.ServerStatus);
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class NewSession {
	    title: string;
	    provider: string;
	    model: string;
	    workflow: string;
	    workspace: string;
	
	    static createFrom(source: any = {}) {
	        return new NewSession(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.title = source["title"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.workflow = source["workflow"];
	        this.workspace = source["workspace"];
	    }
	}
	export class PendingApproval {
	    session_id: string;
	    turn_id: string;
	    call_id: string;
	    tool: string;
	    args: number[];
	    side_effects: boolean;
	    guard: string;
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new PendingApproval(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.turn_id = source["turn_id"];
	        this.call_id = source["call_id"];
	        this.tool = source["tool"];
	        this.args = source["args"];
	        this.side_effects = source["side_effects"];
	        this.guard = source["guard"];
	        this.reason = source["reason"];
	    }
	}
	export class ProviderInput {
	    provider: llm.Provider;
	    api_key?: string;
	
	    static createFrom(source: any = {}) {
	        return new ProviderInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = this.convertValues(source["provider"], llm.Provider);
	        this.api_key = source["api_key"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ProviderView {
	    name: string;
	    kind: string;
	    base_url: string;
	    models?: string[];
	    default_model?: string;
	    api_key_ref?: string;
	    local: boolean;
	    needs_key: boolean;
	    has_key: boolean;
	    masked_key: string;
	
	    static createFrom(source: any = {}) {
	        return new ProviderView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.base_url = source["base_url"];
	        this.models = source["models"];
	        this.default_model = source["default_model"];
	        this.api_key_ref = source["api_key_ref"];
	        this.local = source["local"];
	        this.needs_key = source["needs_key"];
	        this.has_key = source["has_key"];
	        this.masked_key = source["masked_key"];
	    }
	}
	export class ReadyReport {
	    version_shown: string;
	    regions: string[];
	    width: number;
	    height: number;
	
	    static createFrom(source: any = {}) {
	        return new ReadyReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version_shown = source["version_shown"];
	        this.regions = source["regions"];
	        this.width = source["width"];
	        this.height = source["height"];
	    }
	}
	export class RerunOptions {
	    provider?: string;
	    model?: string;
	    workflow?: string;
	
	    static createFrom(source: any = {}) {
	        return new RerunOptions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.workflow = source["workflow"];
	    }
	}
	export class SendRequest {
	    session_id: string;
	    message: string;
	    workflow?: string;
	    model?: string;
	    limits: agent.Limits;
	    attach?: string[];
	    force?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SendRequest(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.message = source["message"];
	        this.workflow = source["workflow"];
	        this.model = source["model"];
	        this.limits = this.convertValues(source["limits"], agent.Limits);
	        this.attach = source["attach"];
	        this.force = source["force"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Status {
	    version: string;
	    db_path: string;
	    schema_version: number;
	    db_error?: apperr.Error;
	    providers: number;
	    damaged?: string;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.db_path = source["db_path"];
	        this.schema_version = source["schema_version"];
	        this.db_error = this.convertValues(source["db_error"], apperr.Error);
	        this.providers = source["providers"];
	        this.damaged = source["damaged"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TestReply {
	    ok: boolean;
	    models: string[];
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new TestReply(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.models = source["models"];
	        this.error = source["error"];
	    }
	}
	export class TurnRef {
	    turn_id: string;
	    session_id: string;
	
	    static createFrom(source: any = {}) {
	        return new TurnRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.turn_id = source["turn_id"];
	        this.session_id = source["session_id"];
	    }
	}
	export class WorkflowInfo {
	    name: string;
	    description: string;
	    kind: string;
	    source: string;
	
	    static createFrom(source: any = {}) {
	        return new WorkflowInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.kind = source["kind"];
	        this.source = source["source"];
	    }
	}
	export class WorkflowList {
	    workflows: WorkflowInfo[];
	    problems: workflow.Problem[];
	
	    static createFrom(source: any = {}) {
	        return new WorkflowList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workflows = this.convertValues(source["workflows"], WorkflowInfo);
	        this.problems = this.convertValues(source["problems"], workflow.Problem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace apperr {
	
	export class Error {
	    code: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Error(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.code = source["code"];
	        this.message = source["message"];
	    }
	}

}

export namespace buildinfo {
	
	export class Info {
	    version: string;
	    commit: string;
	    go_version: string;
	
	    static createFrom(source: any = {}) {
	        return new Info(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.commit = source["commit"];
	        this.go_version = source["go_version"];
	    }
	}

}

export namespace llm {
	
	export class Usage {
	    input_tokens: number;
	    output_tokens: number;
	    cached_input_tokens: number;
	    reasoning_tokens: number;
	    total_tokens: number;
	    estimated: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Usage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.input_tokens = source["input_tokens"];
	        this.output_tokens = source["output_tokens"];
	        this.cached_input_tokens = source["cached_input_tokens"];
	        this.reasoning_tokens = source["reasoning_tokens"];
	        this.total_tokens = source["total_tokens"];
	        this.estimated = source["estimated"];
	    }
	}
	export class CallDiagnostics {
	    model: string;
	    // Go type: time
	    started_at: any;
	    // Go type: time
	    completed_at: any;
	    duration_ns: number;
	    time_to_first_token_ns: number;
	    usage: Usage;
	    request_messages: number;
	    attempts: number;
	    capture?: string;
	    ok: boolean;
	    error_kind?: string;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new CallDiagnostics(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.started_at = this.convertValues(source["started_at"], null);
	        this.completed_at = this.convertValues(source["completed_at"], null);
	        this.duration_ns = source["duration_ns"];
	        this.time_to_first_token_ns = source["time_to_first_token_ns"];
	        this.usage = this.convertValues(source["usage"], Usage);
	        this.request_messages = source["request_messages"];
	        this.attempts = source["attempts"];
	        this.capture = source["capture"];
	        this.ok = source["ok"];
	        this.error_kind = source["error_kind"];
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Provider {
	    name: string;
	    kind: string;
	    base_url: string;
	    models?: string[];
	    default_model?: string;
	    api_key_ref?: string;
	    local: boolean;
	    needs_key: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Provider(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.base_url = source["base_url"];
	        this.models = source["models"];
	        this.default_model = source["default_model"];
	        this.api_key_ref = source["api_key_ref"];
	        this.local = source["local"];
	        this.needs_key = source["needs_key"];
	    }
	}
	export class Detected {
	    provider: Provider;
	    models: string[];
	    latency_ns: number;
	
	    static createFrom(source: any = {}) {
	        return new Detected(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = this.convertValues(source["provider"], Provider);
	        this.models = source["models"];
	        this.latency_ns = source["latency_ns"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ToolCall {
	    id: string;
	    name: string;
	    arguments: string;
	
	    static createFrom(source: any = {}) {
	        return new ToolCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	    }
	}
	export class Message {
	    role: string;
	    content: string;
	    reasoning?: string;
	    tool_calls?: ToolCall[];
	    tool_call_id?: string;
	    name?: string;
	
	    static createFrom(source: any = {}) {
	        return new Message(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.role = source["role"];
	        this.content = source["content"];
	        this.reasoning = source["reasoning"];
	        this.tool_calls = this.convertValues(source["tool_calls"], ToolCall);
	        this.tool_call_id = source["tool_call_id"];
	        this.name = source["name"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace mcp {
	
	export class ServerStatus {
	    name: string;
	    transport: string;
	    connected: boolean;
	    disabled?: boolean;
	    tools: string[];
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ServerStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.connected = source["connected"];
	        this.disabled = source["disabled"];
	        this.tools = source["tools"];
	        this.error = source["error"];
	    }
	}

}

export namespace store {
	
	export class AppSettings {
	    default_provider: string;
	    default_model: string;
	    default_workflow: string;
	    limits: agent.Limits;
	    capture: string;
	    theme: string;
	
	    static createFrom(source: any = {}) {
	        return new AppSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.default_provider = source["default_provider"];
	        this.default_model = source["default_model"];
	        this.default_workflow = source["default_workflow"];
	        this.limits = this.convertValues(source["limits"], agent.Limits);
	        this.capture = source["capture"];
	        this.theme = source["theme"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ChartRecord {
	    event_id: string;
	    seq: number;
	    title: string;
	    spec: number[];
	
	    static createFrom(source: any = {}) {
	        return new ChartRecord(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event_id = source["event_id"];
	        this.seq = source["seq"];
	        this.title = source["title"];
	        this.spec = source["spec"];
	    }
	}
	export class Page {
	    limit: number;
	    cursor: string;
	
	    static createFrom(source: any = {}) {
	        return new Page(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.limit = source["limit"];
	        this.cursor = source["cursor"];
	    }
	}
	export class SearchHit {
	    session_id: string;
	    session_title: string;
	    turn_id: string;
	    turn_seq: number;
	    kind: string;
	    snippet: string;
	    rank: number;
	    // Go type: time
	    at: any;
	
	    static createFrom(source: any = {}) {
	        return new SearchHit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.session_title = source["session_title"];
	        this.turn_id = source["turn_id"];
	        this.turn_seq = source["turn_seq"];
	        this.kind = source["kind"];
	        this.snippet = source["snippet"];
	        this.rank = source["rank"];
	        this.at = this.convertValues(source["at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Session {
	    id: string;
	    title: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    provider: string;
	    model: string;
	    workflow: string;
	    workspace: string;
	    settings: number[];
	    turns: number;
	
	    static createFrom(source: any = {}) {
	        return new Session(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.workflow = source["workflow"];
	        this.workspace = source["workspace"];
	        this.settings = source["settings"];
	        this.turns = source["turns"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionPage {
	    sessions: Session[];
	    next_cursor: string;
	
	    static createFrom(source: any = {}) {
	        return new SessionPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.sessions = this.convertValues(source["sessions"], Session);
	        this.next_cursor = source["next_cursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Turn {
	    id: string;
	    session_id: string;
	    seq: number;
	    user_message: string;
	    state: string;
	    workflow: string;
	    model: string;
	    // Go type: time
	    started_at: any;
	    // Go type: time
	    completed_at?: any;
	    final_text: string;
	    outcome: string;
	    termination: agent.Termination;
	
	    static createFrom(source: any = {}) {
	        return new Turn(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.user_message = source["user_message"];
	        this.state = source["state"];
	        this.workflow = source["workflow"];
	        this.model = source["model"];
	        this.started_at = this.convertValues(source["started_at"], null);
	        this.completed_at = this.convertValues(source["completed_at"], null);
	        this.final_text = source["final_text"];
	        this.outcome = source["outcome"];
	        this.termination = this.convertValues(source["termination"], agent.Termination);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TurnDetail {
	    id: string;
	    session_id: string;
	    seq: number;
	    user_message: string;
	    state: string;
	    workflow: string;
	    model: string;
	    // Go type: time
	    started_at: any;
	    // Go type: time
	    completed_at?: any;
	    final_text: string;
	    outcome: string;
	    termination: agent.Termination;
	    messages: llm.Message[];
	    stages: agent.StageResult[];
	    plan: agent.PlanStep[];
	    charts: ChartRecord[];
	    result: number[];
	    events?: agent.Event[];
	    last_seq: number;
	    unreadable?: string[];
	
	    static createFrom(source: any = {}) {
	        return new TurnDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.user_message = source["user_message"];
	        this.state = source["state"];
	        this.workflow = source["workflow"];
	        this.model = source["model"];
	        this.started_at = this.convertValues(source["started_at"], null);
	        this.completed_at = this.convertValues(source["completed_at"], null);
	        this.final_text = source["final_text"];
	        this.outcome = source["outcome"];
	        this.termination = this.convertValues(source["termination"], agent.Termination);
	        this.messages = this.convertValues(source["messages"], llm.Message);
	        this.stages = this.convertValues(source["stages"], agent.StageResult);
	        this.plan = this.convertValues(source["plan"], agent.PlanStep);
	        this.charts = this.convertValues(source["charts"], ChartRecord);
	        this.result = source["result"];
	        this.events = this.convertValues(source["events"], agent.Event);
	        this.last_seq = source["last_seq"];
	        this.unreadable = source["unreadable"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class TurnPage {
	    turns: Turn[];
	    next_cursor: string;
	
	    static createFrom(source: any = {}) {
	        return new TurnPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.turns = this.convertValues(source["turns"], Turn);
	        this.next_cursor = source["next_cursor"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace workflow {
	
	export class Problem {
	    file: string;
	    line: number;
	    column: number;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Problem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.line = source["line"];
	        this.column = source["column"];
	        this.message = source["message"];
	    }
	}

}

