import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

interface Answer {
  response: ServerResponse;
  status: number;
  headers: OutgoingHttpHeaders;
  body: string | Buffer | undefined;
}

/**
 * Answers written together once the event loop has read every socket that was ready (setImmediate), not one by one as
 * each is decided. An answer written alone wakes a client that went to sleep waiting for it; where the client runs on
 * the same machine (a reverse proxy such as Caddy, a load generator) that wake-up is an interrupt sent to its CPU,
 * which in a virtual machine costs the writer a trip to the hypervisor. Written back to back, one wake-up serves the
 * turn's answers: a cold validation under wrk woke the client 0.58 times an answer and cost 49 µs of the server's
 * CPU, and 0.07 times at 32 µs with its answers written together (docs/benchmarks.md, twenty-fifth session). An
 * answer waits at most for the rest of its turn, which the requests read after it were waiting for anyway.
 */
export class TurnWrites {
  private waiting: Answer[] = [];
  private scheduled = false;

  constructor(private readonly failed: (err: unknown) => void) {}

  /** Writes the answer (status, headers and a whole body) at the end of this turn, after the ones added before it. */
  add(response: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: string | Buffer | undefined): void {
    this.waiting.push({ response, status, headers, body });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.writeAll);
  }

  private readonly writeAll = () => {
    this.scheduled = false;
    const answers = this.waiting;
    this.waiting = [];
    for (const { response, status, headers, body } of answers) {
      try {
        response.writeHead(status, headers);
        response.end(body);
      } catch (err) {
        // One answer Node refuses (a header it cannot send) must not keep the others from their clients.
        this.failed(err);
        response.destroy();
      }
    }
  };
}
