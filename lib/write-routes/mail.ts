/**
 * Sends the mail an action has just queued. The mail worker is loaded when an
 * action runs, not with the route's definition: it uses Next's request scope
 * (`after`), and lectern's own server reads the registry for the limits
 * before Next has set that scope up.
 */
export async function sendQueuedMailNow(): Promise<void> {
  const { sendQueuedMail } = await import('../services/mail/worker');
  sendQueuedMail();
}
