/**
 * The time model of a GPU box with continuous batching, as processor sharing: every request in flight is worked
 * on at once; while at most `knee` are in flight each gets the box's full speed (a request of `workMs` takes
 * `workMs`), beyond it each gets knee / in-flight of it. Virtual time counts the work every request in flight
 * has received; one timer waits for the request that will finish first. O(in flight) per arrival or answer.
 */
export class BatchingBox {
  private virtual = 0;
  private last = performance.now();
  private readonly jobs: { finishAt: number; sharedWith: number; resolve: (sharedWith: number) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  peak = 0;

  constructor(private readonly knee: number) {
    if (!(Number.isInteger(knee) && knee >= 1)) throw new RangeError(`knee must be an integer >= 1, got ${knee}`);
  }

  get inFlight(): number {
    return this.jobs.length;
  }

  /**
   * Resolves when `workMs` of full-speed work has been done for this request, with the most requests that were in
   * flight while it was served (what the box did to it: it ran at min(1, knee / that) of full speed at the worst).
   */
  serve(workMs: number): Promise<number> {
    this.advance();
    return new Promise<number>((resolve) => {
      this.jobs.push({ finishAt: this.virtual + workMs, sharedWith: 0, resolve });
      for (const j of this.jobs) j.sharedWith = Math.max(j.sharedWith, this.jobs.length);
      this.peak = Math.max(this.peak, this.jobs.length);
      this.schedule();
    });
  }

  /** Work each request in flight receives per ms of real time. */
  private speed(): number {
    return Math.min(1, this.knee / Math.max(1, this.jobs.length));
  }

  private advance(): void {
    const now = performance.now();
    this.virtual += (now - this.last) * this.speed();
    this.last = now;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.jobs.length === 0) return;
    const first = Math.min(...this.jobs.map((j) => j.finishAt));
    this.timer = setTimeout(() => this.finish(), Math.max(0, (first - this.virtual) / this.speed()));
  }

  private finish(): void {
    this.timer = null;
    this.advance();
    const eps = 0.5; // timers fire to the ms: what is due within half a ms is done
    for (let i = this.jobs.length - 1; i >= 0; i--) {
      if (this.jobs[i].finishAt <= this.virtual + eps) {
        const done = this.jobs.splice(i, 1)[0];
        done.resolve(done.sharedWith);
      }
    }
    this.schedule();
  }
}
