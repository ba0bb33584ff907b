import fs from 'node:fs';

/** The niceness of each OS thread of this process (Linux: field 19 of /proc/self/task/<id>/stat). */
export function threadNiceness(): number[] {
  return fs.readdirSync('/proc/self/task').map((id) => Number(fs.readFileSync(`/proc/self/task/${id}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
}

/** This process's OS threads (Linux): each worker thread is one. */
export function osThreads(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]);
}
