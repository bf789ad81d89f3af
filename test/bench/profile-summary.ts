import { readFileSync } from 'node:fs';

// A V8 .cpuprofile reduced to where the time went: self time by package or project file,
// and by function. Enough to pick the next hot spot without opening DevTools.

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** [name, share of the total] sorted by share, largest first. */
  byModule: [string, number][];
  byFunction: [string, number][];
}

const ROOT = new URL('../../', import.meta.url).pathname;

function moduleOf(url: string, fallback: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return `npm:${pkg[1]}`;
  return url.replace(/^file:\/\//, '').replace(ROOT, '') || fallback;
}

function ranked(totals: Map<string, number>, total: number): [string, number][] {
  return [...totals].map(([k, t]): [string, number] => [k, t / total]).sort((a, b) => b[1] - a[1]);
}

export function summarizeProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const t = profile.timeDeltas[i] ?? 0;
    const frame = nodes.get(id)!;
    // Idle time is the process waiting for work, not what a request costs.
    if (frame.functionName === '(idle)') return;
    total += t;
    const module = moduleOf(frame.url, frame.functionName);
    byModule.set(module, (byModule.get(module) ?? 0) + t);
    const fn = `${frame.functionName || '(anonymous)'} ${module}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + t);
  });
  return { totalMs: total / 1000, byModule: ranked(byModule, total), byFunction: ranked(byFunction, total) };
}
