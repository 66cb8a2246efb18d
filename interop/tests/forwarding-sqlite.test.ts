// Forwarding to third-party A2A endpoints, one hub on SQLite.
import { afterAll, beforeAll } from 'vitest';
import { ADK_ENDPOINT, SDK_ENDPOINT, forwardingScenarios } from '../lib/forwarding.js';
import { startHub, type Hub } from '../lib/hub.js';

let hub: Hub;
beforeAll(async () => {
  hub = await startHub();
});
afterAll(async () => {
  await hub?.stop();
});

const nodes = () => ({ sender: hub, owner: hub, reader: hub });
forwardingScenarios('SQLite', nodes, SDK_ENDPOINT);
forwardingScenarios('SQLite', nodes, ADK_ENDPOINT);
