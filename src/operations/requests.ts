/**
 * The typed requests of the A2A 1.0 operations, and the one way to read each from ProtoJSON
 * (camelCase or snake_case keys): every door turns what it was sent into ProtoJSON and parses it
 * here, so a refusal of a field reads the same on every binding.
 */
import type { z } from 'zod';
import { z as zod } from 'zod';
import { commonSend } from '../a2a/common-send.js';
import { listTasksParamsSchema, sendMessageParamsSchema, taskIdParamsSchema } from '../a2a/schemas.js';
import type { SendMessageParams } from '../a2a/types.js';
import { camelKeys, parseWith } from '../a2a/validate.js';

export type SendRequest = SendMessageParams;
export type TaskRequest = z.infer<typeof taskIdParamsSchema>;
export type ListRequest = z.infer<typeof listTasksParamsSchema>;
export interface PushConfigRequest {
  taskId: string;
  id: string;
}
export interface PushConfigsRequest {
  taskId: string;
}

// Requests the A2A specification defines: unknown fields are ignored (stripped), as in a2a/schemas.ts.
const configRef = zod.object({ taskId: zod.string().min(1), id: zod.string().min(1) });
const taskRef = zod.object({ taskId: zod.string().min(1) });

export const parseSend = (params: unknown): SendRequest =>
  commonSend(params) ?? (parseWith(sendMessageParamsSchema, camelKeys(params)) as SendRequest);
export const parseTask = (params: unknown): TaskRequest => parseWith(taskIdParamsSchema, camelKeys(params));
export const parseList = (params: unknown): ListRequest => parseWith(listTasksParamsSchema, camelKeys(params ?? {}));
export const parsePushConfig = (params: unknown): PushConfigRequest => parseWith(configRef, camelKeys(params));
export const parsePushConfigs = (params: unknown): PushConfigsRequest => parseWith(taskRef, camelKeys(params));
