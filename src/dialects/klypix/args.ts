/**
 * KLYPIX's argument names onto the memory kind's, and back: a `canvas` is a board (`board`), a
 * connection's `relationship` is its `type`. Every other argument has the same name on both
 * sides. Refusals the memory kind words in its names are told in KLYPIX's (fieldOut, wordsOut).
 */
import { isJsonObject, type JsonObject } from '../../a2a/types.js';
import { invalidParams } from '../../errors/hub-error.js';
import { KLYPIX_SKILLS } from './skills.js';

/** A connection as the memory kind takes it: `relationship` is its `type`. */
function connectionIn(connection: unknown): unknown {
  if (!isJsonObject(connection) || !('relationship' in connection) || 'type' in connection) return connection;
  const { relationship, ...rest } = connection;
  return { ...rest, type: relationship };
}

function connectionOut(connection: unknown): unknown {
  if (!isJsonObject(connection) || !('type' in connection)) return connection;
  const { type, ...rest } = connection;
  return { ...rest, relationship: type };
}

/** KLYPIX's args in the memory kind's names; `at` is where they were sent, for a refusal. */
export function argsIn(args: JsonObject, at: string): JsonObject {
  const { canvas, ...rest } = args;
  if (canvas !== undefined && rest['board'] !== undefined)
    throw invalidParams(`${at}.board`, 'names the canvas a second time', 'Send canvas alone');
  const named: JsonObject = canvas === undefined ? rest : { ...rest, board: canvas };
  const connections = named['connections'];
  return Array.isArray(connections) ? { ...named, connections: connections.map(connectionIn) as JsonObject[] } : named;
}

/** The memory kind's args in KLYPIX's names. */
export function argsOut(args: JsonObject): JsonObject {
  const { board, ...rest } = args;
  const named: JsonObject = board === undefined ? rest : { ...rest, canvas: board };
  const connections = named['connections'];
  return Array.isArray(connections) ? { ...named, connections: connections.map(connectionOut) as JsonObject[] } : named;
}

/** An argument's name as KLYPIX says it. */
export const argNameOut = (name: string): string => (name === 'board' ? 'canvas' : name);

const BOARD_FIELD = /(\.data(?:\.args)?)\.board(?=$|[.[])/;
const TYPE_FIELD = /(\.connections\[\d+\])\.type(?=$|[.[])/;

/** A field a refusal names, as KLYPIX's client sent it. */
export const fieldOut = (field: string): string =>
  field.replace(BOARD_FIELD, '$1.canvas').replace(TYPE_FIELD, '$1.relationship');

const NATIVE_ID = new RegExp(`\\b(${KLYPIX_SKILLS.map((s) => s.native.replace('.', '\\.')).join('|')})\\b`, 'g');
const ID_OUT = new Map(KLYPIX_SKILLS.map((s) => [s.native, s.id]));

/** Words of the memory kind's, as KLYPIX says them: its skill ids, and a connection's relationship. */
export const wordsOut = (text: string): string =>
  text.replace(NATIVE_ID, (id) => ID_OUT.get(id) ?? id).replaceAll('"type"', '"relationship"');
