import { describeError } from '../log';
import { nodeTimers, type Timers } from '../publishing/scheduler';
import { holdClaim, newClaim, CLAIM_OWNER } from '../services/claims';
import { newBounceToken } from '../services/mail/envelope';
import { backoffMs } from '../services/mail/worker';
import { singlePass } from '../services/single-pass';
import { isPermanentFailure, POOL_CONNECTIONS } from '../services/mail/transport';
import type { HeldMessage, NewsletterDelivery, NewsletterSend, Store } from '../services/store/types';
import { SUSPEND_AFTER_REJECTIONS } from '../services/store/newsletter/types';
import { newToken } from '../services/tokens';
import type { NewsletterMail } from './mail';
import type { SendableMail } from '../services/store/types';

/** What the newsletter needs of a post: published posts only reach it (in development the list also marks unpublished ones). */
export type NewsletterPost = { slug: string; title: string; newsletter: boolean; published?: boolean; dateMillis: number };

export type NewsletterSettings = {
  /** Messages per second; 0: as fast as the transport takes them. */
  rate: number;
  /** How often published posts and due messages are looked at. */
  checkMs: number;
  /** The first retry delay after a temporary failure; it doubles each time. */
  retryBaseMs: number;
  /** How long a claimed message is held by its sender before another may take it. */
  leaseMs?: number;
  /** Temporary failures after which a message counts as failed (`npm run newsletter -- retry` puts it back). */
  maxAttempts?: number;
  /** The bounce address (BOUNCE_ADDRESS): each message then leaves with its own envelope sender (VERP). */
  bounceAddress?: string;
};

/**
 * Makes a post's mail once per send, and each recipient's copy of it: the message `M` its transport
 * takes (a whole message, or what the mail thread makes one from: lib/newsletter/mail-thread.ts).
 */
export type NewsletterMailer<P extends NewsletterPost, M = SendableMail> = {
  render(post: P): Promise<NewsletterMail>;
  personalize(mail: NewsletterMail, recipient: NewsletterDelivery, unsubscribeToken: string): M;
};

/**
 * Hands a reader's copy to the mail server (lib/services/mail/transport.ts's MailTransport is one):
 * `start` (when it has one) is called when the newsletter starts, `close` once it has stopped and
 * drained.
 */
export type MessageTransport<M> = {
  send(message: M, id?: string, bounceToken?: string): Promise<void>;
  start?(): void;
  close?(): void | Promise<void>;
};

export type Newsletter = {
  /** Checks now, then every `checkMs`. */
  start(): void;
  /**
   * Starts no new message: the messages on the wire finish and are recorded, the ones claimed and
   * not started are given back at once (drain waits for both).
   */
  stop(): void;
  /**
   * Compares the published posts with what the store has recorded and starts
   * a send for each new one, then sends what is due. The first run ever only
   * records the posts already published. Cheap when nothing is new: call it
   * whenever a post may have gone live.
   */
  check(): Promise<void>;
  /** Sends due messages now. */
  kick(): void;
  /**
   * One bounded batch, for a host that keeps no process running (a platform's
   * cron call): looks for new posts as `check()` does, then sends due messages
   * until `messages` are claimed or `until` (on the clock) has passed, with the
   * same claims as `start()`'s sending, and resolves once they are settled.
   */
  step(budget: StepBudget): Promise<StepResult>;
  drain(): Promise<void>;
};

/** What one step may do: claim at most `messages`, and none once the clock reaches `until`. */
export type StepBudget = { messages: number; until: number };
/** What a step did: the messages it claimed, and whether its budget ran out while messages may still be due. */
export type StepResult = { messages: number; more: boolean };

/** Messages still to claim and the moment claiming stops, counted down by the sending of one pass or step. */
type Budget = { left: number; until: number };

/**
 * Spaces the messages of a sender `rate` a second apart (0: not at all), on the sender's clock,
 * waiting with `wait`. Each message gets its moment before its last look at the store, so it leaves
 * right after that look instead of waiting for the rate in the transport's queue.
 */
