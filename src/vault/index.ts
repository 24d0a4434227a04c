// The vault's public surface, for the composition roots (src/cli, src/main).
export { CredentialChain } from './credential-chain';
export { dataFolder, defaultKeyFile, defaultVaultDir } from './data-folder';
export { checkIds } from './ids';
export { chooseKeySource } from './key-choice';
export { KeyFileSource } from './key-file';
export { keyId, type KeySource } from './key-source';
export { findOnPath, SecretToolKeySource } from './keyring';
export { EncryptedLoginStateStore } from './login-state';
export { initVault, openVault, type OpenedVault } from './open-vault';
export { SealedKeyFileSource, type KeySealer } from './sealed-key';
export { Vault } from './vault';
export { VaultError, type VaultProblem } from './vault-error';
