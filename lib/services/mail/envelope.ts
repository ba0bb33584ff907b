import { newToken } from '../tokens';

/**
 * VERP (variable envelope return path): each message's envelope sender is the
 * bounce address with a token of its own after a `+`, so whatever comes back to
 * it names the one message and recipient it is about. The token is random
 * (24 bytes, unguessable: nobody can forge a bounce for an address they do not
 * receive mail for), and the store keeps only its hash.
 */
export function verpAddress(bounceAddress: string, token: string): string {
  const at = bounceAddress.lastIndexOf('@');
  return `${bounceAddress.slice(0, at)}+${token}${bounceAddress.slice(at)}`;
}

/** A bounce token: 24 random bytes, base64url (32 characters: the local part stays under 64). */
export function newBounceToken(): { token: string; hash: string } {
  return newToken(24);
}

/** The token in an address made by `verpAddress` for this bounce address (any case for the fixed parts), or undefined. */
export function verpToken(address: string, bounceAddress: string): string | undefined {
  const at = bounceAddress.lastIndexOf('@');
  const local = bounceAddress.slice(0, at).toLowerCase();
  const domain = bounceAddress.slice(at + 1).toLowerCase();
  const match = /^<?\s*([^@<>\s]+)@([^@<>\s]+?)\s*>?$/.exec(address.trim());
  if (!match || (match[2] ?? '').toLowerCase() !== domain) return undefined;
  const given = match[1] ?? '';
  const plus = given.indexOf('+');
  if (plus < 0 || given.slice(0, plus).toLowerCase() !== local) return undefined;
  const token = given.slice(plus + 1);
  return /^[A-Za-z0-9_-]{32}$/.test(token) ? token : undefined;
}
