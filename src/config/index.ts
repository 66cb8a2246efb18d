/** The hub's configuration: one table of settings (settings.ts), read from flags, environment and a file (resolve.ts). */
export { ConfigError, LOG_LEVELS, type Config, type DbConfig, type HttpLimits, type StreamSettings } from './config.js';
export { describeDb, parseDb } from './db.js';
export { isLoopbackAddress, isLoopbackHost } from './loopback.js';
export { hubSettings, type Explained, type HubSettings, type Origin, type ServeFlags } from './resolve.js';
export {
  settingsTable,
  type CoreSettings,
  type KindSettingsSource,
  type Setting,
  type SettingKey,
  type SettingsTable,
} from './settings.js';
