/**
 * Parts in REST bodies come in the 1.0 shape (`{"text"}`, `{"data"}`, `{"url"|"raw",
 * "filename", "mediaType"}`) or the 0.3 shape (`{"kind": "text"|"data"|"file", …}`). The REST
 * door turns 0.3 parts into 1.0 ones before a kind reads the body, so every action takes both;
 * a part that mixes the two is refused, naming the field.
 */
import { partIn } from '../../a2a/legacy.js';
import { isJsonObject, type JsonObject } from '../../a2a/types.js';
import { invalidParams, joinField } from '../../errors/hub-error.js';

/** What each 0.3 kind carries, and the 1.0 part it becomes (said in refusals). */
const SHAPES_03: Record<string, { field: string; sent: string; as10: string }> = {
  text: { field: 'text', sent: '{"kind": "text", "text": "…"}', as10: '{"text": "…"}' },
  data: { field: 'data', sent: '{"kind": "data", "data": {…}}', as10: '{"data": {…}}' },
  file: {
    field: 'file',
    sent: '{"kind": "file", "file": {"uri"|"bytes", "name", "mimeType"}}',
    as10: '{"url"|"raw", "filename", "mediaType"}',
  },
};
/** The content fields of either shape: a 0.3 part holds only its own kind's. */
const CONTENT_FIELDS = ['text', 'data', 'file', 'url', 'raw', 'filename', 'mediaType'];
const FILE_FIELDS_10 = ['url', 'raw', 'filename', 'mediaType'];
/** Caller-owned values: nothing inside them is a part. */
const OPAQUE = new Set(['data', 'metadata']);

/** The body with every `parts` array's 0.3 parts as 1.0 parts (`at`: where the body sits, for refusals). */
export function partsAs10(body: unknown, at = ''): unknown {
  if (Array.isArray(body)) return body.map((item, i) => partsAs10(item, `${at}[${i}]`));
  if (!isJsonObject(body)) return body;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    const field = joinField(at, key);
    if (OPAQUE.has(key)) out[key] = value;
    else if (key === 'parts' && Array.isArray(value))
      out[key] = value.map((part, i) => partAs10(part, `${field}[${i}]`));
    else out[key] = partsAs10(value, field);
  }
  return out;
}

function partAs10(part: unknown, field: string): unknown {
  if (!isJsonObject(part)) return part; // the kind's schema names what a part must be
  if (part['kind'] === undefined) {
    if (part['file'] !== undefined)
      throw mixed(`${field}.file`, 'is the 0.3 file field, in a part without kind', SHAPES_03['file']!);
    return part;
  }
  const shape = typeof part['kind'] === 'string' ? SHAPES_03[part['kind']] : undefined;
  if (!shape)
    throw invalidParams(
      `${field}.kind`,
      'must be text, data or file (a 0.3 part)',
      'Send a 0.3 part {"kind": "text"|"data"|"file", …}, or a 1.0 part such as {"text": "…"} without kind',
    );
  const foreign = CONTENT_FIELDS.find((f) => f !== shape.field && part[f] !== undefined);
  if (foreign) throw mixed(`${field}.${foreign}`, `is not a field of a 0.3 ${part['kind']} part`, shape);
  const file = part['file'];
  if (shape.field === 'file') {
    if (!isJsonObject(file))
      throw invalidParams(
        `${field}.file`,
        'must be an object {"uri"|"bytes", "name"?, "mimeType"?}',
        `Send ${shape.sent}`,
      );
    const inner = FILE_FIELDS_10.find((f) => file[f] !== undefined);
    if (inner)
      throw mixed(`${field}.file.${inner}`, 'is a 1.0 field: a 0.3 file holds uri or bytes, name and mimeType', shape);
  }
  return partIn(part);
}

const mixed = (field: string, description: string, shape: { sent: string; as10: string }) =>
  invalidParams(
    field,
    `${description}: a part is in the 1.0 shape or the 0.3 shape, not both`,
    `Send the 0.3 ${shape.sent}, or the 1.0 ${shape.as10} without kind`,
  );
