import { type OpenedVault, checkIds, initVault, openVault, VaultError, type VaultProblem } from '../../vault';
import { parseCommandArgs } from '../args';
import { EXIT, UsageError } from '../cli-error';
import { promptLine } from '../terminal-prompt';

/** What the command reads and writes; tests pass their own. */
export interface VaultCommandIo {
  /** Where --password-stdin reads from. */
  stdin: AsyncIterable<Buffer | string> & { isTTY?: boolean };
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Asks on the terminal; null when there is none. */
  prompt(question: string, options?: { secret?: boolean }): Promise<string | null>;
  now?: () => Date;
}

const processIo = (): VaultCommandIo => ({
  stdin: process.stdin,
  out: (text) => console.log(text),
  err: (text) => console.error(text),
  env: process.env,
  prompt: promptLine,
});

const USAGE = `portal-desk vault — portal logins per client, encrypted at rest

Usage:
  portal-desk vault init
  portal-desk vault set --client ID --portal ID [--username NAME] [--password-stdin]
  portal-desk vault list [--json]
  portal-desk vault remove --client ID --portal ID

  init     gives the vault its key (a new key only here, or with a new vault's first login)
           and says where the key is kept: back that file up apart from the vault.
  set      saves a login. The password is asked on the terminal without echo (twice), or read
           from standard input with --password-stdin (one line). Without --username an existing
           entry keeps its username and a new one asks for it.
  list     shows client, portal, username and dates. Never a password.
  remove   deletes the login and the saved login state (session) of that client on that portal.

Options:
  --vault-dir PATH   the vault folder (default: <data folder>/vault, where the data folder is
                     $PORTAL_DESK_HOME, $XDG_DATA_HOME/portal-desk or ~/.local/share/portal-desk)

The key comes from the OS keyring (secret-tool) when one answers, else from the 0600 file
<data folder>/vault.key. PORTAL_DESK_VAULT_KEY=file|keyring picks one for a new vault. A vault
whose key file is missing is refused (never given a new key): restore the file from your backup.

Exit code 0 done; 1 nothing to remove, or a record failed its integrity check (tampered);
2 bad input, or a vault that cannot be used (its key missing, unprotected or unreachable).`;

/** Exit 1 for records that were changed (as verify says "tampered"); 2 for a vault that cannot be used at all. */
const TAMPERED: readonly VaultProblem[] = ['tampered', 'misplaced'];

const MAX_STDIN_BYTES = 4096;

/** `portal-desk vault …`. Returns the exit code; throws UsageError for bad arguments. */
export async function vaultCommand(args: string[], io: VaultCommandIo = processIo()): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === '--help' || sub === '-h' || sub === 'help') {
    io.out(USAGE);
    return sub ? EXIT.ok : EXIT.badInput;
  }
  const run = SUBCOMMANDS[sub];
  if (!run) throw new UsageError(`unknown vault command "${sub.slice(0, 40)}" (init, set, list or remove)`);
  try {
    return await run(rest, io);
  } catch (err) {
    if (err instanceof VaultError) {
      if (err.problem === 'bad-id') throw new UsageError(err.message);
      io.err(`portal-desk vault: ${err.message}`);
      return TAMPERED.includes(err.problem) ? EXIT.notDone : EXIT.badInput;
    }
    throw err;
  }
}

