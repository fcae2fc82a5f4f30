// The fake backend's OpenTelemetry export (app/observability.go): the
// settings, whether headers are kept (never their values), and the
// exporter's state, pushed on the bus as it changes.
import { BackendError } from './api';
import type { BusMessage } from './bus';
import type { ExporterStatus, ObservabilitySave, ObservabilityView } from './types';

export class FakeObservability {
  #publish: (m: BusMessage) => void;
  view: ObservabilityView = {
    settings: {},
    headers_set: false,
    env_headers: false,
    status: { state: 'off', content: false, sent: 0, dropped: 0 },
  };
  /** The headers as kept in the keyring: tests check a save never shows them. */
  keptHeaders = '';

  constructor(publish: (m: BusMessage) => void) {
    this.#publish = publish;
  }

  get(): ObservabilityView {
    return structuredClone(this.view);
  }

  save(req: ObservabilitySave): ObservabilityView {
    const o = { ...req.settings, endpoint: (req.settings.endpoint ?? '').trim(), protocol: req.settings.protocol || 'http' };
    if (o.protocol !== 'http' && o.protocol !== 'grpc') throw new BackendError('invalid', 'The protocol must be HTTP or gRPC.');
    if (o.enabled && !/^(https?:\/\/[^/\s]+|[^/\s:]+:\d+)/.test(o.endpoint))
      throw new BackendError(
        'invalid',
        `The OTLP endpoint "${o.endpoint}" is not an http:// or https:// address (or host:port); fix it and try again.`,
      );
    const pub = req.langfuse_public_key?.trim() ?? '';
    const sec = req.langfuse_secret_key?.trim() ?? '';
    if (!pub !== !sec)
      throw new BackendError('invalid', 'Enter both Langfuse keys: the public key (pk-lf-…) and the secret key (sk-lf-…).');
    if (pub) this.keptHeaders = 'Authorization=Basic%20' + btoa(`${pub}:${sec}`) + ',x-langfuse-ingestion-version=4';
    else if (req.headers?.trim()) this.keptHeaders = req.headers.trim();
    else if (req.clear_headers) this.keptHeaders = '';
    this.view = {
      ...this.view,
      settings: o,
      headers_set: this.keptHeaders !== '',
      status: o.enabled
        ? { state: 'ok', endpoint: o.endpoint, protocol: o.protocol, content: !!o.content, sent: 0, dropped: 0 }
        : { state: 'off', content: false, sent: 0, dropped: 0 },
    };
    this.push(this.view.status);
    return this.get();
  }

  /** Tests: the exporter's state changes (a send, a dead collector). */
  push(status: ExporterStatus) {
    this.view = { ...this.view, status: structuredClone(status) };
    this.#publish({ kind: 'traces', data: { status: structuredClone(status) } });
  }
}
