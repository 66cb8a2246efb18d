/** The seed dialects the hub speaks, each at its own base (docs/dialects.md). */
import type { Dialect } from './dialect.js';
import { cairn } from './cairn/index.js';
import { firetrident } from './firetrident/index.js';
import { vorn } from './vorn/index.js';
import { klypix } from './klypix/index.js';

export const DIALECTS: readonly Dialect[] = [cairn, firetrident, vorn, klypix];
