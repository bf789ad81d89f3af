import { FIGURE_KINDS } from '../store/dashboard-figures';
import type { HomeAttention, SetupGaps } from './home-attention';
import type { CurrencyFigures } from './home-figures';
import { PERIODS } from './home-figures';
import type { DashboardText } from './i18n';

// The home page's figures, chart and "needs attention" list. The chart is an inline SVG
// drawn on the server (no script): a figure with a caption, the SVG an image whose label
// summarises it, and the same numbers in a table inside <details> for anyone who cannot
// see the bars.

const CHART_W = 600;
const CHART_H = 160;
const GAP = 2;

/** The day as this language writes it, without a time: UTC, as the figures are counted. */
const dayLabel = (text: DashboardText, day: string) =>
  new Intl.DateTimeFormat(text.lang, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

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
                {t(`home.period.${p}`)}
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
                  {t('home.cell', { amount: text.money(c.periods[p][k].amount, c.currency), count: c.periods[p][k].count })}
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

function Chart({ text, c }: { text: DashboardText; c: CurrencyFigures }) {
  const { t } = text;
  const max = Math.max(1, ...c.days.map((d) => d.figures.payments.amount));
  const barW = CHART_W / c.days.length;
  const id = `chart-${c.currency}`;
  return (
    <figure class="chart" data-testid={id}>
      <figcaption id={id}>{t('home.chart.caption', { currency: c.currency })}</figcaption>
      <svg viewBox={`0 0 ${CHART_W} ${CHART_H + 1}`} role="img" aria-label={chartLabel(text, c)} preserveAspectRatio="none">
        <line class="axis" x1="0" x2={CHART_W} y1={CHART_H} y2={CHART_H} />
        {c.days.map((d, i) => {
          // Heights are drawn, not money: a ratio of two integers is only a length here.
          const h = Math.round((d.figures.payments.amount / max) * (CHART_H - 4));
          return h > 0 ? <rect key={d.day} class="bar" x={i * barW + GAP / 2} y={CHART_H - h} width={barW - GAP} height={h} /> : null;
        })}
      </svg>
      <details>
        <summary>{t('home.chart.data', { currency: c.currency })}</summary>
        <div class="scroll" tabindex={0} role="region" aria-label={t('home.chart.caption', { currency: c.currency })}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('home.day')}</th>
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
                  <th scope="row">{d.day}</th>
                  {FIGURE_KINDS.map((k) => (
                    <td key={k}>{t('home.cell', { amount: text.money(d.figures[k].amount, c.currency), count: d.figures[k].count })}</td>
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
      <p class="hint">{t('home.utc')}</p>
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
      </ul>
    </>
  );
}

export function NeedsAttention({ text, attention }: { text: DashboardText; attention: HomeAttention }) {
  const { t } = text;
  const { disputes, calls, endpoints } = attention;
  const setup = attention.unpayable.length > 0 || attention.noMethod || attention.payoutsPaused;
  const nothing = !setup && disputes.length + calls.length + endpoints.length === 0;
  return (
    <section aria-labelledby="home-attention" data-testid="attention">
      <h2 id="home-attention">{t('home.attention')}</h2>
      {nothing && <p class="empty">{t('home.attention.none')}</p>}
      {setup && <SetupGapList text={text} gaps={attention} />}
      {disputes.length > 0 && (
        <>
          <h3>{t('home.attention.disputes')}</h3>
          <ul>
            {disputes.map((d) => (
              <li key={d.id} data-testid="attention-dispute">
                <a href="/dashboard/disputes/">{t('home.attention.dispute', { amount: text.money(d.amount, d.currency), due: text.dateTime(d.evidence_due_by) })}</a>
              </li>
            ))}
          </ul>
        </>
      )}
      {calls.length > 0 && (
        <>
          <h3>{t('home.attention.calls')}</h3>
          <ul>
            {calls.map((c) => (
              <li key={c.id} data-testid="attention-call">
                {t('home.attention.call', { kind: c.kind, amount: text.money(c.amount, c.currency), since: text.dateTime(c.created_at), id: c.subject_id })}
              </li>
            ))}
          </ul>
        </>
      )}
      {endpoints.length > 0 && (
        <>
          <h3>{t('home.attention.endpoints')}</h3>
          <ul>
            {endpoints.map((e) => (
              <li key={e.id} data-testid="attention-endpoint" class="url">
                <a href={`/dashboard/webhook-endpoints/${e.id}/`}>{t(e.disabled_reason === 'failing' ? 'home.attention.disabled' : 'home.attention.failing', { url: e.url })}</a>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
