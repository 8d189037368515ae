// A DNS server for tests on 127.0.0.1 (UDP): answers A and AAAA queries from a table, NXDOMAIN for any
// other name. Enough of RFC 1035 for c-ares (dns.promises.Resolver) to ask it, so tests can give a
// host name whatever addresses they need (a private one, a mix) without touching the machine's DNS.
// A silent one receives questions and never answers: a name server down or unreachable.
import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface DnsServer {
  /** For Resolver.setServers / dnsResolver(). */
  server: string;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

/** The question's name and type, and where the question ends. */
function question(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0) {
    const length = query[at] ?? 0;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(at + 1), end: at + 5 };
}

function answer(query: Buffer, records: Record<string, string[]>): Buffer {
  const { name, type, end } = question(query);
  const known = records[name];
  const addresses = (known ?? []).filter((address) => (type === TYPE_A ? isIPv4(address) : type === TYPE_AAAA && !isIPv4(address)));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2); // a response, recursion available; NXDOMAIN for an unknown name
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const answers = addresses.map((address) => {
    const bytes = Buffer.from(ipaddr.parse(address).toByteArray());
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // IN
    record.writeUInt32BE(60, 6);
    record.writeUInt16BE(bytes.length, 10);
    return Buffer.concat([record, bytes]);
  });
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

/** Starts a server answering `records` (name → addresses, IPv4 and IPv6 mixed), or answering nothing when `silent`. */
export async function startDnsServer(records: Record<string, string[]>, { silent = false } = {}): Promise<DnsServer> {
  const socket = createSocket('udp4');
  socket.on('message', (query, peer) => {
    if (!silent) socket.send(answer(query, records), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
