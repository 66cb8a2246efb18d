/**
 * Why Muster will not send to a target. A refusal is about the URL itself (its scheme, its
 * credentials, where its host points, where it redirects), so sending the same URL again will
 * be refused again unless its DNS changes.
 */
export type RefusalReason = 'invalid-url' | 'scheme' | 'credentials' | 'private-address' | 'redirect';

export class TargetRefused extends Error {
  override readonly name = 'TargetRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Why a send to an allowed target did not complete. These are about the attempt, not the URL:
 * a later attempt may succeed ('network', 'timeout'); 'too-large' needs the receiver to answer
 * with less.
 */
export type FailureReason = 'timeout' | 'too-large' | 'network';

export class DeliveryFailed extends Error {
  override readonly name = 'DeliveryFailed';
  constructor(
    readonly reason: FailureReason,
    message: string,
    /** The system error code for 'network' failures: ECONNREFUSED, ECONNRESET, ENOTFOUND, a TLS code… */
    readonly code?: string,
  ) {
    super(message);
  }
}
