'use client';

import { useEffect, useRef } from 'react';

/** 16 random bytes as hex; `crypto.getRandomValues` works on plain http too, where `randomUUID` does not. */
function newAttemptId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The hidden `attempt` field of a checkout form. The pricing page is the
 * same HTML for everyone, so the id is made in the browser, once per
 * page view: every submission of the form is then one checkout attempt, and
 * the server answers a double submit with one Stripe session while two
 * people get two. Without JavaScript the field stays empty and each post is
 * an attempt of its own.
 */
export function AttemptField() {
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (field.current) field.current.value = newAttemptId();
  }, []);
  // autoComplete off: a browser restoring form fields must not bring back the id of an earlier view.
  return <input ref={field} type="hidden" name="attempt" defaultValue="" autoComplete="off" />;
}
