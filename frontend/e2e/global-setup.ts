// Checks the servers scripts/e2e.sh started are up and makes the workspace
// folder the approval tests write into. Its path reaches the tests through
// E2E_WORKSPACE (workers inherit this process's environment).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const url = process.env.E2E_URL;
  if (!url) throw new Error('E2E_URL is not set: run the tests with `bash scripts/e2e.sh` (or `make e2e`).');
  const res = await fetch(url);
  if (!res.ok) throw new Error(`agentdeck serve answered ${res.status} at ${new URL(url).origin}`);
  const workspace = await mkdtemp(join(tmpdir(), 'agentdeck-e2e-workspace-'));
  process.env.E2E_WORKSPACE = workspace;
  return async () => {
    await rm(workspace, { recursive: true, force: true });
  };
}
