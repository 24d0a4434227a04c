import { PortalDeskError } from '../base/portal-desk-error';

/**
 * One run per client and portal on a store, however it starts (the CLI's `run`, `resume`, a
 * batch, the console, an office desk): two runs would share one portal account and could both
 * submit. The store refuses to create or revive a run while another run of the same client on
 * the same portal is live under a process that is still there; the check and the write are one
 * transaction, so two processes starting at the same moment cannot both pass it.
 */
export class ClientBusyError extends PortalDeskError {
  /** `resuming`: the run being resumed, when the live run found is that run itself (a second `resume` of it). */
  constructor(clientId: string, portal: string, holder: { id: string; owner_pid: number | null }, resuming?: string) {
    const by = holder.owner_pid !== null ? ` by process ${holder.owner_pid}` : ' by another process';
    super(
      holder.id === resuming
        ? `run ${holder.id} (client ${clientId} on portal ${portal}) is being run already${by}; nothing ran. Resume it only after that process has stopped.`
        : `client ${clientId} on portal ${portal} is being run already (run ${holder.id}${holder.owner_pid !== null ? `, process ${holder.owner_pid}` : ''}); nothing ran. Wait for it to end, or resume that run.`,
    );
  }
}
