/**
 * The X.509 version of the client certificate, checked before any connection to Temporal. The worker connects
 * through the SDK's Rust core (tonic over rustls), whose certificate parser (rustls-webpki,
 * https://github.com/rustls/webpki, src/cert.rs) takes only v3 certificates and fails any other with
 * `UnsupportedCertVersion`; the CLI's client (grpc-js over OpenSSL) accepts v1. So a v1 certificate — what
 * `openssl x509 -req` writes when no extensions are given — let the CLI start workflows that no worker could
 * ever pick up. Checked once in src/temporal/connect.ts, for the CLI and the worker alike.
 *
 * Node's X509Certificate has no version field (its properties: subject, issuer, validity, serial number, key
 * usage, fingerprints, raw DER…), so the version is read from the DER (RFC 5280 §4.1): Certificate ::= SEQUENCE
 * { tbsCertificate SEQUENCE { version [0] EXPLICIT INTEGER DEFAULT v1, serialNumber, … }, … }. A v1 certificate
 * leaves the optional [0] out; its INTEGER is 1 for v2 and 2 for v3. Three DER headers are all it takes, so no
 * ASN.1 library is pulled in for it.
 */
import { X509Certificate } from 'node:crypto';

/** The tag and the content's start and end of the DER element at `at`. */
function derElement(der: Uint8Array, at: number): { tag: number; start: number; end: number } {
  if (at + 2 > der.length) throw new Error('truncated DER');
  const tag = der[at];
  let len = der[at + 1];
  let start = at + 2;
  if (len & 0x80) {
    const bytes = len & 0x7f;
    if (bytes === 0 || bytes > 4 || start + bytes > der.length) throw new Error('bad DER length');
    len = 0;
    for (let i = 0; i < bytes; i++) len = len * 256 + der[start + i];
    start += bytes;
  }
  if (start + len > der.length) throw new Error('truncated DER');
  return { tag, start, end: start + len };
}

/** The version (1, 2 or 3) of a DER-encoded X.509 certificate. */
export function x509Version(der: Uint8Array): number {
  const cert = derElement(der, 0);
  const tbs = derElement(der, cert.start);
  if (cert.tag !== 0x30 || tbs.tag !== 0x30) throw new Error('not an X.509 certificate');
  const first = derElement(der, tbs.start);
  if (first.tag !== 0xa0) return 1; // [0] absent: the DEFAULT, v1
  const version = derElement(der, first.start);
  if (version.tag !== 0x02 || version.end - version.start !== 1) throw new Error('bad X.509 version field');
  return der[version.start] + 1;
}

/**
 * One line when the client certificate (PEM) is not X.509 v3, naming where it came from; null when it is (or when
 * it does not parse: the connection's own error says that).
 */
export function clientCertVersionProblem(pem: Uint8Array | string, source: string): string | null {
  let version: number;
  try {
    version = x509Version(new X509Certificate(pem).raw);
  } catch {
    return null;
  }
  if (version === 3) return null;
  return (
    `the client certificate ${source} is X.509 v${version}; Temporal's TLS needs v3 — re-issue it with extensions: ` +
    '`openssl x509 -req … -extfile client.ext`, client.ext holding e.g. `basicConstraints=CA:FALSE` and `extendedKeyUsage=clientAuth` (docs/cluster.md)'
  );
}
