/** What came in: every request (bounded), and every request to a host that is not the lab's. */

export interface RequestLogEntry {
  at: string;
  host: string;
  method: string;
  path: string;
  status: number;
  /** The signed-in client, where the session knows one. */
  clientId: string | null;
}

/** A request to an "attacker" host: anything the agent was tricked into sending lands here. */
export interface AttackerRequest {
  at: string;
  host: string;
  method: string;
  /** Path with the query string. */
  path: string;
  referer: string | null;
  /** The first 4 KB of the body. */
  body: string;
}

const MAX_LOG = 5000;

export class TrafficLog {
  private readonly requests: RequestLogEntry[] = [];
  private readonly attacker: AttackerRequest[] = [];

  logRequest(entry: RequestLogEntry): void {
    this.requests.push(entry);
    if (this.requests.length > MAX_LOG) this.requests.shift();
  }

  logAttacker(entry: AttackerRequest): void {
    this.attacker.push(entry);
  }

  requestLog(): RequestLogEntry[] {
    return this.requests.map((e) => ({ ...e }));
  }

  attackerRequests(): AttackerRequest[] {
    return this.attacker.map((e) => ({ ...e }));
  }

  clear(): void {
    this.requests.length = 0;
    this.attacker.length = 0;
  }
}
