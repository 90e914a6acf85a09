import { readFileSync, writeFileSync } from 'node:fs';

/** A process's resident memory now and at its peak (Linux /proc), in MiB. */
export function processMemory(pid: number): { rssMiB: number; peakRssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024 };
}

/** CPU seconds (user and system) a process has used so far (Linux /proc, in clock ticks of 1/100 s). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Starts a new peak: the kernel's high-water mark (VmHWM) is set back to the current RSS (Linux's
 * `clear_refs` 5), so a later peak is that of what ran since, not of the process's whole life.
 */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
