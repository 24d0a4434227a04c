import type { FieldValues } from './forms/spec';
import type { PortalId } from './hosts';
import { DEFAULT_VARIANT, LabVariant, type LabVariantInput } from './variants';

/** What the lab keeps per client: the variant of the run, counters, saved drafts. */

/** A draft the client saved with "Save draft": it outlives sign-outs and session expiry. */
export interface SavedDraft {
  draftId: string;
  fields: FieldValues;
  sectionsDone: string[];
  savedAt: string;
}

export interface ClientState {
  readonly clientId: string;
  variant: LabVariant;
  /** The session will expire when the request count passes `expireSessionAfterRequests`. */
  expiryArmed: boolean;
  /** Authenticated requests since the last configure or expiry. */
  authedRequests: number;
  /** "Reset form" clicks. */
  resets: number;
  /** Set only by `lab.solveCaptcha` (the clerk solved it); the page itself cannot set it. */
  captchaSolved: boolean;
  /** Portals where the survey popup was already shown. */
  surveyShown: Set<PortalId>;
  /** Portals where the `rejectFieldOnce` field was already rejected. */
  fieldRejected: Set<PortalId>;
  drafts: Map<PortalId, SavedDraft>;
}

export class ClientBook {
  private readonly byId = new Map<string, ClientState>();
  /** Pages seen before a browser has signed in follow the variant most recently configured. */
  lastConfigured: LabVariant = DEFAULT_VARIANT;

  get(clientId: string): ClientState {
    let client = this.byId.get(clientId);
    if (!client) {
      client = {
        clientId,
        variant: DEFAULT_VARIANT,
        expiryArmed: false,
        authedRequests: 0,
        resets: 0,
        captchaSolved: false,
        surveyShown: new Set(),
        fieldRejected: new Set(),
        drafts: new Map(),
      };
      this.byId.set(clientId, client);
    }
    return client;
  }

  peek(clientId: string): ClientState | undefined {
    return this.byId.get(clientId);
  }

  /** Sets the client's variant for the next run; re-arms expiry, the survey, the field rejection and the captcha. Drafts stay. */
  configure(clientId: string, input: LabVariantInput = {}): LabVariant {
    const variant = LabVariant.parse(input);
    const client = this.get(clientId);
    client.variant = variant;
    client.expiryArmed = variant.expireSessionAfterRequests !== null;
    client.authedRequests = 0;
    client.captchaSolved = false;
    client.surveyShown.clear();
    client.fieldRejected.clear();
    this.lastConfigured = variant;
    return variant;
  }

  clear(): void {
    this.byId.clear();
    this.lastConfigured = DEFAULT_VARIANT;
  }
}
