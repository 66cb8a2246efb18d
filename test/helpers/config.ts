/** The hub's settings table as `muster serve` builds it (the core's and each kind's, KIND_MODULES), for tests that resolve a config. */
import { hubSettings } from '../../src/config/index.js';
import { KIND_MODULES } from '../../src/kinds/server.js';

export const HUB_SETTINGS = hubSettings(KIND_MODULES);
export const { resolveConfig, explainConfig, settings: SETTINGS, keys: SETTING_KEYS } = HUB_SETTINGS;
