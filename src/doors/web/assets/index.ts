/** The feed's assets, served by the hub itself (the CSP allows nothing from elsewhere). */
import { SCRIPT } from './script.js';
import { STYLE } from './style.js';

export const ASSET_PATHS = { css: '/feed/assets/feed.css', js: '/feed/assets/feed.js' } as const;

export const ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
  'feed.css': { type: 'text/css; charset=utf-8', body: STYLE },
  'feed.js': { type: 'text/javascript; charset=utf-8', body: SCRIPT },
};
