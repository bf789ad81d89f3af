import type { AssetBytes, Budget, PageWeight, Size } from './bytes';
import type { PairedComparison } from './paired';
import type { PaymentResults, PaymentRun } from './payment-flow';
import type { Timing } from './browser';
import type { DashboardResults } from './dashboard';
import type { DocsBytes, DocsTiming } from './docs';
import type { LoadResult } from './load';
import type { KeyLookupRow } from './keys';
import type { RawResult } from './raw';

// The shape of test/bench/results/latest.json. Every throughput figure is a list with one
// sample per round, so the spread between rounds stays visible.

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  platform: string;
  /** 1-minute load average at the start and the end: other work on the machine. */
  load: [number, number];
}

export interface Settings {
  /** Seconds per measured load run, after `warmup` seconds of unmeasured load. */
  duration: number;
  warmup: number;
  /** Seconds of unmeasured load on every freshly started server before its first run. */
  startWarmup: number;
  rounds: number;
  browserRuns: number;
  apiConnections: number;
  scalingConnections: number;
}

export interface PageRow {
  connections: number;
  service: LoadResult[];
  express: LoadResult[];
  http: LoadResult[];
}

export interface ScalingRow {
  products: number;
  /** Transactions in the database while measuring. */
  stored: number;
  samples: LoadResult[];
}

export interface EngineResults {
  engine: 'sqlite' | 'postgres';
  page: PageRow[];
  api: {
    connections: number;
    create: LoadResult[];
    read: LoadResult[];
    storeInsert: RawResult[];
    storeRead: RawResult[];
    /** SQLite only: prepared statements without Kysely. */
    sqliteInsert: RawResult[];
  };
  scaling: ScalingRow[];
  /** POST /v1/transfer/ between two wallets, beside the store's raw insert measured in the same section. */
  transfers?: { connections: number; transfer: LoadResult[]; storeInsert: RawResult[] };
  /** The API key check, as it is beside the environment-row lookup it replaced, at each number of keys stored. */
  keys?: { connections: number; rows: KeyLookupRow[] };
}

export interface BrowserResults {
  hosted: { service: Timing; static: Timing };
  widget: { service: Timing; static: Timing };
}

export interface Results {
  date: string;
  machine: Machine;
  settings: Settings;
  /** `docs`: the reference at /docs/ as the service sends it (null until measured). */
  /** `pages`: each kind of payment page's scripts and inline state (issue 29). */
  bytes: { assets: AssetBytes; html: Size; pages: PageWeight[]; docs: DocsBytes | null; budgets: Budget[] };
  engines: EngineResults[];
  browser: BrowserResults | null;
  /** The reference at /docs/: navigation → h1 painted, beside the same files from a static server. */
  docs: { service: DocsTiming; static: DocsTiming } | null;
  /** The money paths against the project at `baseline` (a git revision), paired slices on SQLite. */
  money?: { baseline: string; pairs: number; rows: ({ route: string } & PairedComparison)[] };
  /** The end-to-end payment (issue 49): both engines, 1 and 2 processes, with pgbench and SQLite's raw insert beside it. */
  payments?: PaymentResults;
  /** The same for the project at `rev` (`--payment-baseline`), measured first in the same run. */
  paymentsBaseline?: PaymentResults & { rev: string };
  /** `--payment-rounds` above 1: each round's runs of both sides (the baseline measured first in odd rounds). */
  paymentRounds?: { baseline: PaymentRun[]; tree: PaymentRun[] }[];
  /** The dashboard's pages at thousands of payments (issue 47), on each engine. */
  dashboard?: DashboardResults;
  /** Sections that failed, with the error: the rest still ran. */
  errors: string[];
}
