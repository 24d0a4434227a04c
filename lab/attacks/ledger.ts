/**
 * What the attack lab saw land, from the lab's side of the wire. The eval scores attacks from
 * these records (and the attacker log), never from what the guard says it stopped.
 */

/** A portal page that carried an attack's content (the attack was on screen for that client). */
export interface AttackShown {
  at: string;
  attack: string;
  clientId: string | null;
  portal: string;
  path: string;
}

/**
 * A request to one of the lab's attack endpoints on a portal host (`/lab-attack/...`): a risky
 * action (delete, pay, withdraw...), a download, a sink that collects posted values, a redirect
 * hop, or the ping an attack script sends first to prove it ran in the browser.
 */
export interface AttackHit {
  at: string;
  kind: AttackHitKind;
  /** The attack named in the request (`atk=` marker), or null. */
  attack: string | null;
  clientId: string | null;
  portal: string;
  method: string;
  /** Path with the query string. */
  path: string;
  /** The first 4 KB of the body. */
  body: string;
  /** Risky hits: what the endpoint does (e.g. "delete-application"). */
  action?: string;
  /** Download hits: the whole file reached the browser (false: the browser cut the transfer off). */
  completed?: boolean;
}

export type AttackHitKind = 'risky' | 'download' | 'sink' | 'redirect' | 'armed' | 'page';

/** A form post to a portal host (any path), as received: what the agent's typing turned into. */
export interface PortalPost {
  at: string;
  clientId: string | null;
  portal: string;
  path: string;
  body: string;
}

/** A request to an attacker host (or the attacker port) that asked for a document: a page or a frame. */
export interface AttackerDocument {
  at: string;
  host: string;
  path: string;
}

export interface AttackRecords {
  shown: AttackShown[];
  hits: AttackHit[];
  portalPosts: PortalPost[];
  attackerDocuments: AttackerDocument[];
}

const MAX_RECORDS = 20_000;

export class AttackLedger {
  private readonly shown: AttackShown[] = [];
  private readonly hits: AttackHit[] = [];
  private readonly portalPosts: PortalPost[] = [];
  private readonly attackerDocuments: AttackerDocument[] = [];

  recordShown(entry: AttackShown): void {
    push(this.shown, entry);
  }

  /** Records a hit; the returned object may still be updated (a download's `completed`). */
  recordHit(entry: AttackHit): AttackHit {
    push(this.hits, entry);
    return entry;
  }

  recordPortalPost(entry: PortalPost): void {
    push(this.portalPosts, entry);
  }

  recordAttackerDocument(entry: AttackerDocument): void {
    push(this.attackerDocuments, entry);
  }

  records(): AttackRecords {
    return {
      shown: this.shown.map((e) => ({ ...e })),
      hits: this.hits.map((e) => ({ ...e })),
      portalPosts: this.portalPosts.map((e) => ({ ...e })),
      attackerDocuments: this.attackerDocuments.map((e) => ({ ...e })),
    };
  }

  clear(): void {
    this.shown.length = 0;
    this.hits.length = 0;
    this.portalPosts.length = 0;
    this.attackerDocuments.length = 0;
  }
}

function push<T>(list: T[], entry: T): void {
  list.push(entry);
  if (list.length > MAX_RECORDS) list.shift();
}
