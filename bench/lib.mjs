// Pieces the benchmark drivers share, one concern a file under bench/lib/; drivers import them
// from here.
//   processes.mjs  the temp dir, child processes, clean-ups, free ports, a driver's main
//   servers.mjs    Muster hubs, the SDK reference server, agent registration
//   stores.mjs     `--only`, a fresh SQLite file or PostgreSQL database per store, each store in turn
//   http.mjs       HTTP and JSON-RPC calls, a pool of jobs
//   figures.mjs    medians, percentiles, latency summaries, a process's CPU time
//   load.mjs       the SendMessage/GetTask settings and scenarios, one measured run
//   rounds.mjs     rounds with alternating order, medians and per-round ratios, their tables
//   results.mjs    the results file and the machine it opens with
// fanout.mjs uses freePort, pool, median and cpuSeconds, review-due.mjs only freePort; run.mjs and
// postgres.mjs the servers, load and rounds; the per-store drivers (intents.mjs, memory.mjs,
// relay.mjs) the hubs, stores, calls and figures.
// Nothing here runs at import: the temp dir and exit handlers are set up on first use.
export * from './lib/figures.mjs';
export * from './lib/http.mjs';
export * from './lib/load.mjs';
export * from './lib/processes.mjs';
export * from './lib/results.mjs';
export * from './lib/rounds.mjs';
export * from './lib/servers.mjs';
export * from './lib/stores.mjs';
