import { products, type Product } from '../content';

export type TrainingProduct = Extract<Product, { kind: 'training' }>;
export type OfferProduct = Extract<Product, { kind: 'offer' }>;

export function productBySlug(slug: string): Product | undefined {
  return products().find((product) => product.slug === slug);
}

/** How long a training checkout holds its seats while the buyer pays (Stripe's session expires a little earlier). */
export const SEAT_HOLD_MINUTES = 35;

/**
 * Seats one client (an IPv4 address or an IPv6 /64) may hold at once, across
 * every session, in checkouts not yet paid: held seats wait SEAT_HOLD_MINUTES for
 * a payment, so without a bound a few requests could keep every session full.
 * It is also the most seats one checkout can ask for.
 */
export const MAX_HELD_SEATS_PER_CLIENT = 4;

/** Free cancellation until this long before a training session starts (the pricing page says so). */
export const CANCELLATION_NOTICE_DAYS = 7;

export function cancellationDeadline(session: TrainingSession): number {
  return sessionStart(session) - CANCELLATION_NOTICE_DAYS * 24 * 60 * 60 * 1000;
}

export type TrainingSession = TrainingProduct['sessions'][number];
export type Meeting = TrainingSession['meetings'][number];

/** When a session starts: the start of its first meeting (epoch ms). */
export function sessionStart(session: TrainingSession): number {
  return Date.parse(session.meetings[0]!.start);
}

/**
 * The sessions a booking of `from` may move to: later ones (starting after it) that have not
 * started at `now`. Whether they have free seats is the store's to say.
 */
export function laterSessions(training: TrainingProduct, from: TrainingSession, now: number): TrainingSession[] {
  return training.sessions.filter((session) => sessionStart(session) > sessionStart(from) && sessionStart(session) > now);
}

/** A booking can be moved until its session starts (the product text and the pricing card say so). */
export function moveDeadline(session: TrainingSession): number {
  return sessionStart(session);
}
