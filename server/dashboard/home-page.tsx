import type { ComponentChildren } from 'preact';
import { FIGURE_KINDS, type FigureKind } from '../store/dashboard-figures';
import type { Readiness } from '../domain/live-readiness';
import type { HomeAttention, SetupGaps } from './home-attention';
import type { CurrencyFigures, Tally } from './home-figures';
import { PERIODS } from './home-figures';
import type { DashboardText } from './i18n';
import { READINESS_URL } from './live-readiness-page';

// The home page's figures, chart and "needs attention" list. The chart is an inline SVG
// drawn on the server (no script): a figure with a caption; the SVG an image whose label
// summarises it, with its axes (money and dates, in the reader's language) and each paid
// day's value written on its bar; the same numbers in a table inside <details> for
// anyone who cannot see the bars.

/** The drawing's box (user units; the stylesheet scales it, never under 36rem wide). */
const CHART = { width: 640, height: 240, left: 84, right: 32, top: 12, bottom: 28 };
const PLOT_W = CHART.width - CHART.left - CHART.right;
const PLOT_H = CHART.height - CHART.top - CHART.bottom;
const GAP = 2;
/** The dates on the axis: today and every 7th day before it. */
const DATE_EVERY = 7;
/** Roughly the width of one character of a value label, to know whether it fits inside its bar. */
const CHAR_W = 6;

/** Each language's day format, made once: the chart and its table write some 60 days. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** A calendar day of the shop's (`YYYY-MM-DD`) as this language writes it, without a time. */
function dayLabel(text: DashboardText, day: string): string {
  let format = dayFormats.get(text.lang);
  if (!format) dayFormats.set(text.lang, (format = new Intl.DateTimeFormat(text.lang, { day: 'numeric', month: 'short', timeZone: 'UTC' })));
  return format.format(new Date(`${day}T00:00:00Z`));
}

/** The axis's top: the smallest 1, 2 or 5 × 10ⁿ minor units at or above the highest day. */
export function axisTop(highest: number): number {
  let power = 1;
  while (power * 10 <= highest) power *= 10;
  return [1, 2, 5, 10].map((f) => f * power).find((v) => v >= highest)!;
}

/** A kind's tally as a cell: volume and number; the net as money alone (it is summed from balance transactions, whose number means nothing to a shop). */
function cellText(text: DashboardText, kind: FigureKind, tally: Tally, currency: string): string {
  const amount = text.money(tally.amount, currency);
  return kind === 'net' ? amount : text.t('home.cell', { amount, count: tally.count });
}

