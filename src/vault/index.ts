// The vault's public surface, for the composition roots (src/cli, src/main).
export { CredentialChain } from './credential-chain';
export { dataFolder, defaultKeyFile, defaultVaultDir } from './data-folder';
export { checkIds } from './ids';
export { chooseKeySource, type KeyChoiceOptions, type KeyPreference } from './key-choice';
export { KeyFileSource } from './key-file';
export { KEY_BYTES, keyId, rememberKey, type KeySource } from './key-source';
export { findOnPath, SecretToolKeySource } from './keyring';
export { EncryptedLoginStateStore, type LoginStateEntry, type LoginStateStoreOptions } from './login-state';
export { initVault, openVault, type InitializedVault, type OpenedVault, type OpenVaultOptions } from './open-vault';
export { SealedKeyFileSource, type KeySealer } from './sealed-key';
export { Vault, type VaultEntry, type VaultOptions } from './vault';
export { VaultError, type VaultProblem } from './vault-error';
