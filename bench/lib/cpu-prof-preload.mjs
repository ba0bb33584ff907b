// Preloaded (NODE_OPTIONS=--import) into every Node process of a `next build` by
// bench/build-profile.mjs: profiles the process with V8's sampling profiler and writes
// BENCH_CPU_PROF_DIR/<role>-<pid>.cpuprofile when it exits, also when its parent ends it
// with SIGINT or SIGTERM (as Next does with its static-generation workers). `--cpu-prof`
// itself cannot reach those workers: Node refuses it in NODE_OPTIONS.
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    // A session on the same thread answers synchronously, so this works in an exit handler.
    session.post('Profiler.stop', (error, result) => {
      if (error || !result) return;
      const role = process.env.IS_NEXT_WORKER ? 'worker' : path.basename(process.argv[1] || 'node').replace(/\W+/g, '-');
      fs.writeFileSync(path.join(dir, `${role}-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  };
  process.on('exit', save);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      save();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
}
