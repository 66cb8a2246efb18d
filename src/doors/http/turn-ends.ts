/** An answer whose head is written, ready to be ended. */
export interface Ending {
  /** Ends the answer; a failure is its own to report. */
  end(): void;
}

/** The answers of one turn's requests that are ready within that turn. */
export type Turn = Ending[];

/**
 * Fast path: the answers ready in the turn of the event loop that read their requests are ended
 * together once that turn's I/O has been handled (setImmediate), instead of each as soon as it is
 * ready. Each is still one write system call, but a client that the first wakes finds the others
 * waiting instead of being woken again for each, and waking a process on another core is most of
 * what a small write costs: a GetTask costs the hub about a quarter less CPU. An answer ready in a
 * later turn (after a commit or a database's answer) goes at once, with the others that let go.
 */
export class TurnEnds {
  /** This turn's answers to end at its end; undefined when no request has arrived in it. */
  private waiting: Turn | undefined;
  private readonly endAll = (): void => {
    const ending = this.waiting!;
    this.waiting = undefined;
    for (const answer of ending) answer.end();
    ending.length = 0; // a stream's reply keeps its turn: not the answers ended with it
  };

  /** A request arrived: the turn it arrived in, whose answers wait for its end. */
  arrived(): Turn {
    if (this.waiting) return this.waiting;
    setImmediate(this.endAll);
    return (this.waiting = []);
  }

  /** Ends `answer` at the end of `turn` (its request's) when that has not ended yet, else at once. */
  end(answer: Ending, turn: Turn): void {
    if (turn === this.waiting) turn.push(answer);
    else answer.end();
  }
}
