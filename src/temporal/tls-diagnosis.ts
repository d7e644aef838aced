/**
 * Why a TLS connection to Temporal failed, in one line. The SDK's own errors do not say ("Failed to connect
 * before the deadline", "Received HTTP status code 400"), so after a failure one probe connection asks Node's
 * TLS stack, with the same CA and client certificate: does the server speak TLS, is its certificate signed by
 * the configured CA, is the client certificate expired, and does the server refuse it — by a TLS alert (a
 * Temporal frontend with mTLS) or by an HTTP 400 page (a terminator such as nginx with ssl_verify_client on).
 */
import http2 from 'node:http2';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow';
import type { TemporalConnectOptions } from './connection-options';
import { splitAddress } from './server';

const CLIENT_CERT_VARS = 'TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_KEY_PATH (or tls.client_cert_path in the profile)';

function tlsObject(opts: TemporalConnectOptions): TLSConfig | null {
  if (!opts.tls) return null;
  return opts.tls === true ? {} : opts.tls;
}

/** An expired (or not yet valid) client certificate, found without asking the server. */
export function clientCertDateProblem(config: TLSConfig | null, now = new Date()): string | null {
  const crt = config?.clientCertPair?.crt;
  if (!crt) return null;
  const cert = new X509Certificate(crt);
  if (new Date(cert.validTo) < now) return `the client certificate (${cert.subject.replace(/\n/g, ', ')}) expired on ${cert.validTo}`;
  if (new Date(cert.validFrom) > now)
    return `the client certificate (${cert.subject.replace(/\n/g, ', ')}) is not valid before ${cert.validFrom}`;
  return null;
}

const buf = (b: Uint8Array | undefined): Buffer | undefined => (b ? Buffer.from(b) : undefined);

type Probe =
  | { kind: 'tls-error'; code: string; message: string }
  | { kind: 'untrusted'; reason: string; issuer: string }
  | { kind: 'http'; status: number; body: string }
  | { kind: 'ok' }
  | { kind: 'no-answer' };

/** One TLS connection and one gRPC request; what the server did, within `timeoutMs`. */
function probe(address: string, config: TLSConfig, timeoutMs: number): Promise<Probe> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (p: Probe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session?.destroy();
      sock.destroy();
      resolve(p);
    };
    const timer = setTimeout(() => finish({ kind: 'no-answer' }), timeoutMs);
    let session: http2.ClientHttp2Session | undefined;
    const sock = tls.connect({
      host,
      port,
      servername: config.serverNameOverride ?? (/^[\d.]+$|:/.test(host) ? undefined : host),
      ca: buf(config.serverRootCACertificate),
      cert: buf(config.clientCertPair?.crt),
      key: buf(config.clientCertPair?.key),
      ALPNProtocols: ['h2'],
      rejectUnauthorized: false,
    });
    const onError = (err: NodeJS.ErrnoException) => finish({ kind: 'tls-error', code: err.code ?? '', message: err.message });
    sock.once('error', onError);
    sock.once('secureConnect', () => {
      if (!sock.authorized) {
        const issuer = String(sock.getPeerCertificate()?.issuer?.CN ?? '?');
        return finish({ kind: 'untrusted', reason: String(sock.authorizationError), issuer });
      }
      session = http2.connect(`https://${host}:${port}`, { createConnection: () => sock });
      session.once('error', onError);
      const req = session.request({
        ':method': 'POST',
        ':path': '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo',
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      let status = 0;
      let body = '';
      req.on('response', (h) => (status = Number(h[':status'])));
      req.on('data', (d: Buffer) => (body += d.toString('latin1')));
      req.once('end', () => finish(status === 200 ? { kind: 'ok' } : { kind: 'http', status, body }));
      req.once('error', onError);
      req.end(Buffer.alloc(5));
    });
  });
}

/** The one line for a failed connection with a TLS cause, or null when the probe finds nothing specific. */
export async function diagnoseTls(opts: TemporalConnectOptions, timeoutMs = 4000): Promise<string | null> {
  const config = tlsObject(opts);
  const at = `Temporal at ${opts.address}`;
  if (!config) {
    const p = await probe(opts.address, {}, timeoutMs);
    if (p.kind === 'ok' || p.kind === 'untrusted' || p.kind === 'http')
      return `${at} speaks TLS but this connection is plain TCP — set TEMPORAL_TLS=true with TEMPORAL_TLS_SERVER_CA_CERT_PATH and ${CLIENT_CERT_VARS} (docs/cluster.md)`;
    return null;
  }
  const dated = clientCertDateProblem(config);
  if (dated) return `${at}: ${dated} — renew it (${CLIENT_CERT_VARS})`;
  const p = await probe(opts.address, config, timeoutMs);
  const noCert = !config.clientCertPair;
  switch (p.kind) {
    case 'untrusted':
      return `${at}: the server's certificate (issued by ${p.issuer}) is not trusted by the configured CA (${p.reason}) — is TEMPORAL_TLS_SERVER_CA_CERT_PATH the CA that signed it?`;
    case 'http':
      if (noCert || /No required SSL certificate/i.test(p.body))
        return `${at} refused the connection: it requires a client certificate (HTTP ${p.status}) — set ${CLIENT_CERT_VARS}`;
      return `${at} refused the client certificate (HTTP ${p.status}${/SSL certificate error/i.test(p.body) ? ': SSL certificate error' : ''}) — is it signed by the CA the server trusts?`;
    case 'tls-error':
      if (/CERTIFICATE_REQUIRED/i.test(p.code + p.message))
        return `${at} refused the TLS handshake: it requires a client certificate — set ${CLIENT_CERT_VARS}`;
      if (/CERTIFICATE_EXPIRED/i.test(p.code + p.message)) return `${at} refused the TLS handshake: the client certificate has expired`;
      if (/UNKNOWN_CA|BAD_CERTIFICATE|DECRYPT_ERROR/i.test(p.code + p.message))
        return `${at} refused the client certificate in the TLS handshake (${p.code}) — is it signed by the CA the server trusts?`;
      if (/WRONG_VERSION_NUMBER|ECONNRESET|packet length/i.test(p.code + p.message))
        return `${at} refused the TLS handshake (${p.code || p.message}) — does it speak TLS? For a plain-TCP server unset TEMPORAL_TLS`;
      return `${at} refused the TLS handshake: ${p.message}`;
    default:
      return null;
  }
}
