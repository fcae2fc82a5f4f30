// Settings → Observability: a preset fills the endpoint and protocol;
// Langfuse's keys are kept as its Basic header and never shown again (the
// page says only that headers are set); content capture warns; the
// exporter's state comes on the bus and shows failing with its error.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { localBackend } from '../../lib/stores/testing';

async function open() {
  const b = localBackend();
  render(App, { backend: b });
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const dialog = await screen.findByRole('dialog', { name: 'Settings' });
  await fireEvent.click(within(dialog).getByRole('tab', { name: 'Observability' }));
  const panel = within(within(dialog).getByRole('tabpanel'));
  await panel.findByText(/No headers are set/);
  return { b, panel };
}

describe('Settings → Observability', () => {
  it('sends to Langfuse with its keys kept as a header, and shows only that they are set', async () => {
    const { b, panel } = await open();
    await fireEvent.click(panel.getByLabelText('Send turns to an OpenTelemetry collector'));
    await fireEvent.change(panel.getByLabelText('Where'), { target: { value: 'langfuse' } });
    expect((panel.getByLabelText('Endpoint') as HTMLInputElement).value).toBe('https://cloud.langfuse.com/api/public/otel/v1/traces');
    expect((panel.getByLabelText('Protocol') as HTMLSelectElement).value).toBe('http');
    await fireEvent.input(panel.getByLabelText('Langfuse public key'), { target: { value: 'pk-lf-1' } });
    await fireEvent.click(panel.getByRole('button', { name: 'Save' }));
    expect((await panel.findByRole('alert')).textContent).toContain('Enter both Langfuse keys');

    await fireEvent.input(panel.getByLabelText('Langfuse secret key'), { target: { value: 'sk-lf-2' } });
    await fireEvent.click(panel.getByRole('button', { name: 'Save' }));
    await panel.findByText(/Headers are set, kept in the keyring/);
    expect(b.observability.keptHeaders).toBe('Authorization=Basic%20' + btoa('pk-lf-1:sk-lf-2') + ',x-langfuse-ingestion-version=4');
    expect(b.observability.view.settings).toMatchObject({ enabled: true, preset: 'langfuse', protocol: 'http' });
    expect((panel.getByLabelText('Langfuse secret key') as HTMLInputElement).value).toBe('');
    expect(panel.getByTestId('traces-state').textContent).toContain('Sending to https://cloud.langfuse.com/api/public/otel/v1/traces');
  });

  it('warns before capturing content, and shows a failing collector from the bus', async () => {
    const { b, panel } = await open();
    await fireEvent.click(panel.getByLabelText('Send turns to an OpenTelemetry collector'));
    await fireEvent.change(panel.getByLabelText('Where'), { target: { value: 'collector-grpc' } });
    expect((panel.getByLabelText('Protocol') as HTMLSelectElement).value).toBe('grpc');
    expect(panel.queryByText(/will receive everything you and the model write/)).toBeNull();
    await fireEvent.click(panel.getByLabelText(/Include message contents/));
    panel.getByText(/will receive everything you and the model write/);
    await fireEvent.click(panel.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(b.observability.view.settings).toMatchObject({ enabled: true, content: true, endpoint: 'localhost:4317' }));

    b.observability.push({
      state: 'failing',
      endpoint: 'localhost:4317',
      content: true,
      sent: 12,
      dropped: 4,
      last_error: 'connection refused',
    });
    await waitFor(() =>
      expect(panel.getByTestId('traces-state').textContent).toContain('Failing: connection refused. 4 spans dropped, 12 sent.'),
    );
  });
});
