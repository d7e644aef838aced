/**
 * A 5xx that repeats for one request while the endpoint serves others is that request's failure, not an outage
 * (docs/endpoint-health.md): a grammar the server cannot compile, a schema llama-cpp-python refuses — the same
 * body fails on every attempt and no wait mends it, so counting it as an outage would stall the run for the
 * whole outage budget. The rule: when every attempt of a request got a 5xx (at least two attempts), and this
 * process received a successful answer from the same endpoint between the request's first failure and its
 * last, the request fails as `request_error` (a failed line, not retried by the run). An endpoint that serves
 * nobody — down, restarting, a proxy's 502 page for all — keeps failing as `server_error`, an outage.
 *
 *   const trail = new FailureTrail(baseUrl);
 *   trail.failed(err);            // after each failed attempt
 *   throw trail.final(err);       // when no retry is left
 *   noteServed(baseUrl);          // after each success, by any request to that endpoint
 */
import { LlmError } from './types';

const servedByEndpoint = new Map<string, number>();

/** One more successful answer from `endpoint` in this process. */
export function noteServed(endpoint: string): void {
  servedByEndpoint.set(endpoint, (servedByEndpoint.get(endpoint) ?? 0) + 1);
}

function servedSoFar(endpoint: string): number {
  return servedByEndpoint.get(endpoint) ?? 0;
}

const is5xx = (err: LlmError) => err.reason === 'server_error' && err.status !== null && err.status >= 500;

/** One request's failed attempts. */
export class FailureTrail {
  private attempts = 0;
  private all5xx = true;
  private servedAtFirst: number | null = null;

  constructor(private readonly endpoint: string) {}

  failed(err: LlmError): void {
    this.attempts++;
    if (!is5xx(err)) this.all5xx = false;
    this.servedAtFirst ??= servedSoFar(this.endpoint);
  }

  /** The error the request ends with: `request_error` under the rule above, else `err` as it is. */
  final(err: LlmError): LlmError {
    if (!is5xx(err) || !this.all5xx || this.attempts < 2 || this.servedAtFirst === null) return err;
    const others = servedSoFar(this.endpoint) - this.servedAtFirst;
    if (others <= 0) return err;
    return new LlmError(
      'request_error',
      `${err.message} — on all ${this.attempts} attempts of this request while the endpoint served ${others} other request(s): this line's failure, not an outage`,
      err.status,
      err.attempts,
    );
  }
}
