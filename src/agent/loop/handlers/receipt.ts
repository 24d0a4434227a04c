import { sha256Hex } from '../../../base/canonical-json';
import { errorText } from '../../../base/error-text';
import { keepConfirmationPage } from '../../portal/receipt';
import { PASS } from '../outcomes';
import type { PortalHandler } from './portal-handler';

/** Once the confirmation shows (with proof): code keeps the confirmation page itself as proof of submission, once a run; it follows no link and sends nothing. */
export const receiptHandler: PortalHandler = {
  id: 'receipt',
  async handle({ proof }, run) {
    const shown = await proof();
    const state = run.state;
    if (!shown.ok || state.receiptKept) return PASS;
    const applicationNumber = shown.applicationNumber;
    state.receiptKept = true;
    try {
      const { receipt, notes } = await keepConfirmationPage(run.o.page);
      for (const line of notes) run.note('receipt', line);
      if (!receipt) return PASS;
      const sha256 = sha256Hex(receipt.bytes);
      const text = Buffer.from(receipt.bytes).toString('utf8');
      if (run.secrets.all().some((s) => text.includes(s))) {
        run.note('receipt', `Receipt sha256 ${sha256} (${receipt.bytes.byteLength} bytes) holds a secret: hash recorded, bytes not kept`);
        return PASS;
      }
      const where = run.o.receipts ? await run.o.receipts.keep({ ...receipt, sha256, runId: run.o.runId, applicationNumber }) : 'not kept (no receipt folder)';
      run.note(
        'receipt',
        `Acknowledgement of ${applicationNumber}: confirmation page ${receipt.url} as shown (nothing fetched), ${receipt.contentType.split(';')[0]}, sha256 ${sha256}, ${receipt.bytes.byteLength} bytes, kept at ${where}`,
      );
    } catch (err) {
      run.note('receipt', `The acknowledgement could not be kept: ${errorText(err)}`);
    }
    return PASS;
  },
};
