import { EVENT_TYPES, type EventType } from '../store/events';
import type { DashboardText } from './i18n';

// An event as a merchant reads it ("Payment succeeded", "Dispute opened"), linked to its page,
// with its type beside it for developers, who match on the type.

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);
const isEventType = (type: string): type is EventType => KNOWN.has(type);

/** What an event of `type` says in the text's language; a type the service does not emit reads as itself. */
export const eventWords = (text: DashboardText, type: string): string => (isEventType(type) ? text.t(`ev.says.${type}`) : type);

export function EventLink({ text, event }: { text: DashboardText; event: { id: string; type: string } }) {
  return (
    <>
      <a href={`/dashboard/events/${event.id}/`}>{eventWords(text, event.type)}</a> <code class="event-type">{event.type}</code>
    </>
  );
}
