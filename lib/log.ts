/** An error as one log line, with any URL (which may hold credentials) replaced. */
export function describeError(error: unknown): string {
  // Some errors carry no message (a connection refused while reconnecting, an AggregateError): their name says what happened.
  const message = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code || error.name : String(error);
  return message.replace(/\b[a-z][\w+.-]*:\/\/\S+/gi, '<url>').split('\n')[0] ?? '';
}
