import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CredentialSource } from '../../src/shared/credentials';
import { CredentialChain, Vault } from '../../src/vault';
import { memoryKey, tempDir } from './temp-vault';

function lab(): CredentialSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async get(clientId) {
      asked.push(clientId);
      return { username: clientId, password: `Lab!${clientId}-pw7` };
    },
  };
}

describe('CredentialChain', () => {
  it('answers from the first source that has the login', async () => {
    const vault = new Vault({ dir: tempDir(), keySource: memoryKey() });
    await vault.set('client-1', 'shops', { username: 'vaulted', password: 'From-The-Vault-1' });
    const labAccounts = lab();
    const chain = new CredentialChain([vault, labAccounts]);
    expect(await chain.get('client-1', 'shops')).toEqual({ username: 'vaulted', password: 'From-The-Vault-1' });
    expect(labAccounts.asked).toEqual([]);
    expect(await chain.get('client-2', 'shops')).toEqual({ username: 'client-2', password: 'Lab!client-2-pw7' });
    expect(await new CredentialChain([vault]).get('client-2', 'shops')).toBeNull();
    expect(await new CredentialChain([]).get('client-2', 'shops')).toBeNull();
  });

  it('stops at a vault entry that fails to open instead of signing in with the next source', async () => {
    const dir = tempDir();
    const vault = new Vault({ dir, keySource: memoryKey() });
    await vault.set('client-1', 'shops', { username: 'vaulted', password: 'From-The-Vault-1' });
    writeFileSync(join(dir, 'credentials', readdirSync(join(dir, 'credentials'))[0]!), '{}');
    const labAccounts = lab();
    await expect(new CredentialChain([vault, labAccounts]).get('client-1', 'shops')).rejects.toThrow(/damaged/);
    expect(labAccounts.asked).toEqual([]);
  });
});
