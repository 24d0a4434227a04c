import { PortalDeskError } from '../../base/portal-desk-error';

/** A case file or portal profile that cannot be used. Nothing runs when one is thrown. */
export class ConfigFileError extends PortalDeskError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file.length > 300 ? `${file.slice(0, 300)}…` : file}: ${problem}`);
  }
}
