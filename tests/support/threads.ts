import fs from 'node:fs';

/** The niceness of each OS thread of a process, this one unless named (Linux: field 19 of /proc/<pid>/task/<id>/stat). */
export function threadNiceness(pid: number | 'self' = 'self'): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((id) => Number(fs.readFileSync(`/proc/${pid}/task/${id}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
}

/** This process's OS threads (Linux): each worker thread is one. */
export function osThreads(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]);
}
