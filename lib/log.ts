/** An error as one log line, with any URL (which may hold credentials) replaced. */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\b[a-z][\w+.-]*:\/\/\S+/gi, '<url>').split('\n')[0] ?? '';
}
