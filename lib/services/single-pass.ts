/**
 * One pass of background work at a time: `kick` starts a pass, or, while one runs, asks for one
 * more after it (however often it is kicked meanwhile); `idle` resolves once no pass runs or is
 * asked for. A pass that fails is reported to `failed` and the next kick tries again. Nothing
 * starts once `stopped()` says so. The mail worker and the newsletter sender run on it.
 */
export function singlePass(pass: () => Promise<void>, options: { failed: (error: unknown) => void; stopped: () => boolean }) {
  let running: Promise<void> | undefined;
  let again = false;

  function kick(): void {
    if (options.stopped()) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch(options.failed)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  return {
    kick,
    get running(): Promise<void> | undefined {
      return running;
    },
    async idle(): Promise<void> {
      while (running) await running;
    },
  };
}
