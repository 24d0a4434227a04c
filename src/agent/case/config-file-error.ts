/** A case file or portal profile that cannot be used. Nothing runs when one is thrown. */
export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'ConfigFileError';
  }
}
