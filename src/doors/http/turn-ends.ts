/** An answer whose head is written, ready to be ended. */
export interface Ending {
  /** Ends the answer; a failure is its own to report. */
  end(): void;
}

/**
 * Fast path: the answers ready in the turn of the event loop that read their requests are ended
 * together once that turn's I/O has been handled (setImmediate), instead of each as soon as it is
 * ready. Each is still one write system call, but a client that the first wakes finds the others
 * waiting instead of being woken again for each, and waking a process on another core is most of
 * what a small write costs: a GetTask costs the hub about a quarter less CPU. An answer that is
 * ready later (after a commit) goes at once, with the others that commit let go.
 */
export class TurnEnds {
  /** The answers to end at the end of this turn; undefined when no request arrived in it. */
  private waiting: Ending[] | undefined;
  private readonly endAll = (): void => {
    const ending = this.waiting!;
    this.waiting = undefined;
    for (const answer of ending) answer.end();
  };

  /** A request arrived: answers ready from now until this turn's I/O is handled wait for its end. */
  arrived(): void {
    if (this.waiting) return;
    this.waiting = [];
    setImmediate(this.endAll);
  }

  /** Ends `answer`, at the end of the turn when requests arrived in it. */
  end(answer: Ending): void {
    if (this.waiting) this.waiting.push(answer);
    else answer.end();
  }
}