function Totals({ text, c }: { text: DashboardText; c: CurrencyFigures }) {
  const { t } = text;
  return (
    <div class="scroll" tabindex={0} role="region" aria-labelledby={`totals-${c.currency}`}>
      <table data-testid={`totals-${c.currency}`}>
        <caption id={`totals-${c.currency}`}>{t('home.totals', { currency: c.currency })}</caption>
        <thead>
          <tr>
            <td />
            {PERIODS.map((p) => (
              <th scope="col" key={p}>
                {t(`home.period.${p}`, { zone: text.timeZone })}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {FIGURE_KINDS.map((k) => (
            <tr key={k} data-kind={k}>
              <th scope="row">{t(`home.kind.${k}`)}</th>
              {PERIODS.map((p) => (
                <td key={p} data-period={p}>
                  {cellText(text, k, c.periods[p][k], c.currency)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function chartLabel(text: DashboardText, c: CurrencyFigures): string {
  const total = c.periods[30].payments;
  if (total.count === 0) return text.t('home.chart.none', { currency: c.currency });
  const peak = c.days.reduce((best, d) => (d.figures.payments.amount > best.figures.payments.amount ? d : best));
  return text.t('home.chart.label', {
    currency: c.currency,
    total: text.money(total.amount, c.currency),
    count: total.count,
    peak: text.money(peak.figures.payments.amount, c.currency),
    day: dayLabel(text, peak.day),
  });
}

/** The axes: money lines at 0, half and the top; the dates of today and every 7th day before it. */
function Axes({ text, c, top }: { text: DashboardText; c: CurrencyFigures; top: number }) {
  const slot = PLOT_W / c.days.length;
  const ticks = top % 2 === 0 ? [0, top / 2, top] : [0, top];
  return (
    <>
      {ticks.map((v) => {
        const y = CHART.top + PLOT_H - (v / top) * PLOT_H;
        return (
          <g key={v}>
            <line class={v === 0 ? 'axis' : 'grid'} x1={CHART.left} x2={CHART.width - CHART.right} y1={y} y2={y} />
            <text class="money" x={CHART.left - 6} y={y + 4} text-anchor="end">
              {text.money(v, c.currency)}
            </text>
          </g>
        );
      })}
      {c.days.map((d, i) =>
        (c.days.length - 1 - i) % DATE_EVERY === 0 ? (
          <text key={d.day} class="date" x={CHART.left + (i + 0.5) * slot} y={CHART.height - 8} text-anchor="middle">
            {dayLabel(text, d.day)}
          </text>
        ) : null,
      )}
    </>
  );
}

/** A day's bar, its value written along it (inside when it fits, above otherwise), and its date and value as a tooltip. */
function Bar({ text, c, i, top }: { text: DashboardText; c: CurrencyFigures; i: number; top: number }) {
  const d = c.days[i]!;
  const { amount, count } = d.figures.payments;
  if (amount === 0) return null;
  const slot = PLOT_W / c.days.length;
  // Heights are drawn, not money: a ratio of two integers is only a length here.
  const h = Math.max(1, Math.round((amount / top) * PLOT_H));
  const x = CHART.left + i * slot;
  const base = CHART.top + PLOT_H;
  const value = text.money(amount, c.currency);
  const inside = h >= value.length * CHAR_W + 8;
  const labelY = inside ? base - 4 : base - h - 4;
  const cx = x + slot / 2 + 4;
  return (
    <g data-day={d.day}>
      <rect class="bar" x={x + GAP / 2} y={base - h} width={slot - GAP} height={h}>
        <title>{`${dayLabel(text, d.day)}: ${text.t('home.cell', { amount: value, count })}`}</title>
      </rect>
      <text class={inside ? 'value inside' : 'value'} x={cx} y={labelY} transform={`rotate(-90 ${cx} ${labelY})`}>
        {value}
      </text>
    </g>
  );
}

function Chart({ text, c }: { text: DashboardText; c: CurrencyFigures }) {
  const { t } = text;
  const top = axisTop(Math.max(1, ...c.days.map((d) => d.figures.payments.amount)));
  const id = `chart-${c.currency}`;
  return (
    <figure class="chart" data-testid={id}>
      <figcaption id={id}>{t('home.chart.caption', { currency: c.currency, zone: text.timeZone })}</figcaption>
      <div class="scroll" tabindex={0} role="region" aria-label={t('home.chart.scroll', { currency: c.currency })}>
        <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-label={chartLabel(text, c)}>
          <Axes text={text} c={c} top={top} />
          {c.days.map((d, i) => (
            <Bar key={d.day} text={text} c={c} i={i} top={top} />
          ))}
        </svg>
      </div>
      <details>
        <summary>{t('home.chart.data', { currency: c.currency })}</summary>
        <div class="scroll" tabindex={0} role="region" aria-label={t('home.chart.caption', { currency: c.currency, zone: text.timeZone })}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('home.day', { zone: text.timeZone })}</th>
                {FIGURE_KINDS.map((k) => (
                  <th scope="col" key={k}>
                    {t(`home.kind.${k}`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {c.days.map((d) => (
                <tr key={d.day}>
                  <th scope="row">
                    <time datetime={d.day}>{dayLabel(text, d.day)}</time>
                  </th>
                  {FIGURE_KINDS.map((k) => (
                    <td key={k}>{cellText(text, k, d.figures[k], c.currency)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

export function Figures({ text, figures }: { text: DashboardText; figures: CurrencyFigures[] }) {
  const { t } = text;
  return (
    <section aria-labelledby="home-figures">
      <h2 id="home-figures">{t('home.figures')}</h2>
      <p class="hint">{t('home.counting', { zone: text.timeZone })}</p>
      {figures.length === 0 ? (
        <p class="empty">{t('home.none')}</p>
      ) : (
        figures.map((c) => (
          <div key={c.currency} class="currency" data-currency={c.currency}>
            <Totals text={text} c={c} />
            <Chart text={text} c={c} />
          </div>
        ))
      )}
    </section>
  );
}

/** A live environment's missing readiness items, and webhooks that stopped arriving: each a link to the checklist. */
function ReadinessGaps({ text, readiness }: { text: DashboardText; readiness: Readiness | null }) {
  const { t } = text;
  if (!readiness) return null;
  const stopped = readiness.webhooks === 'stale';
  const missing = readiness.missing.filter((i) => !(stopped && i === 'webhook'));
  return (
    <>
      {stopped && (
        <li data-testid="attention-readiness">
          <a href={READINESS_URL}>{t('home.attention.webhooksStopped', { at: text.dateTime(readiness.lastDelivery!) })}</a>
        </li>
      )}
      {missing.length > 0 && (
        <li data-testid="attention-readiness">
          <a href={READINESS_URL}>{t('home.attention.notReady', { items: missing.map((i) => t(`ready.item.${i}`)).join(', ') })}</a>
        </li>
      )}
    </>
  );
}

/** Whether the set-up has a gap to show. */
const hasSetupGap = (g: SetupGaps) => g.unpayable.length > 0 || g.noMethod || g.payoutsPaused || g.unsentFileSince !== null || (g.readiness !== null && g.readiness.missing.length > 0);

/** What the set-up keeps from working (home-attention.ts): first, since nothing else fixes it. */
function SetupGapList({ text, gaps }: { text: DashboardText; gaps: SetupGaps }) {
  const { t } = text;
  return (
    <>
      <h3>{t('home.attention.setup')}</h3>
      <ul>
        {gaps.noMethod && <li data-testid="attention-setup">{t('home.attention.noMethod')}</li>}
        {gaps.unpayable.map((currency) => (
          <li key={currency} data-testid="attention-setup">
            {t('home.attention.unpayable', { currency })}
          </li>
        ))}
        {gaps.payoutsPaused && (
          <li data-testid="attention-setup">
            <a href="/dashboard/payouts/">{t('home.attention.payoutsPaused')}</a>
          </li>
        )}
        {gaps.unsentFileSince && (
          <li data-testid="attention-setup">
            <a href="/dashboard/payout-files/">{t('home.attention.payoutFileWaiting', { since: text.dateTime(gaps.unsentFileSince) })}</a>
          </li>
        )}
        <ReadinessGaps text={text} readiness={gaps.readiness} />
      </ul>
    </>
  );
}

/** One kind of item needing attention: its heading and its list (shown only when it has items). */
function Group({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <>
      <h3>{title}</h3>
      <ul>{children}</ul>
    </>
  );
}

/** Payouts that did not reach the bank (newest first), then a new bank account's hold: each a link to where it is seen. */
function PayoutItems({ text, attention }: { text: DashboardText; attention: HomeAttention }) {
  const { t } = text;
  const { payouts, payoutsHeld } = attention;
  if (payouts.length === 0 && !payoutsHeld) return null;
  return (
    <Group title={t('home.attention.payouts')}>
      {payouts.map((p) => (
        <li key={p.id} data-testid="attention-payout">
          <a href={`/dashboard/payouts/${p.id}/`}>
            {t('home.attention.payout', { amount: text.money(p.amount, p.currency), last4: p.iban.slice(-4), when: text.dateTime(p.updated_at), status: t(`payout.status.${p.status}`) })}
          </a>
          {p.failure && ` ${t('home.attention.payoutWhy', { why: p.failure })}`}
        </li>
      ))}
      {payoutsHeld && (
        <li data-testid="attention-payout-held">
          <a href="/dashboard/balance/">{t('bal.held', { last4: payoutsHeld.last4, until: text.dateTime(payoutsHeld.until) })}</a>
        </li>
      )}
    </Group>
  );
}

/**
 * What needs a person, most urgent first: the set-up (nothing else works without it),
 * disputes by their deadline, money that did not reach the bank, gateway calls whose
 * outcome is unknown, what a processor told us, failing webhook endpoints.
 */
export function NeedsAttention({ text, attention }: { text: DashboardText; attention: HomeAttention }) {
  const { t } = text;
  const { disputes, calls, payouts, endpoints, processorItems } = attention;
  const setup = hasSetupGap(attention);
  const nothing = !setup && !attention.payoutsHeld && disputes.length + calls.length + payouts.length + endpoints.length + processorItems.length === 0;
  return (
    <section aria-labelledby="home-attention" data-testid="attention">
      <h2 id="home-attention">{t('home.attention')}</h2>
      {nothing && <p class="empty">{t('home.attention.none')}</p>}
      {setup && <SetupGapList text={text} gaps={attention} />}
      {disputes.length > 0 && (
        <Group title={t('home.attention.disputes')}>
          {disputes.map((d) => (
            <li key={d.id} data-testid="attention-dispute">
              <a href="/dashboard/disputes/">{t('home.attention.dispute', { amount: text.money(d.amount, d.currency), due: text.dateTime(d.evidence_due_by) })}</a>
            </li>
          ))}
        </Group>
      )}
      <PayoutItems text={text} attention={attention} />
      {calls.length > 0 && (
        <Group title={t('home.attention.calls')}>
          {calls.map((c) => (
            <li key={c.id} data-testid="attention-call">
              {t('home.attention.call', { kind: c.kind, amount: text.money(c.amount, c.currency), since: text.dateTime(c.created_at), id: c.subject_id })}
            </li>
          ))}
        </Group>
      )}
      {processorItems.length > 0 && (
        <Group title={t('home.attention.processor')}>
          {processorItems.map((p) => (
            <li key={p.id} data-testid="attention-processor">
              {t('home.attention.processorItem', { type: p.event_type, subject: p.subject, why: p.why, since: text.dateTime(p.created_at) })}
            </li>
          ))}
        </Group>
      )}
      {endpoints.length > 0 && (
        <Group title={t('home.attention.endpoints')}>
          {endpoints.map((e) => (
            <li key={e.id} data-testid="attention-endpoint" class="url">
              <a href={`/dashboard/webhook-endpoints/${e.id}/`}>{t(e.disabled_reason === 'failing' ? 'home.attention.disabled' : 'home.attention.failing', { url: e.url })}</a>
            </li>
          ))}
        </Group>
      )}
    </section>
  );
}
