import { convert } from 'html-to-text';
import { contentPaths } from '../content/urls';
import type { KeptReply, ReactionStore } from './reactions';

export const FEDIVERSE_USAGE = `usage: npm run fediverse -- <command>
  replies         the replies waiting for approval: id, post, author, when, and text
  approve <id>    shows a reply on its post's page (within a few seconds on a running server)
  reject <id>     keeps a reply off its post's page for good (sent again, it stays rejected)`;

export type FediverseCommand = { name: 'replies' } | { name: 'approve' | 'reject'; id: string };

/** The command in the arguments, or what is wrong with them. */
export function parseFediverseCommand(args: readonly string[]): { ok: true; command: FediverseCommand } | { ok: false; error: string } {
  const [name, ...rest] = args;
  if (name === 'replies' && rest.length === 0) return { ok: true, command: { name } };
  if ((name === 'approve' || name === 'reject') && rest.length === 1 && rest[0]) return { ok: true, command: { name, id: rest[0] } };
  return { ok: false, error: name ? `unknown command or arguments: ${args.join(' ')}` : 'no command given' };
}

export type FediverseCliIo = { out: (line: string) => void; err: (line: string) => void };

/** A reply's HTML as plain text for a terminal: links as their text, paragraphs as lines, nothing from its markup run. */
export function replyText(html: string): string {
  return convert(html, { wordwrap: false, selectors: [{ selector: 'a', options: { ignoreHref: true } }] }).trim();
}

function describe(reply: KeptReply): string[] {
  const when = new Date(reply.published).toISOString().slice(0, 16).replace('T', ' ');
  return [
    `${reply.id}  ${contentPaths.post(reply.slug)}  ${when} UTC`,
    `  from ${reply.author.name} (${reply.author.handle}, ${reply.author.url})`,
    `  at ${reply.url}`,
    ...replyText(reply.html)
      .split('\n')
      .map((line) => `  | ${line}`),
  ];
}

/**
 * Runs one moderation command on the store the server uses (the same DATA_DIR or REDIS_URL); the
 * exit status: 0, or 1 when no reply has the ID given. A running server shows the change within
 * a few seconds (lib/fediverse/reactions-page.ts looks at the store every second).
 */
export async function runFediverseCommand(command: FediverseCommand, store: ReactionStore, io: FediverseCliIo): Promise<number> {
  if (command.name === 'replies') {
    const pending = await store.pending();
    if (pending.length === 0) {
      io.out('No reply waits for approval.');
      return 0;
    }
    io.out(`${pending.length} repl${pending.length === 1 ? 'y waits' : 'ies wait'} for approval (npm run fediverse -- approve <id>, or reject <id>):`);
    for (const reply of pending) io.out(['', ...describe(reply)].join('\n'));
    return 0;
  }
  const reply = await store.moderate(command.id, command.name === 'approve' ? 'approved' : 'rejected');
  if (!reply) {
    io.err(`No reply has the id "${command.id}" (npm run fediverse -- replies lists the ones waiting).`);
    return 1;
  }
  io.out(
    command.name === 'approve'
      ? `Approved: the reply of ${reply.author.handle} shows on ${contentPaths.post(reply.slug)}.`
      : `Rejected: the reply of ${reply.author.handle} stays off ${contentPaths.post(reply.slug)}.`,
  );
  return 0;
}
