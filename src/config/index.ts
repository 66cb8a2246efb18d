/** The hub's configuration: one table of settings (settings.ts), read from flags, environment and a file (resolve.ts). */
export { ConfigError, LOG_LEVELS, type Config, type DbConfig, type HttpLimits, type StreamSettings } from './config.js';
export { describeDb, parseDb } from './db.js';
export { isLoopbackAddress, isLoopbackHost } from './loopback.js';
export { explainConfig, resolveConfig, resolveDb, reviewSettings, type Explained, type Origin, type ServeFlags } from './resolve.js';
export { SETTINGS, SETTING_KEYS, type Setting, type SettingKey } from './settings.js';