const SUBCOMMANDS: Record<string, (args: string[], io: VaultCommandIo) => Promise<number>> = {
  async init(args, io) {
    const { values } = parseCommandArgs(args, { 'vault-dir': { type: 'string' } });
    if (values.help) return help(io);
    const done = await initVault({ env: io.env, vaultDir: values['vault-dir'], now: io.now });
    const where = done.keySource.description;
    io.out(
      done.created
        ? `The vault at ${done.dir} is sealed with key ${done.keyId} from the ${where}. Back that up apart from the vault: without it the saved logins cannot be read.`
        : `The vault at ${done.dir} already has its key (${done.keyId}, from the ${where}); nothing was changed.`,
    );
    return EXIT.ok;
  },

  async set(args, io) {
    const { values } = parseCommandArgs(args, {
      client: { type: 'string' },
      portal: { type: 'string' },
      username: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'vault-dir': { type: 'string' },
    });
    if (values.help) return help(io);
    const { client, portal } = target(values);
    const opened = await open(values['vault-dir'], io);
    const username = values.username ?? (await opened.vault.get(client, portal))?.username ?? (await askUsername(client, portal, io));
    const password = values['password-stdin'] ? await readPasswordStdin(io) : await askPassword(client, portal, io);
    await opened.vault.set(client, portal, { username, password });
    io.out(`Saved the login of client ${client} on portal ${portal} (username ${username}) in ${opened.dir}.`);
    return EXIT.ok;
  },

  async list(args, io) {
    const { values } = parseCommandArgs(args, { json: { type: 'boolean' }, 'vault-dir': { type: 'string' } });
    if (values.help) return help(io);
    const opened = await open(values['vault-dir'], io);
    const sessions = new Map((await opened.loginStates.list()).map((s) => [`${s.clientId}\n${s.portalId}`, s.updatedAt]));
    // Built field by field from the entry, so nothing else the vault knows can reach the output.
    const rows = (await opened.vault.list()).map((e) => ({
      clientId: e.clientId,
      portalId: e.portalId,
      username: e.username,
      updatedAt: e.updatedAt,
      loginStateSavedAt: sessions.get(`${e.clientId}\n${e.portalId}`) ?? null,
    }));
    if (values.json) {
      io.out(JSON.stringify(rows, null, 2));
      return EXIT.ok;
    }
    if (rows.length === 0) {
      io.out(`No logins saved in ${opened.dir}. Add one with: portal-desk vault set --client ID --portal ID`);
      return EXIT.ok;
    }
    io.out(table([['CLIENT', 'PORTAL', 'USERNAME', 'UPDATED', 'SESSION SAVED'], ...rows.map((r) => [r.clientId, r.portalId, r.username, r.updatedAt, r.loginStateSavedAt ?? '-'])]));
    return EXIT.ok;
  },

  async remove(args, io) {
    const { values } = parseCommandArgs(args, { client: { type: 'string' }, portal: { type: 'string' }, 'vault-dir': { type: 'string' } });
    if (values.help) return help(io);
    const { client, portal } = target(values);
    const opened = await open(values['vault-dir'], io);
    const login = await opened.vault.remove(client, portal);
    const session = await opened.loginStates.delete(client, portal);
    if (!login && !session) {
      io.err(`portal-desk vault: nothing saved for client ${client} on portal ${portal} in ${opened.dir}; nothing removed.`);
      return EXIT.notDone;
    }
    const what = [login && 'the login', session && 'the saved login state'].filter(Boolean).join(' and ');
    io.out(`Removed ${what} of client ${client} on portal ${portal}.`);
    return EXIT.ok;
  },
};

function help(io: VaultCommandIo): number {
  io.out(USAGE);
  return EXIT.ok;
}

function target(values: { client?: string; portal?: string }): { client: string; portal: string } {
  if (!values.client) throw new UsageError('--client ID is required');
  if (!values.portal) throw new UsageError('--portal ID is required');
  checkIds(values.client, values.portal);
  return { client: values.client, portal: values.portal };
}

function open(vaultDir: string | undefined, io: VaultCommandIo): Promise<OpenedVault> {
  return openVault({ env: io.env, vaultDir, now: io.now });
}

async function askUsername(client: string, portal: string, io: VaultCommandIo): Promise<string> {
  const answer = await io.prompt(`Username of client ${client} on portal ${portal}: `);
  if (answer === null) throw new UsageError(`--username NAME is required: there is no login saved yet for client ${client} on portal ${portal}, and no terminal to ask`);
  if (!answer.trim()) throw new UsageError('the username is empty; nothing was saved');
  return answer.trim();
}

async function askPassword(client: string, portal: string, io: VaultCommandIo): Promise<string> {
  const first = await io.prompt(`Password of client ${client} on portal ${portal} (not shown): `, { secret: true });
  if (first === null) throw new UsageError('there is no terminal to type the password on; pipe it in with --password-stdin');
  if (!first) throw new UsageError('the password is empty; nothing was saved');
  const again = await io.prompt('Type it again: ', { secret: true });
  if (again !== first) throw new UsageError('the two passwords differ; nothing was saved');
  return first;
}

/** One line from standard input: a final line break is dropped, anything after it is refused. */
export async function readPasswordStdin(io: Pick<VaultCommandIo, 'stdin'>): Promise<string> {
  if (io.stdin.isTTY) throw new UsageError('--password-stdin reads a pipe, but standard input is a terminal; leave the flag out to be asked without echo');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    size += bytes.length;
    if (size > MAX_STDIN_BYTES) throw new UsageError(`standard input holds more than ${MAX_STDIN_BYTES} bytes; --password-stdin expects one line`);
    chunks.push(bytes);
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (!text) throw new UsageError('standard input is empty; --password-stdin expects the password on one line');
  if (/[\r\n]/.test(text)) throw new UsageError('standard input holds more than one line; --password-stdin expects the password on one line');
  return text;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
