/**
 * The settings every test hub (startTestHub) and test node (startNode) runs with unless its test
 * gives its own. A blocking SendMessage does not wait (MUSTER_BLOCKING_WAIT_S 0): most tests answer
 * their tasks after sending them; the tests of blocking sends set the wait they need
 * (blocking-send, relay-conformance, cli-send-wait).
 */
export const TEST_HUB_DEFAULTS: Readonly<Record<string, string>> = { MUSTER_BLOCKING_WAIT_S: '0' };
