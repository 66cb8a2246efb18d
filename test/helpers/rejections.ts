import { expect } from 'vitest';
import { DeliveryFailed, TargetRefused } from '../../src/delivery/safe-client.js';

/** The error a promise rejects with, failing the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

export async function refusal(promise: Promise<unknown>, reason: TargetRefused['reason']): Promise<TargetRefused> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(TargetRefused);
  expect((error as TargetRefused).reason).toBe(reason);
  return error as TargetRefused;
}

export async function failure(promise: Promise<unknown>, reason: DeliveryFailed['reason']): Promise<DeliveryFailed> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(DeliveryFailed);
  expect((error as DeliveryFailed).reason).toBe(reason);
  return error as DeliveryFailed;
}
