import { createHash, randomBytes, webcrypto, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';
import type * as X509Module from '@peculiar/x509';
import type { X509Certificate } from '@peculiar/x509';

type X509 = typeof X509Module;
let x509: Promise<X509> | undefined;

/**
 * @peculiar/x509 (with the reflect-metadata it needs), loaded with the first certificate: a command
 * that never launches a browser (a refusal, verify, replay) does not pay the quarter-second it costs.
 */
function loadX509(): Promise<X509> {
  return (x509 ??= import('reflect-metadata').then(() => import('@peculiar/x509')));
}

const crypto = webcrypto as unknown as Crypto;
const KEY_ALGORITHM: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM: EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
/** Leaf certificates kept per launch; past this, the oldest is minted again when asked for. */
const MAX_LEAVES = 500;
const DAY_MS = 86_400_000;

/**
 * A certificate authority that exists only in this process's memory: its private key is a
 * non-extractable WebCrypto key, never written anywhere, gone with the process.
 *
 * Each browser launch makes one (`launchChromium`), with which the guard's egress proxy ends the
 * browser's TLS to read every https request whole. The browser trusts it only through
 * `--ignore-certificate-errors-spki-list` with this CA's SPKI hash (`spkiHash`), which Chromium
 * matches against every certificate of the chain the server presents: leaves are presented
 * together with the CA. No other browser, no system store and no other process trusts it. The
 * https lab makes one too, for the portal's own certificates.
 *
 * Leaves are minted per host name (a SAN for that name only), signed by the CA, and share one
 * leaf key per CA; each is minted once and then cached.
 */
export class MemoryCa {
  private readonly leaves = new Map<string, Promise<SecureContext>>();

  private constructor(
    private readonly x: X509,
    private readonly caKey: CryptoKey,
    private readonly caCert: X509Certificate,
    private readonly leafKeys: CryptoKeyPair,
    private readonly leafKeyPem: string,
    /** base64 of the sha256 of the CA's SubjectPublicKeyInfo, as Chromium's SPKI list wants it. */
    readonly spkiHash: string,
  ) {}

  static async make(): Promise<MemoryCa> {
    const x = await loadX509();
    const caKeys = (await crypto.subtle.generateKey(KEY_ALGORITHM, false, ['sign', 'verify'])) as CryptoKeyPair;
    const now = Date.now();
    const caCert = await x.X509CertificateGenerator.createSelfSigned(
      {
        serialNumber: serial(),
        name: `CN=Portal Desk egress lock ${randomBytes(4).toString('hex')}, O=Portal Desk (this browser launch only)`,
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + 30 * DAY_MS),
        signingAlgorithm: SIGNING_ALGORITHM,
        keys: caKeys,
        extensions: [
          new x.BasicConstraintsExtension(true, 0, true),
          new x.KeyUsagesExtension(x.KeyUsageFlags.keyCertSign | x.KeyUsageFlags.cRLSign, true),
          await x.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    const leafKeys = (await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
    const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey));
    const leafKeyPem = pem('PRIVATE KEY', pkcs8);
    return new MemoryCa(x, caKeys.privateKey, caCert, leafKeys, leafKeyPem, MemoryCa.spkiHashOf(caCert.toString('pem')));
  }

  /** base64 of the sha256 of a certificate's SubjectPublicKeyInfo (PEM in), as Chromium's SPKI list wants it. */
  static spkiHashOf(certPem: string): string {
    return createHash('sha256').update(new NodeX509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
  }

  /** The CA's certificate (PEM), for a test that checks a leaf against it. */
  get certPem(): string {
    return this.caCert.toString('pem');
  }

  /** The TLS context presenting a leaf for `hostname` (and the CA after it) to the browser. */
  contextFor(hostname: string): Promise<SecureContext> {
    const name = hostname.toLowerCase();
    let context = this.leaves.get(name);
    if (!context) {
      if (this.leaves.size >= MAX_LEAVES) this.leaves.delete(this.leaves.keys().next().value!);
      context = this.mint(name);
      this.leaves.set(name, context);
      context.catch(() => this.leaves.delete(name));
    }
    return context;
  }

  private async mint(hostname: string): Promise<SecureContext> {
    const now = Date.now();
    const ip = isIpLiteral(hostname);
    const x = this.x;
    const leaf = await x.X509CertificateGenerator.create(
      {
        serialNumber: serial(),
        subject: `CN=${ip ? 'ip' : hostname.replace(/[,+="\\<>;#]/g, '')}`,
        issuer: this.caCert.subject,
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + 30 * DAY_MS),
        signingAlgorithm: SIGNING_ALGORITHM,
        publicKey: this.leafKeys.publicKey,
        signingKey: this.caKey,
        extensions: [
          new x.BasicConstraintsExtension(false, undefined, true),
          new x.KeyUsagesExtension(x.KeyUsageFlags.digitalSignature, true),
          new x.ExtendedKeyUsageExtension([x.ExtendedKeyUsage.serverAuth]),
          new x.SubjectAlternativeNameExtension([{ type: ip ? 'ip' : 'dns', value: hostname.replace(/^\[|\]$/g, '') }]),
          await x.AuthorityKeyIdentifierExtension.create(this.caCert, false, crypto),
        ],
      },
      crypto,
    );
    return createSecureContext({ key: this.leafKeyPem, cert: `${leaf.toString('pem')}\n${this.certPem}\n` });
  }
}

function serial(): string {
  // Positive: the top bit clear.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function isIpLiteral(hostname: string): boolean {
  return /^\[.*\]$/.test(hostname) || /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname);
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
