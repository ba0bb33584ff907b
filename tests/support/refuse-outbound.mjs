// Preloaded into a process under test (NODE_OPTIONS=--import): every connection or name lookup
// to anything but loopback is refused, as on a machine with no network, and written as a line
// to the file named by REFUSED_OUTBOUND_LOG, so a test can assert none was tried.
import dns from 'node:dns';
import fs from 'node:fs';
import net from 'node:net';

const log = process.env.REFUSED_OUTBOUND_LOG;
const loopback = (host) => host === undefined || host === 'localhost' || host === '::1' || /^127\./.test(host) || host === '0.0.0.0';
const record = (what) => {
  if (log) fs.appendFileSync(log, `${process.pid} ${what}\n`);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  // net.connect hands its arguments on as one array; a direct call passes options, or port and host.
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  if (options.path !== undefined || loopback(options.host)) return connect.apply(this, args);
  record(`connect ${options.host}:${options.port}`);
  const error = Object.assign(new Error(`connect ECONNREFUSED ${options.host}:${options.port} (no network)`), { code: 'ECONNREFUSED' });
  process.nextTick(() => this.destroy(error));
  return this;
};

const refusedLookup = (hostname) => {
  record(`lookup ${hostname}`);
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (no network)`), { code: 'ENOTFOUND', hostname });
};
const lookup = dns.lookup;
dns.lookup = function (hostname, ...rest) {
  if (loopback(hostname)) return lookup.call(this, hostname, ...rest);
  const callback = rest.at(-1);
  process.nextTick(() => callback(refusedLookup(hostname)));
  return {};
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = async function (hostname, ...rest) {
  if (loopback(hostname)) return promisesLookup.call(this, hostname, ...rest);
  throw refusedLookup(hostname);
};