export function pacer(rate: number, clock: () => number, wait: (ms: number) => Promise<void>): () => Promise<void> {
  if (rate <= 0) return async () => {};
  const interval = 1000 / rate;
  let next = -Infinity;
  return async () => {
    const now = clock();
    const at = Math.max(now, next);
    next = at + interval;
    if (at > now) await wait(at - now);
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A batch is about a second of sending at the rate: claims are held for far longer than a batch takes. */
const MAX_BATCH = 100;
const DEFAULT_LEASE_MS = 120_000;
const DEFAULT_MAX_ATTEMPTS = 8;

export function createNewsletter<P extends NewsletterPost, M = SendableMail>(options: {
  store: Pick<Store, 'newsletter' | 'bounces'>;
  transport: MessageTransport<M>;
  clock: () => number;
  /** The heartbeat's timers (renewing claims while messages are on the wire); Node's by default. */
  timers?: Timers;
  /** Who this sender's claims belong to (lib/services/claims.ts); this process by default. */
  owner?: string;
  settings: NewsletterSettings;
  log: Pick<Console, 'log' | 'warn'>;
  posts: () => readonly P[];
  mailer: NewsletterMailer<P, M>;
}): Newsletter {
  const { store, transport, clock, settings, log, mailer } = options;
  const timers = options.timers ?? nodeTimers;
  const owner = options.owner ?? CLAIM_OWNER;
  const leaseMs = settings.leaseMs ?? DEFAULT_LEASE_MS;
  const maxAttempts = settings.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const batch = settings.rate > 0 ? Math.min(MAX_BATCH, Math.max(1, Math.ceil(settings.rate))) : MAX_BATCH;
  const pace = pacer(settings.rate, clock, sleep);
  // Posts known to be recorded: a check asks the store only about the others.
  const known = new Set<string>();
  let baselineSeen = false;
  const mails = new Map<string, NewsletterMail>();
  let checking: Promise<void> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  async function checkPosts(): Promise<void> {
    const posts = options.posts().filter((post) => post.published !== false);
    const fresh = posts.filter((post) => !known.has(post.slug));
    if (fresh.length === 0 && baselineSeen) return;
    let recorded = await store.newsletter.recorded(fresh.map((post) => post.slug));
    if (!recorded) {
      if (
        await store.newsletter.recordBaseline(
          posts.map((post) => post.slug),
          clock(),
        )
      ) {
        baselineSeen = true;
        for (const post of posts) known.add(post.slug);
        log.log(`newsletter: first run: ${posts.length} published post${posts.length === 1 ? '' : 's'} recorded, none mailed`);
        return;
      }
      recorded = (await store.newsletter.recorded(fresh.map((post) => post.slug))) ?? new Set();
    }
    baselineSeen = true;
    // Oldest first, so two posts of one deploy go out in the order they were written.
    for (const post of [...fresh].sort((a, b) => a.dateMillis - b.dateMillis || a.slug.localeCompare(b.slug))) {
      if (stopped) return;
      if (!recorded.has(post.slug)) {
        if (!post.newsletter) {
          await store.newsletter.recordSkipped(post.slug, clock());
          log.log(`newsletter: "${post.slug}" is not mailed (newsletter: false)`);
        } else {
          const mail = await mailer.render(post);
          const started = await store.newsletter.startSend({ slug: post.slug, mail: JSON.stringify(mail), now: clock() });
          if (started.started) {
            mails.set(post.slug, mail);
            log.log(`newsletter: sending "${post.slug}" to ${started.recipients} subscriber${started.recipients === 1 ? '' : 's'}`);
          }
        }
      }
      known.add(post.slug);
    }
  }

  async function mailOf(slug: string): Promise<NewsletterMail | undefined> {
    let mail = mails.get(slug);
    if (!mail) {
      const stored = await store.newsletter.sendMail(slug);
      if (!stored) return undefined;
      mail = JSON.parse(stored) as NewsletterMail;
      mails.set(slug, mail);
    }
    return mail;
  }

  /**
   * Records sent messages as they finish: the ones that finish while a write
   * is under way go in the next write together, so a busy send is a few
   * writes per batch rather than one per message, and each message is
   * recorded within a write's time of its server's answer. A message whose
   * claim another sender holds by then is not recorded here (that sender
   * records it): it may have reached its reader twice, which is logged.
   */
  function sentRecorder(slug: string): (message: HeldMessage) => Promise<void> {
    const pending: HeldMessage[] = [];
    let writing: Promise<void> | undefined;
    return (message) => {
      pending.push(message);
      writing ??= (async () => {
        while (pending.length > 0) {
          const lost = await store.newsletter.markSent(slug, pending.splice(0), clock());
          if (lost.length > 0) {
            log.warn(
              `newsletter: "${slug}": ${lost.length} message${lost.length === 1 ? ' was' : 's were'} sent after another sender had claimed ${lost.length === 1 ? 'it' : 'them'}; a reader may get ${lost.length === 1 ? 'it' : 'them'} twice (same Message-ID)`,
            );
          }
        }
      })().finally(() => (writing = undefined));
      return writing;
    };
  }

  /**
   * Sends one claimed message, unless the sender is stopping (false: not started, still held, to
   * be given back). The last look before it leaves checks that the claim still holds it (and runs
   * its lease from now) and that its reader still wants it.
   */
  async function deliver(
    mail: NewsletterMail,
    delivery: NewsletterDelivery,
    token: string,
    bounceToken: string | undefined,
    recordSent: (message: HeldMessage) => Promise<void>,
  ): Promise<boolean> {
    const { slug, email, claim } = delivery;
    await pace();
    if (stopped) return false;
    // A reader who unsubscribed since the claim gets nothing, nor does one whose message another sender claimed.
    if (!(await store.newsletter.stillWanted({ slug, email, claim, now: clock(), leaseMs }))) return true;
    try {
      await transport.send(mailer.personalize(mail, delivery, token), undefined, bounceToken);
    } catch (error) {
      const attempts = delivery.attempts + 1;
      const reason = describeError(error);
      const permanent = isPermanentFailure(error);
      if (!permanent && attempts < maxAttempts) {
        await store.newsletter.retryLater({ slug, email, claim, attempts, nextAttemptAt: clock() + backoffMs(attempts, settings.retryBaseMs), error: reason });
        return true;
      }
      const rejections = await store.newsletter.markFailed({ slug, email, claim, attempts, now: clock(), error: reason, permanent });
      if (permanent && rejections === SUSPEND_AFTER_REJECTIONS) {
        log.warn(`newsletter: an address refused mail permanently ${rejections} times and is suspended (npm run newsletter -- status lists it)`);
      }
      return true;
    }
    await recordSent({ email, claim });
    return true;
  }

  /** Sends a send's due messages while the budget lasts; false when it ran out first (messages may still be due). */
  async function sendDue(slug: string, budget: Budget): Promise<boolean> {
    const mail = await mailOf(slug);
    if (!mail) return true;
    const recordSent = sentRecorder(slug);
    while (!stopped) {
      if (budget.left <= 0 || clock() >= budget.until) return false;
      const tokens = Array.from({ length: Math.min(batch, budget.left) }, () => newToken());
      const claim = newClaim(owner);
      const claimed = await store.newsletter.claim({ slug, now: clock(), leaseMs, tokenHashes: tokens.map((token) => token.hash), claim });
      if (claimed.length === 0) return true;
      budget.left -= claimed.length;
      const byHash = new Map(tokens.map((token) => [token.hash, token.token]));
      // With a bounce address, each message's bounce token is recorded (one write for the batch) before any leaves.
      const bounceTokens = new Map(settings.bounceAddress ? claimed.map((delivery) => [delivery.email, newBounceToken()]) : []);
      if (bounceTokens.size > 0) {
        await store.bounces.issue(
          [...bounceTokens].map(([email, bounce]) => ({ tokenHash: bounce.hash, email, slug })),
          clock(),
        );
      }
      // Held while the batch is under way: the heartbeat renews the lease of what is on the wire and what waits its turn.
      const held = holdClaim(
        claimed.map((delivery) => delivery.email),
        {
          leaseMs,
          timers,
          renew: (emails) => store.newsletter.renew({ slug, claim, emails, now: clock(), leaseMs }),
          failed: (error) => log.warn(`newsletter: could not renew a claim (${describeError(error)})`),
        },
      );
      // Handed to the transport as its connections free up, not all at once: preparing a whole
      // batch of messages in one go would hold up the reads this process answers meanwhile.
      // Once the sender is stopping, none is started.
      const queued = [...claimed];
      const connections = await Promise.allSettled(
        Array.from({ length: Math.min(POOL_CONNECTIONS, queued.length) }, async () => {
          for (let delivery = queued.shift(); delivery && !stopped; delivery = queued.shift()) {
            if (!held.holds(delivery.email)) continue;
            const unsubscribe = byHash.get(delivery.unsubscribeTokenHash) ?? '';
            if (await deliver(mail, delivery, unsubscribe, bounceTokens.get(delivery.email)?.token, recordSent)) held.drop(delivery.email);
          }
        }),
      );
      held.stop();
      const failure = connections.find((result) => result.status === 'rejected');
      if (failure) throw failure.reason;
      // Stopping: what was claimed and not started goes back for another sender now, not when the lease ends.
      const unstarted = held.held();
      if (unstarted.length > 0) await store.newsletter.release({ slug, claim, emails: unstarted, now: clock() });
    }
    return true;
  }

  const summary = (send: NewsletterSend) =>
    `newsletter: "${send.slug}" done: ${send.sent} sent, ${send.failed} failed, ${send.skipped} skipped (unsubscribed meanwhile) of ${send.recipients}`;

  /** Sends what is due of every send in progress, oldest first; false when the budget ran out first. */
  async function pass(budget: Budget): Promise<boolean> {
    for (const slug of await store.newsletter.activeSends()) {
      if (stopped) return true;
      if (!(await sendDue(slug, budget))) return false;
      const finished = stopped ? undefined : await store.newsletter.finish(slug, clock());
      if (finished) log.log(summary(finished));
    }
    return true;
  }

  const passes = singlePass(async () => void (await pass({ left: Infinity, until: Infinity })), {
    failed: (error) => log.warn(`newsletter: sending paused (${describeError(error)}); trying again at the next check`),
    stopped: () => stopped,
  });
  const kick = passes.kick;

  async function lookForPosts(): Promise<void> {
    // One check at a time: a second caller waits for the one under way, then looks again.
    while (checking) await checking;
    checking = checkPosts()
      .catch((error: unknown) => log.warn(`newsletter: could not check for new posts (${describeError(error)})`))
      .finally(() => (checking = undefined));
    await checking;
  }

  async function check(): Promise<void> {
    if (stopped) return;
    await lookForPosts();
    kick();
  }

  async function step({ messages, until }: StepBudget): Promise<StepResult> {
    if (stopped) return { messages: 0, more: false };
    await lookForPosts();
    const budget = { left: messages, until };
    const done = await pass(budget);
    return { messages: messages - budget.left, more: !done };
  }

  return {
    start() {
      if (timer || stopped) return;
      transport.start?.();
      void check();
      timer = setInterval(() => void check(), settings.checkMs);
      timer.unref();
    },
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
    },
    check,
    kick,
    step,
    async drain() {
      while (passes.running || checking) await (passes.running ?? checking);
      if (stopped) await transport.close?.();
    },
  };
}
