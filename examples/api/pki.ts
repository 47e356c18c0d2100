// Compiled example of src/pki (type-checked with the rest; nothing runs at import).
import {
  createCertificateAuthority,
  issueCertificate,
  type IssuedCertificate,
} from '../../src/pki/index.ts';

/** A CA and a serving certificate for localhost signed by it. */
export function localhostServing(): IssuedCertificate {
  const ca = createCertificateAuthority({ commonName: 'planwright-ca' });
  return issueCertificate(ca, {
    commonName: 'localhost',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    usage: 'server',
  });
}
